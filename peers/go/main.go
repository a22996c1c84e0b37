// Command mote-peer-go is the Go peer of the mote-bench workloads
// (see docs/workloads.md for the contract every implementation follows).
//
//	mote-peer-go W V k=v ...
//
// W is the workload, V its variant ("-" when it has none), and every one of
// the workload's parameters is given as k=v: the sizes live in the harness's
// catalog (`mote-bench list`), which passes them all. Exactly one RESULT line
// goes to stdout; everything else goes to stderr. A wrong answer exits with
// status 1, a usage error (unknown workload, variant or param, or a missing
// param) with status 2. Options follow the params: "threads=N" (every
// workload: GOMAXPROCS) and a workload's own (pingpong's "pairs=P", call's
// "callers=K"); the RESULT line prints them after the params, in the order
// given.
//
// Each workload is one file that registers itself in an init function.
//
// Standard library only; written to build with Go 1.19 or newer (Debian 12
// ships 1.19), so no range-over-int and no min/max builtins.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// outcome is what a workload reports back: its own measured time plus any
// extra figures (already formatted as key=value) that follow wall_ms.
type outcome struct {
	wall   time.Duration
	extras []string
}

type workload struct {
	variants []string // nil: the workload has no variant ("-")
	params   []string // in the contract's table order
	options  []string // optional params beside "threads", absent from p unless given
	run      func(variant string, p map[string]int) outcome
}

// workloads is filled by the workload files' init functions.
var workloads = map[string]workload{}

// register adds a workload: its variants (nil when it has none), its params
// in the order the RESULT line prints them, and its run function.
func register(name string, variants []string, params []string, run func(string, map[string]int) outcome) {
	workloads[name] = workload{variants, params, nil, run}
}

// takesOptions declares the optional params of a registered workload (pingpong's
// "pairs"). Every workload also takes "threads", which sets GOMAXPROCS.
func takesOptions(name string, options ...string) {
	w := workloads[name]
	w.options = options
	workloads[name] = w
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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

// share is part k's share of total split into parts: an even share each, the
// remainder to the first parts.
func share(total, parts, k int) int {
	s := total / parts
	if k < total%parts {
		s++
	}
	return s
}

// collect adds up n reports from report.
func collect(report <-chan tally, n int) tally {
	t := tally{}
	for k := 0; k < n; k++ {
		one := <-report
		t.trips += one.trips
		t.bad += one.bad
	}
	return t
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
	var given []string // the options given, in order, for the RESULT line
	for _, kv := range args[2:] {
		eq := strings.IndexByte(kv, '=')
		if eq <= 0 {
			usage("param %q is not k=v", kv)
		}
		k, v := kv[:eq], kv[eq+1:]
		option := k == "threads" || contains(w.options, k)
		if !option && !contains(w.params, k) {
			usage("unknown param %q for %s (params: %s; options: %s)", k, name,
				strings.Join(w.params, ", "), strings.Join(append(w.options, "threads"), ", "))
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || (option && n == 0) {
			usage("param %s=%q is not a non-negative integer (an option's is positive)", k, v)
		}
		if option {
			given = append(given, k)
		}
		p[k] = n
	}
	if t, ok := p["threads"]; ok {
		// The option every workload takes: how many threads run goroutines at once.
		runtime.GOMAXPROCS(t)
	}
	for _, k := range w.params {
		if _, given := p[k]; !given {
			usage("%s needs every param (%s): %s is missing", name, strings.Join(w.params, ", "), k)
		}
	}

	out := w.run(variant, p)

	var b strings.Builder
	fmt.Fprintf(&b, "RESULT bench=%s impl=go variant=%s", name, variant)
	for _, k := range append(w.params, given...) {
		fmt.Fprintf(&b, " %s=%d", k, p[k])
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

// countFactors is the contract's prime factor count (with multiplicity). The
// step where d does not divide n has its own loop, the shape the Rust programs
// use (it keeps their compiler from serialising the divisions); the same
// divisions as the contract's single loop. Below 2^31 (every workers item) it
// runs on uint32, as the Rust programs do: d stays at most 46,341, so d*d fits.
// Measured with 1..=50,000 serially (ms, medians, Go 1.19 and 1.26 alike): this
// 6.5-6.9, the int64 loop alone 7.3-7.6, a uint64 loop 7.5-7.6 (Go does not
// gain from unsigned 64-bit division here).
func countFactors(n int64) int64 {
	if n >= 0 && n < 1<<31 {
		return int64(trialDivision(uint32(n)))
	}
	return trialDivision(n)
}

// trialDivision is countFactors' loop on one integer type (int64, or uint32
// below 2^31), compiled once per type.
func trialDivision[T uint32 | int64](n T) T {
	c := T(0)
	d := T(2)
	for n > 1 {
		if d*d > n {
			return c + 1
		}
		for n%d != 0 {
			d++
			if d*d > n {
				return c + 1
			}
		}
		n /= d
		c++
	}
	return c
}
