package cli

import (
	"strings"
	"testing"

	"github.com/proftop/proftop/state"
)

// Standard error names a spec by what the user asked it as, once when its
// problem appears and once when it clears.
func TestProblemsNameTheKindOfSpec(t *testing.T) {
	r := func(sb *strings.Builder) *problemReporter {
		return newProblemReporter(sb, []string{"jmx:a:type=B:C", "jfr:both#x"}, []string{"bogus", "jfr:both#x"})
	}
	cases := []struct {
		name     string
		problems [][]state.TelemetryProblem // one snapshot each
		want     string
	}{
		{"a series", [][]state.TelemetryProblem{{{Spec: "jmx:a:type=B:C", Problem: "no MBean named a:type=B"}}},
			"proftop: telemetry \"jmx:a:type=B:C\": no MBean named a:type=B\n"},
		{"a probe, then cleared", [][]state.TelemetryProblem{{{Spec: "bogus", Problem: "unknown kind of probe: jfr:EVENT[#FIELD]"}}, nil},
			"proftop: probe \"bogus\": unknown kind of probe: jfr:EVENT[#FIELD]\nproftop: probe \"bogus\": can be read again\n"},
		{"asked for both ways", [][]state.TelemetryProblem{{{Spec: "jfr:both#x", Problem: "no event both is registered"}}},
			"proftop: telemetry \"jfr:both#x\": no event both is registered\n"},
		{"told once while it stays", [][]state.TelemetryProblem{{{Spec: "bogus", Problem: "p"}}, {{Spec: "bogus", Problem: "p"}}},
			"proftop: probe \"bogus\": p\n"},
	}
	for _, c := range cases {
		var sb strings.Builder
		rep := r(&sb)
		for _, ps := range c.problems {
			rep.report(&state.Snapshot{TelemetryProblems: ps})
		}
		if sb.String() != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, sb.String(), c.want)
		}
	}
}
