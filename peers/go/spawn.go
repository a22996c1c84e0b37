package main

import "time"

func init() { register("spawn", nil, []string{"k"}, runSpawn) }

// spawn: main starts K short-lived goroutines one after another; each sends
// "done" to main and ends; main then receives the K replies. The reply
// channel holds all K (struct{} elements take no buffer space), so each
// goroutine ends right after its send, as a process would.
func runSpawn(_ string, p map[string]int) outcome {
	k := p["k"]
	start := time.Now()
	done := make(chan struct{}, k)
	for i := 0; i < k; i++ {
		go func() { done <- struct{}{} }()
	}
	got := 0
	for got < k {
		<-done
		got++
	}
	wall := time.Since(start)
	if got != k {
		fail("spawn: %d replies, want %d", got, k)
	}
	return outcome{wall: wall}
}
