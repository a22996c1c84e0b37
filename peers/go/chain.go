package main

import "time"

func init() { register("chain", []string{"int", "list20"}, []string{"m", "n"}, runChain) }

// relayBuf is the capacity of each relay's inbox. An Erlang mailbox is
// unbounded; a buffered channel of modest size plays that part here: it lets
// a relay hand on a burst of messages without a goroutine switch per message,
// while keeping 10,000 relays' buffers small.
const relayBuf = 64

// relay forwards every message from its inbox to the next process.
func relay[T any](in <-chan T, next chan<- T) {
	for m := range in {
		next <- m
	}
	close(next)
}

// buildChain spawns m relays ending in last and returns the head's inbox.
func buildChain[T any](m int, last chan T) chan T {
	next := last
	for i := 0; i < m; i++ {
		in := make(chan T, relayBuf)
		go relay[T](in, next)
		next = in
	}
	return next
}

// chain: M relays; main sends N messages to the head and receives N from the
// last relay. Main's own inbox holds all N, as a mailbox would, so main can
// send everything before it starts receiving without stalling the chain.
func runChain(variant string, p map[string]int) outcome {
	m, n := p["m"], p["n"]
	switch variant {
	case "int":
		start := time.Now()
		inbox := make(chan int, n)
		head := buildChain[int](m, inbox)
		for i := 0; i < n; i++ {
			head <- i
		}
		got, sum := 0, 0
		for ; got < n; got++ {
			sum += <-inbox
		}
		wall := time.Since(start)
		close(head)
		if want := n * (n - 1) / 2; sum != want {
			fail("chain int: sum of %d messages is %d, want %d", got, sum, want)
		}
		return outcome{wall: wall}
	default: // list20
		// The list of 1..20 is built once; every message is the same slice.
		list := make([]int64, 20)
		for i := range list {
			list[i] = int64(i + 1)
		}
		start := time.Now()
		inbox := make(chan []int64, n)
		head := buildChain[[]int64](m, inbox)
		for i := 0; i < n; i++ {
			head <- list
		}
		bad := 0
		for got := 0; got < n; got++ {
			s := int64(0)
			for _, x := range <-inbox {
				s += x
			}
			if s != 210 {
				bad++
			}
		}
		wall := time.Since(start)
		close(head)
		if bad != 0 {
			fail("chain list20: %d of %d lists do not sum to 210", bad, n)
		}
		return outcome{wall: wall}
	}
}
