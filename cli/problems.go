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
// appears and once when it clears, while the snapshots go on.
type problemReporter struct {
	w    io.Writer
	told map[string]string // spec -> the problem told
}

func newProblemReporter(w io.Writer) *problemReporter {
	if w == nil {
		w = os.Stderr
	}
	return &problemReporter{w: w, told: map[string]string{}}
}

func (r *problemReporter) report(s *state.Snapshot) {
	now := map[string]string{}
	for _, p := range s.TelemetryProblems {
		now[p.Spec] = p.Problem
		if r.told[p.Spec] != p.Problem {
			fmt.Fprintf(r.w, "proftop: telemetry %s: %s\n", strconv.Quote(p.Spec), unquoted(p.Problem))
		}
	}
	for spec := range r.told {
		if _, ok := now[spec]; !ok {
			fmt.Fprintf(r.w, "proftop: telemetry %s: can be read again\n", strconv.Quote(spec))
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
