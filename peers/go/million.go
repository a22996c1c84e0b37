package main

import "time"

func init() { register("million", nil, []string{"k"}, runMillion) }

// million: spawn K goroutines, each blocked on its own inbox; then main sends
// each one message, each replies "done" and ends; main receives K replies.
//
// Each inbox has room for one message (a mailbox), so main's send never waits
// for a goroutine the scheduler has not run yet. The reply channel has room
// for all K replies (zero bytes of buffer, the element is struct{}), so a
// goroutine that has replied can end at once, as a process would.
func runMillion(_ string, p map[string]int) outcome {
	k := p["k"]
	start := time.Now()
	done := make(chan struct{}, k)
	inboxes := make([]chan struct{}, k)
	for i := range inboxes {
		in := make(chan struct{}, 1)
		inboxes[i] = in
		go func() {
			<-in
			done <- struct{}{}
		}()
	}
	spawned := time.Since(start)
	for _, in := range inboxes {
		in <- struct{}{}
	}
	got := 0
	for got < k {
		<-done
		got++
	}
	wall := time.Since(start)
	if got != k {
		fail("million: %d replies, want %d", got, k)
	}
	return outcome{wall: wall, extras: []string{"spawn_ms=" + ms(spawned)}}
}
