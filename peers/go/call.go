package main

import "time"

func init() { register("call", nil, []string{"r"}, runCall) }

// callReq is one synchronous request: the argument and the channel the
// server answers on.
type callReq struct {
	n     int
	reply chan<- int
}

// call: one server goroutine; a client goroutine (not main) makes R
// request/reply calls, request i and reply i+1, then reports to main. The
// requests channel is unbuffered (a call is synchronous anyway); the client
// owns one reply channel with room for one answer and reuses it for every
// call, as Go code does when one caller waits on one answer at a time.
func runCall(_ string, p map[string]int) outcome {
	r := p["r"]
	start := time.Now()
	reqs := make(chan callReq)
	go func() { // the server
		for q := range reqs {
			q.reply <- q.n + 1
		}
	}()
	report := make(chan tally, 1)
	go func() { // the client
		reply := make(chan int, 1)
		t := tally{}
		for i := 0; i < r; i++ {
			reqs <- callReq{i, reply}
			if <-reply != i+1 {
				t.bad++
			}
			t.trips++
		}
		close(reqs)
		report <- t
	}()
	t := <-report
	wall := time.Since(start)
	if t.trips != r || t.bad != 0 {
		fail("call: %d calls with %d wrong replies, want %d calls", t.trips, t.bad, r)
	}
	return outcome{wall: wall}
}
