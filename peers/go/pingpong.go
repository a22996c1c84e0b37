package main

import "time"

func init() { register("pingpong", nil, []string{"r"}, runPingpong) }

type tally struct{ trips, bad int }

// pingpong: goroutines A and B (not main). A sends i to B, B answers i,
// R round trips, then A reports to main. Unbuffered channels: each message is
// a rendezvous, which is what a strict ping-pong is.
func runPingpong(_ string, p map[string]int) outcome {
	r := p["r"]
	start := time.Now()
	ping, pong := make(chan int), make(chan int)
	report := make(chan tally, 1)
	go func() { // B
		for v := range ping {
			pong <- v
		}
	}()
	go func() { // A
		t := tally{}
		for i := 0; i < r; i++ {
			ping <- i
			if <-pong != i {
				t.bad++
			}
			t.trips++
		}
		close(ping)
		report <- t
	}()
	t := <-report
	wall := time.Since(start)
	if t.trips != r || t.bad != 0 {
		fail("pingpong: %d trips with %d wrong replies, want %d trips", t.trips, t.bad, r)
	}
	return outcome{wall: wall}
}
