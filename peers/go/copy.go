package main

import "time"

func init() { register("copy", []string{"seq", "par"}, []string{"n", "r"}, runCopy) }

// uniq is an order-preserving dedup.
func uniq(xs []int64) []int64 {
	seen := make(map[int64]struct{})
	out := make([]int64, 0)
	for _, x := range xs {
		if _, dup := seen[x]; !dup {
			seen[x] = struct{}{}
			out = append(out, x)
		}
	}
	return out
}

// frequencies maps each value to its count.
func frequencies(xs []int64) map[int64]int {
	f := make(map[int64]int)
	for _, x := range xs {
		f[x]++
	}
	return f
}

// shuffle returns a Fisher-Yates shuffled copy of xs, driven by a fresh
// xorshift64* seeded with 7: for i from n-1 down to 1, swap i with
// j = uniform(0..=i).
func shuffle(xs []int64) []int64 {
	out := make([]int64, len(xs))
	copy(out, xs)
	r := newRng(7)
	for i := len(out) - 1; i > 0; i-- {
		j := r.uniform(0, int64(i))
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// copyFacts is what main checks about one rep's three results.
type copyFacts struct {
	uniq, freqTotal, shufLen int
	shufSum                  int64
}

func factsOf(u []int64, f map[int64]int, s []int64) copyFacts {
	total := 0
	for _, c := range f {
		total += c
	}
	return copyFacts{len(u), total, len(s), sumInts(s)}
}

// copy: R times, uniq + frequencies + shuffle of N ints built before timing.
//
//	seq: one after another in main.
//	par: three goroutines per rep, results back to main over channels. The
//	     goroutines read the same input slice: Go shares memory, nothing is
//	     copied (shuffle copies into its own output, as in seq).
func runCopy(variant string, p map[string]int) outcome {
	n, r := p["n"], p["r"]
	data := randomInts(n)
	facts := make([]copyFacts, r)
	var wall time.Duration

	if variant == "seq" {
		start := time.Now()
		for rep := 0; rep < r; rep++ {
			u := uniq(data)
			f := frequencies(data)
			s := shuffle(data)
			facts[rep] = factsOf(u, f, s)
		}
		wall = time.Since(start)
	} else {
		start := time.Now()
		for rep := 0; rep < r; rep++ {
			uc := make(chan []int64, 1)
			fc := make(chan map[int64]int, 1)
			sc := make(chan []int64, 1)
			go func() { uc <- uniq(data) }()
			go func() { fc <- frequencies(data) }()
			go func() { sc <- shuffle(data) }()
			facts[rep] = factsOf(<-uc, <-fc, <-sc)
		}
		wall = time.Since(start)
	}

	want := sumInts(data)
	for rep, f := range facts {
		if n >= 100000 && f.uniq != 1000 {
			fail("copy %s: rep %d uniq count %d, want 1000", variant, rep, f.uniq)
		}
		if f.freqTotal != n {
			fail("copy %s: rep %d frequencies sum to %d, want %d", variant, rep, f.freqTotal, n)
		}
		if f.shufLen != n || f.shufSum != want {
			fail("copy %s: rep %d shuffle has length %d sum %d, want %d and %d",
				variant, rep, f.shufLen, f.shufSum, n, want)
		}
	}
	return outcome{wall: wall}
}
