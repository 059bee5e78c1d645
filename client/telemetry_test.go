package client

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
)

// The series and probes the user asks for go to the agent before
// monitoring starts; whatever is refused, by the agent or here, comes
// back as telemetryProblem events ahead of the stream, and the stream
// flows all the same.
func TestChosenTelemetryRefusedComesBackAsProblems(t *testing.T) {
	long := "jmx:a:" + strings.Repeat("x", 600)
	for _, tc := range []struct {
		name   string
		legacy bool
		want   string
	}{
		{"agent refuses", false, "the simulated profiler has no MBeans"},
		{"profiler predates the command", true, "does not know chooseTelemetry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, port := startSim(t, simulator.ServerConfig{Legacy: tc.legacy, Seed: 3}, "")
			s := NewSession(Config{Host: "127.0.0.1", Port: port, Telemetry: []string{"jmx:java.lang:type=Threading:ThreadCount", long, "jmx:java.lang:type=Threading:ThreadCount"},
				Probes: []string{"jfr:bank.Transfer#state"}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			problems := map[string]string{}
			done := make(chan struct{})
			go func() {
				defer close(done)
				for b := range s.Batches() {
					for _, ev := range b.Events() {
						if p, ok := ev.(*decode.TelemetryProblem); ok {
							problems[p.Spec] = p.Problem
						}
						if _, ok := ev.(*decode.TelemetryValue); ok {
							cancel() // the stream flows
						}
					}
					s.Recycle(b)
				}
			}()
			go s.Run(ctx)
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("no telemetry values within 30s")
			}
			if len(problems) != 3 || !strings.Contains(problems["jfr:bank.Transfer#state"], tc.want) ||
				!strings.Contains(problems["jmx:java.lang:type=Threading:ThreadCount"], tc.want) || !strings.Contains(problems[long], "longer than the 512") {
				t.Fatalf("%q", problems)
			}
		})
	}
}
