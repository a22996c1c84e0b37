package main

import "time"

func init() {
	register("workers", []string{"serial", "master_slave", "push", "steal"}, []string{"w", "n"}, runWorkers)
}

// pushBuf is the capacity of each pushed-to worker's inbox, standing in for
// its mailbox: the master can run well ahead of a busy worker.
const pushBuf = 256

// workers: the sum of countFactors(i) for i in 1..=N.
//
//	serial:       one loop in main.
//	master_slave: the master starts one goroutine per item (go is already
//	              asynchronous); each replies its count.
//	push:         W workers started before timing, each with its own inbox;
//	              the master pushes items round-robin, workers reply counts.
//	steal:        W workers started before timing take the next item from
//	              the master when idle. In Go that request is a receive on one
//	              shared unbuffered channel: the master's send completes only
//	              when some worker is idle and asks.
//
// All variants are unbatched: one message per item. The reply channel holds
// all N replies (the master's mailbox), so no worker ever waits to reply.
func runWorkers(variant string, p map[string]int) outcome {
	w, n := p["w"], p["n"]
	if w < 1 {
		usage("workers needs w >= 1")
	}
	want := int64(0)
	for i := 1; i <= n; i++ {
		want += countFactors(int64(i))
	}

	var got int64
	var wall time.Duration
	switch variant {
	case "serial":
		start := time.Now()
		for i := 1; i <= n; i++ {
			got += countFactors(int64(i))
		}
		wall = time.Since(start)

	case "master_slave":
		start := time.Now()
		replies := make(chan int64, n)
		for i := 1; i <= n; i++ {
			go func(i int64) { replies <- countFactors(i) }(int64(i))
		}
		for i := 0; i < n; i++ {
			got += <-replies
		}
		wall = time.Since(start)

	case "push":
		replies := make(chan int64, n)
		inboxes := make([]chan int64, w)
		for j := range inboxes {
			in := make(chan int64, pushBuf)
			inboxes[j] = in
			go func() {
				for item := range in {
					replies <- countFactors(item)
				}
			}()
		}
		start := time.Now()
		for i := 1; i <= n; i++ {
			inboxes[(i-1)%w] <- int64(i)
		}
		for i := 0; i < n; i++ {
			got += <-replies
		}
		wall = time.Since(start)
		for _, in := range inboxes {
			close(in)
		}

	case "steal":
		replies := make(chan int64, n)
		items := make(chan int64)
		for j := 0; j < w; j++ {
			go func() {
				for item := range items {
					replies <- countFactors(item)
				}
			}()
		}
		start := time.Now()
		for i := 1; i <= n; i++ {
			items <- int64(i)
		}
		for i := 0; i < n; i++ {
			got += <-replies
		}
		wall = time.Since(start)
		close(items)
	}

	if got != want {
		fail("workers %s: sum %d, want %d", variant, got, want)
	}
	return outcome{wall: wall}
}
