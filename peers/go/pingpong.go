package main

import "time"

func init() {
	register("pingpong", nil, []string{"r"}, runPingpong)
	takesOptions("pingpong", "pairs")
}

type tally struct{ trips, bad int }

// pingpong: goroutines A and B (not main). A sends i to B, B answers i,
// R round trips, then A reports to main. Unbuffered channels: each message is
// a rendezvous, which is what a strict ping-pong is. With the option pairs=P,
// P such pairs share the R round trips (an even share each, the remainder to
// the first pairs) and main adds their reports up.
func runPingpong(_ string, p map[string]int) outcome {
	r := p["r"]
	pairs, ok := p["pairs"]
	if !ok {
		pairs = 1
	}
	if pairs > r {
		usage("pingpong: pairs=%d is more than the round trips, r=%d", pairs, r)
	}
	start := time.Now()
	report := make(chan tally, pairs)
	for k := 0; k < pairs; k++ {
		trips := share(r, pairs, k)
		ping, pong := make(chan int), make(chan int)
		go func() { // B
			for v := range ping {
				pong <- v
			}
		}()
		go func() { // A
			t := tally{}
			for i := 0; i < trips; i++ {
				ping <- i
				if <-pong != i {
					t.bad++
				}
				t.trips++
			}
			close(ping)
			report <- t
		}()
	}
	t := collect(report, pairs)
	wall := time.Since(start)
	if t.trips != r || t.bad != 0 {
		fail("pingpong: %d trips with %d wrong replies, want %d trips", t.trips, t.bad, r)
	}
	return outcome{wall: wall}
}
