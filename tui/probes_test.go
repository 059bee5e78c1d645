package tui

import (
	"strconv"
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
	if screen := firstScreen(agg, streamingStatus(), 120, 30); !strings.Contains(screen, "Threads · 1 · by") || !strings.Contains(screen, "· 9 of proftop's and JFR's not listed") {
		t.Fatalf("the threads' title:\n%s", screen)
	}
}

// On a narrow terminal (60×20) the Probes pane's advice wraps to the
// pane's width, whole words (it was cut mid-word at about 75 columns), and
// the tab bar shows whole tabs: its last read a bare "8".
func TestProbesAdviceAndTabsOnANarrowTerminal(t *testing.T) {
	agg := state.New(state.Options{})
	st := streamingStatus()
	st.Probing = true
	m := New(Config{Refresh: time.Second, Theme: ThemeDark}, &fakeSource{st: st}, agg)
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	deliver(m, agg)
	press(m, "8")
	deliver(m, agg)
	screen := ansi.Strip(m.render())
	var advice []string
	for _, l := range strings.Split(screen, "\n") {
		advice = append(advice, strings.Trim(l, "│ "))
	}
	joined := strings.Join(advice, " ")
	if !strings.Contains(joined, "--probe jfr:EVENT#FIELD records the application's JFR duration events by the value of FIELD: how many,") ||
		!strings.Contains(joined, "and where they were committed.") {
		t.Fatalf("the advice is not whole:\n%s", screen)
	}
	bar := ansi.Strip(m.tabBar())
	if !strings.Contains(bar, "8 Probes") || widthOf(bar) > 60 {
		t.Fatalf("the tab bar at 60 columns: %q", bar)
	}
	for _, f := range strings.Fields(bar) {
		if n, err := strconv.Atoi(f); err == nil && !strings.Contains(bar, f+" "+paneShortNames[n-1]) {
			t.Fatalf("tab %s is cut to its key: %q", f, bar)
		}
	}
}

// Whole tabs go, the farthest from the focused one: a tab is never cut.
func TestTabsAround(t *testing.T) {
	labels := []string{"1 Threads", "2 Methods", "3 Monitors", "4 GC", "5 Objects", "6 Coverage", "7 Telemetry", "8 Probes"}
	for _, tc := range []struct {
		focus, width int
		want         string
	}{
		{7, 60, "… 3 Monitors 4 GC 5 Objects 6 Coverage 7 Telemetry 8 Probes"},
		{0, 60, "1 Threads 2 Methods 3 Monitors 4 GC 5 Objects 6 Coverage …"},
		{3, 40, "… 3 Monitors 4 GC 5 Objects 6 Coverage …"},
		{7, 8, "8 Probes"},
	} {
		if got := tabsAround(labels, tc.focus, tc.width, "…"); got != tc.want {
			t.Errorf("focus %d, %d wide: %q, want %q", tc.focus, tc.width, got, tc.want)
		}
	}
}
