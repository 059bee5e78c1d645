package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/proftop/proftop/state"
)

// problemReporter tells batch mode's standard error about the problems
// with the series and probes the user asked for (a bad spec, an MBean that
// does not exist, an attribute that is not a number), each once when it
// appears and once when it clears, while the snapshots go on. A spec is
// named by what it was asked as: a probe (--probe) or telemetry.
type problemReporter struct {
	w      io.Writer
	probes map[string]bool   // specs asked for as probes only
	told   map[string]string // spec -> the problem told
}

func newProblemReporter(w io.Writer, series, probes []string) *problemReporter {
	if w == nil {
		w = os.Stderr
	}
	r := &problemReporter{w: w, probes: map[string]bool{}, told: map[string]string{}}
	for _, p := range probes {
		r.probes[p] = true
	}
	for _, s := range series {
		delete(r.probes, s) // asked for both ways: the problem is the spec's
	}
	return r
}

// kind is what the user asked for a spec as.
func (r *problemReporter) kind(spec string) string {
	if r.probes[spec] {
		return "probe"
	}
	return "telemetry"
}

func (r *problemReporter) report(s *state.Snapshot) {
	now := map[string]string{}
	for _, p := range s.TelemetryProblems {
		now[p.Spec] = p.Problem
		if r.told[p.Spec] != p.Problem {
			fmt.Fprintf(r.w, "proftop: %s %s: %s\n", r.kind(p.Spec), strconv.Quote(p.Spec), unquoted(p.Problem))
		}
	}
	for spec := range r.told {
		if _, ok := now[spec]; !ok {
			fmt.Fprintf(r.w, "proftop: %s %s: can be read again\n", r.kind(spec), strconv.Quote(spec))
		}
	}
	r.told = now
}

// unquoted escapes what a peer wrote as strconv.Quote does (control
// characters, bidirectional overrides), without the quotes.
func unquoted(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
