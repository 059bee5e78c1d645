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
