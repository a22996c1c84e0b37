// Command mote-peer-go is the Go peer of the mote-bench workloads
// (see docs/workloads.md for the contract every implementation follows).
//
//	mote-peer-go W V k=v ...
//
// W is the workload, V its variant ("-" when it has none); params left out
// take the contract's full-size defaults. Exactly one RESULT line goes to
// stdout; everything else goes to stderr. A wrong answer exits with status 1,
// a usage error (unknown workload, variant or param) with status 2.
//
// Standard library only; written to build with Go 1.19 or newer (Debian 12
// ships 1.19), so no range-over-int and no min/max builtins.
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// param is one workload parameter with its full-size default.
type param struct {
	name string
	def  int
}

// outcome is what a workload reports back: its own measured time plus any
// extra figures (already formatted as key=value) that follow wall_ms.
type outcome struct {
	wall   time.Duration
	extras []string
}

type workload struct {
	variants []string // nil: the workload has no variant ("-")
	params   []param  // in the contract's table order
	run      func(variant string, p map[string]int) outcome
}

var workloads = map[string]workload{
	"chain":    {[]string{"int", "list20"}, []param{{"m", 10000}, {"n", 10000}}, runChain},
	"million":  {nil, []param{{"k", 1000000}}, runMillion},
	"spawn":    {nil, []param{{"k", 1000000}}, runSpawn},
	"pingpong": {nil, []param{{"r", 1000000}}, runPingpong},
	"ring":     {nil, []param{{"t", 10000000}, {"p", 503}}, runRing},
	"skynet":   {nil, []param{{"l", 1000000}}, runSkynet},
	"fanin":    {nil, []param{{"s", 100}, {"n", 10000000}}, runFanin},
	"call":     {nil, []param{{"r", 1000000}}, runCall},
	"parsum":   {[]string{"serial", "spawn", "pool"}, []param{{"r", 100000}, {"reps", 100}}, runParsum},
	"copy":     {[]string{"seq", "par"}, []param{{"n", 1000000}, {"r", 5}}, runCopy},
	"workers":  {[]string{"serial", "master_slave", "push", "steal"}, []param{{"w", 2}, {"n", 50000}}, runWorkers},
}

// usage reports a usage error and exits with status 2.
func usage(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "mote-peer-go: "+format+"\n", args...)
	fmt.Fprintln(os.Stderr, "usage: mote-peer-go WORKLOAD VARIANT|- [k=v ...]")
	os.Exit(2)
}

// fail reports a wrong answer and exits with status 1.
func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "ERROR "+format+"\n", args...)
	os.Exit(1)
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Nanoseconds())/1e6, 'f', 3, 64)
}

func main() {
	args := os.Args[1:]
	if len(args) < 2 {
		usage("need a workload and a variant")
	}
	name, variant := args[0], args[1]
	w, ok := workloads[name]
	if !ok {
		usage("unknown workload %q", name)
	}
	if w.variants == nil {
		if variant != "-" {
			usage("workload %s has no variant; pass -, not %q", name, variant)
		}
	} else {
		found := false
		for _, v := range w.variants {
			found = found || v == variant
		}
		if !found {
			usage("unknown variant %q for %s (want one of %s)", variant, name, strings.Join(w.variants, ", "))
		}
	}

	p := make(map[string]int, len(w.params))
	for _, pr := range w.params {
		p[pr.name] = pr.def
	}
	for _, kv := range args[2:] {
		eq := strings.IndexByte(kv, '=')
		if eq <= 0 {
			usage("param %q is not k=v", kv)
		}
		k, v := kv[:eq], kv[eq+1:]
		if _, known := p[k]; !known {
			usage("unknown param %q for %s", k, name)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			usage("param %s=%q is not a non-negative integer", k, v)
		}
		p[k] = n
	}

	out := w.run(variant, p)

	var b strings.Builder
	fmt.Fprintf(&b, "RESULT bench=%s impl=go variant=%s", name, variant)
	for _, pr := range w.params {
		fmt.Fprintf(&b, " %s=%d", pr.name, p[pr.name])
	}
	fmt.Fprintf(&b, " wall_ms=%s", ms(out.wall))
	for _, e := range out.extras {
		b.WriteString(" " + e)
	}
	fmt.Println(b.String())
}

// rng is the contract's xorshift64* generator.
type rng struct{ s uint64 }

func newRng(seed uint64) *rng { return &rng{seed} }

func (r *rng) next() uint64 {
	r.s ^= r.s >> 12
	r.s ^= r.s << 25
	r.s ^= r.s >> 27
	return r.s * 0x2545F4914F6CDD1D
}

// uniform returns a value in lo..=hi.
func (r *rng) uniform(lo, hi int64) int64 {
	return lo + int64((r.next()>>33)%uint64(hi-lo+1))
}

// randomInts is the shared input of parsum and copy: n values uniform in
// 1..=1000 drawn from xorshift64* seeded with 42.
func randomInts(n int) []int64 {
	r := newRng(42)
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = r.uniform(1, 1000)
	}
	return xs
}

// countFactors is the contract's prime factor count (with multiplicity).
func countFactors(n int64) int64 {
	c := int64(0)
	d := int64(2)
	for n > 1 {
		if d*d > n {
			c++
			break
		}
		if n%d == 0 {
			n /= d
			c++
		} else {
			d++
		}
	}
	return c
}
