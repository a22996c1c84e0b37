package main

import "time"

func init() { register("fanin", nil, []string{"s", "n"}, runFanin) }

// faninBuf is the capacity of the receiver's inbox. It stands in for the
// unbounded mailbox: big enough that S busy senders rarely wait on the one
// receiver, small enough not to matter for memory.
const faninBuf = 1024

// fanin: S senders each send N/S integers (each 1) to one receiver, which
// counts to N and then tells main the count and the sum.
func runFanin(_ string, p map[string]int) outcome {
	s, n := p["s"], p["n"]
	if s < 1 || n%s != 0 {
		usage("fanin: n=%d must be a multiple of s=%d >= 1", n, s)
	}
	start := time.Now()
	inbox := make(chan int, faninBuf)
	report := make(chan [2]int, 1)
	go func() { // the receiver
		count, sum := 0, 0
		for count < n {
			sum += <-inbox
			count++
		}
		report <- [2]int{count, sum}
	}()
	per := n / s
	for i := 0; i < s; i++ {
		go func() {
			for j := 0; j < per; j++ {
				inbox <- 1
			}
		}()
	}
	got := <-report
	wall := time.Since(start)
	if got[0] != n || got[1] != n {
		fail("fanin: count %d sum %d, want %d and %d", got[0], got[1], n, n)
	}
	return outcome{wall: wall}
}
