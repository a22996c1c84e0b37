package main

import "time"

func init() { register("ring", nil, []string{"t", "p"}, runRing) }

// ringNode is process j: it passes v-1 on for every token v > 0 and reports
// its index to main when it gets 0.
func ringNode(j int, in <-chan int, next chan<- int, report chan<- int) {
	for v := range in {
		if v == 0 {
			report <- j
			return
		}
		next <- v - 1
	}
}

// ring: P goroutines in a ring, one token with value T. Only one message is
// ever in flight, so each inbox is a channel with room for one: the sender
// never waits for its successor to be scheduled, and a ring of one (p=1) can
// send to itself.
func runRing(_ string, p map[string]int) outcome {
	t, np := p["t"], p["p"]
	if np < 1 {
		usage("ring needs p >= 1")
	}
	start := time.Now()
	links := make([]chan int, np)
	for j := range links {
		links[j] = make(chan int, 1)
	}
	report := make(chan int, 1)
	for j := 0; j < np; j++ {
		go ringNode(j, links[j], links[(j+1)%np], report)
	}
	links[0] <- t
	idx := <-report
	wall := time.Since(start)
	if want := t % np; idx != want {
		fail("ring: process %d got 0, want %d", idx, want)
	}
	return outcome{wall: wall}
}
