package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/state"
)

func TestGrouped(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]int64{999: 999, 251_234: 251_000, 249_951: 250_000, 1_234_567: 1_230_000} {
		if got := roundTo3(n); got != want {
			t.Errorf("roundTo3(%d) = %d, want %d", n, got, want)
		}
	}
}

// What a full table leaves out is said where the table is shown: in the
// pane's title, in text snapshots and (state.NotTracked) in JSON.
func TestNotTrackedIsShown(t *testing.T) {
	agg := state.New(state.Options{MaxThreads: 3})
	var evs []decode.Event
	for id := int64(1); id <= 12_348; id++ {
		evs = append(evs, &decode.ThreadStart{ThreadID: id, ThreadName: fmt.Sprint("t", id), Time: 1})
	}
	agg.Apply(evs, 1, decode.Clock{}, t0)
	m := New(Config{Refresh: time.Second}, &fakeSource{st: streamingStatus()}, agg)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	deliver(m, agg)
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "Threads · 3 · ") || !strings.Contains(screen, " ▲ · 12,345 more threads not tracked ─") {
		t.Fatalf("not on the screen:\n%s", screen)
	}
	snap := agg.Snapshot(t0, state.Query{CallersOf: -1})
	if text := RenderText(snap, client.Status{}, 132, 20, false); !strings.Contains(text, "THREADS (3; 12,345 more threads not tracked)") {
		t.Fatalf("not in the text:\n%s", text)
	}
	if doc, _ := RenderJSON(snap, client.Status{}, 0); !strings.Contains(string(doc), `"notTracked":{"threads":12345,"methods":0,"monitors":0}`) {
		t.Fatalf("not in the JSON: %.300s", doc)
	}
	snap.NotTracked.Threads = 251_234 // beyond the exact count: an estimate, said as one
	if nt := notTracked(snap, paneThreads); nt != "about 251,000 more threads not tracked" {
		t.Fatal(nt)
	}
}

// The monitors' title says how many idle locks a full table let go, their
// figures since watching began with them, beside those it refused.
func TestForgottenMonitorsAreSaid(t *testing.T) {
	s := &state.Snapshot{}
	for _, tc := range []struct {
		refused, forgotten int64
		want               string
	}{
		{0, 0, ""},
		{0, 1, "1 idle lock forgotten (--max-monitors)"},
		{0, 24_500, "24,500 idle locks forgotten (--max-monitors)"},
		{3, 24_500, "3 more monitors not tracked · 24,500 idle locks forgotten (--max-monitors)"},
	} {
		s.NotTracked.Monitors, s.NotTracked.MonitorsForgotten = tc.refused, tc.forgotten
		if got := notTracked(s, paneMonitors); got != tc.want {
			t.Errorf("%d refused, %d forgotten: %q, want %q", tc.refused, tc.forgotten, got, tc.want)
		}
		if got := notTracked(s, paneThreads); got != "" {
			t.Errorf("the threads' title says %q", got)
		}
	}
}
