package main

import "time"

func init() { register("skynet", nil, []string{"l"}, runSkynet) }

// skynet is one tree node covering leaves [off, off+size): a leaf replies off,
// an inner node spawns 10 children, sums their replies and replies the sum.
// Each node's inbox holds its 10 replies, so children end as soon as they
// have replied.
func skynet(off, size int, parent chan<- int) {
	if size == 1 {
		parent <- off
		return
	}
	inbox := make(chan int, 10)
	sub := size / 10
	for i := 0; i < 10; i++ {
		go skynet(off+i*sub, sub, inbox)
	}
	sum := 0
	for i := 0; i < 10; i++ {
		sum += <-inbox
	}
	parent <- sum
}

func runSkynet(_ string, p map[string]int) outcome {
	l := p["l"]
	x := l
	for x >= 10 && x%10 == 0 {
		x /= 10
	}
	if x != 1 {
		usage("skynet: l=%d is not a power of 10", l)
	}
	start := time.Now()
	root := make(chan int, 1)
	go skynet(0, l, root)
	sum := <-root
	wall := time.Since(start)
	if want := l * (l - 1) / 2; sum != want {
		fail("skynet: sum %d, want %d", sum, want)
	}
	return outcome{wall: wall}
}
