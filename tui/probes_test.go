package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/state"
)

// A probe the agent could not take says why in the Probes pane, not only
// among the telemetry's problems: the pane advised --probe to a user who
// had given it.
func TestProbesPaneSaysWhyAProbeFailed(t *testing.T) {
	agg := state.New(state.Options{})
	agg.Apply([]decode.Event{
		&decode.TelemetryProblem{Spec: "jfr:my.Event#x", Problem: "no event my.Event is registered in this JVM (yet)"},
		&decode.TelemetryProblem{Spec: "jmx:java.lang:type=Nope:Count", Problem: "no such MBean"},
	}, 1, decode.Clock{}, t0)
	st := streamingStatus()
	st.ProbeSpecs = []string{"jfr:my.Event#x"}
	m := New(Config{Refresh: time.Second, Theme: ThemeDark}, &fakeSource{st: st}, agg)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	deliver(m, agg)
	press(m, "8")
	deliver(m, agg)
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "⚠ jfr:my.Event#x: no event my.Event is registered") || strings.Contains(screen, "type=Nope") ||
		strings.Contains(screen, "--probe jfr:EVENT#FIELD records") {
		t.Fatalf("the probes pane:\n%s", screen)
	}
}

// The threads the pane does not list, the agent's own and JFR's, are
// counted in its title: the telemetry's "Live threads" and jstack count
// them, and the two numbers disagreed with nothing to say why.
func TestThreadsTitleCountsTheUnlisted(t *testing.T) {
	agg := state.New(state.Options{})
	agg.Apply([]decode.Event{
		&decode.ThreadStart{ThreadID: 1, ThreadName: "main", Time: decode.Ticks(t0.UnixNano())},
		&decode.AgentCost{Time: decode.Ticks(t0.UnixNano()), AgentThreads: 7, JFRThreads: 2, ProcessCPU: -1},
	}, 1, decode.Clock{}, t0)
	m := New(Config{Refresh: time.Second, Theme: ThemeDark}, &fakeSource{st: streamingStatus()}, agg)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	deliver(m, agg)
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "Threads · 1 · by") || !strings.Contains(screen, "· 9 of proftop's and JFR's not listed") {
		t.Fatalf("the threads' title:\n%s", screen)
	}
}
