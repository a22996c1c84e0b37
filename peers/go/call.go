package main

import "time"

func init() {
	register("call", nil, []string{"r"}, runCall)
	takesOptions("call", "callers")
}

// callReq is one synchronous request: the argument and the channel the
// server answers on.
type callReq struct {
	n     int
	reply chan<- int
}

// call: one server goroutine; a client goroutine (not main) makes R
// request/reply calls, request i and reply i+1, then reports to main. The
// requests channel is unbuffered (a call is synchronous anyway); each client
// owns one reply channel with room for one answer and reuses it for every
// call, as Go code does when one caller waits on one answer at a time.
//
// With the option callers=K (1 <= K <= R), K client goroutines call the one
// server at once, sharing the R calls (an even share each, the remainder to
// the first clients), and main adds their reports up. A requests channel with
// room for every client ran no faster, at one client or at 10,000 (five
// interleaved runs of each on two cores: 1.18 s against 1.24 s at 10,000).
func runCall(_ string, p map[string]int) outcome {
	r := p["r"]
	callers, ok := p["callers"]
	if !ok {
		callers = 1
	}
	if callers < 1 || callers > r {
		usage("call: callers=%d must be at least 1 and at most the calls, r=%d", callers, r)
	}
	start := time.Now()
	reqs := make(chan callReq)
	go func() { // the server
		for q := range reqs {
			q.reply <- q.n + 1
		}
	}()
	report := make(chan tally, callers)
	for k := 0; k < callers; k++ {
		calls := share(r, callers, k)
		go func() { // a client
			reply := make(chan int, 1)
			t := tally{}
			for i := 0; i < calls; i++ {
				reqs <- callReq{i, reply}
				if <-reply != i+1 {
					t.bad++
				}
				t.trips++
			}
			report <- t
		}()
	}
	t := collect(report, callers)
	close(reqs)
	wall := time.Since(start)
	if t.trips != r || t.bad != 0 {
		fail("call: %d calls with %d wrong replies, want %d calls", t.trips, t.bad, r)
	}
	return outcome{wall: wall}
}
