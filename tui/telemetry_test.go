package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/state"
)

// A series' drill-in keeps the whole of a long name (an MBean's, as a
// pattern gives it): the heading wraps at the width instead of losing the
// name's end, which is what tells the matches apart; no line is wider.
func TestTelemetryDrillInWrapsLongNames(t *testing.T) {
	at := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	name := `currentThreadsBusy (Catalina:type=ThreadPool,name="http-nio-127.0.0.1-auto-1-37393")`
	s := &state.Snapshot{Telemetry: []state.Series{{Name: name, Unit: "plain", Divisor: 1,
		Points: []state.Point{{At: at, Value: 3}, {At: at.Add(time.Second), Value: 5}}, Min: 3, Max: 5}}}
	st := NewStyles("dark")
	for _, w := range []int{40, 78, 198} {
		lines := telemetryDetail(telemetryEntries(s)[0], w, 22, &st, false, 5*time.Minute)
		var heading strings.Builder
		for _, l := range lines {
			plain := ansi.Strip(l)
			if n := ansi.StringWidth(plain); n > w {
				t.Fatalf("width %d: a line of %d cells: %q", w, n, plain)
			}
			if strings.HasPrefix(strings.TrimSpace(plain), "unit ") {
				break
			}
			heading.WriteString(plain)
		}
		if got := heading.String(); got != "Series "+name {
			t.Errorf("width %d: the heading reads %q", w, got)
		}
	}
}

// A series' sparkline spans the window's least to most, so that a slow
// counter's growth shows; a percentage keeps 0 to 100, and a series that
// has not moved keeps its level from 0.
func TestTelemetryTrendScale(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []float64
		unit   string
		width  int
		ascii  bool
		want   string
	}{
		{"a slowly growing balance", []float64{40400, 40900, 41500, 42000, 42600, 43100, 43700, 44300}, "plain", 8, false, "▁▂▃▄▅▆▇█"},
		{"bytes alike", []float64{10 << 20, 11 << 20, 12 << 20}, "bytes", 3, false, "▁▅█"},
		{"ASCII", []float64{100, 150, 200}, "plain", 3, true, "_+@"},
		{"a percentage from 0 to 100", []float64{50, 55, 60}, "percent", 3, false, "▅▅▅"},
		{"a level that has not moved", []float64{47, 47, 47}, "plain", 3, false, "███"},
		{"nothing, not moving", []float64{0, 0}, "plain", 2, false, "  "},
		{"narrower than the window: its newest values, on the window's scale", []float64{1, 2, 3, 4}, "plain", 3, false, "▃▆█"},
	} {
		if got := trend(tc.values, tc.unit, tc.width, tc.ascii); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
