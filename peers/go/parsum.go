package main

import "time"

func init() {
	register("parsum", []string{"serial", "spawn", "pool"}, []string{"r", "reps"}, runParsum)
}

const chunkSize = 100

func sumInts(xs []int64) int64 {
	s := int64(0)
	for _, x := range xs {
		s += x
	}
	return s
}

// chunks cuts xs into sub-slices of chunkSize (the last may be shorter);
// they share xs's storage, nothing is copied.
func chunks(xs []int64) [][]int64 {
	var cs [][]int64
	for lo := 0; lo < len(xs); lo += chunkSize {
		hi := lo + chunkSize
		if hi > len(xs) {
			hi = len(xs)
		}
		cs = append(cs, xs[lo:hi])
	}
	return cs
}

// parsum: sum R ints in chunks of 100, REPS times.
//
//	serial: one loop in main.
//	spawn:  per rep, one goroutine per chunk sends its partial sum to main.
//	pool:   one goroutine per chunk started before timing, each holding its
//	        chunk; per rep main sends each a "go" and each replies its sum.
func runParsum(variant string, p map[string]int) outcome {
	r, reps := p["r"], p["reps"]
	data := randomInts(r)
	want := sumInts(data)
	cs := chunks(data)
	sums := make([]int64, reps)
	var wall time.Duration

	switch variant {
	case "serial":
		start := time.Now()
		for rep := 0; rep < reps; rep++ {
			s := int64(0)
			for _, x := range data {
				s += x
			}
			sums[rep] = s
		}
		wall = time.Since(start)

	case "spawn":
		start := time.Now()
		partials := make(chan int64, len(cs))
		for rep := 0; rep < reps; rep++ {
			for _, c := range cs {
				go func(c []int64) { partials <- sumInts(c) }(c)
			}
			s := int64(0)
			for range cs {
				s += <-partials
			}
			sums[rep] = s
		}
		wall = time.Since(start)

	case "pool":
		partials := make(chan int64, len(cs))
		gos := make([]chan struct{}, len(cs))
		for i, c := range cs {
			in := make(chan struct{}, 1)
			gos[i] = in
			go func(c []int64) {
				for range in {
					partials <- sumInts(c)
				}
			}(c)
		}
		start := time.Now()
		for rep := 0; rep < reps; rep++ {
			for _, in := range gos {
				in <- struct{}{}
			}
			s := int64(0)
			for range gos {
				s += <-partials
			}
			sums[rep] = s
		}
		wall = time.Since(start)
		for _, in := range gos {
			close(in)
		}
	}

	for rep, s := range sums {
		if s != want {
			fail("parsum %s: rep %d sum %d, want %d", variant, rep, s, want)
		}
	}
	return outcome{wall: wall}
}
