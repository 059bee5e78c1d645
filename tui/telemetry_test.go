package tui

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/decode"
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

// A group's drill-in at 80 columns keeps each member's figures whole: a
// long name (an MBean's) has its lines, the figures theirs, and no line
// is wider than the pane; "max" is said with its value.
func TestTelemetryGroupDrillInKeepsTheFigures(t *testing.T) {
	at := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	var series []state.Series
	for _, pool := range []string{"'non-profiled nmethods'", "'profiled nmethods'"} {
		series = append(series, state.Series{Name: "Usage.used (java.lang:name=CodeHeap " + pool + ",type=MemoryPool)", Group: "Usage.used",
			Unit: "bytes", Divisor: 1, Points: []state.Point{{At: at, Value: 304 << 10}, {At: at.Add(time.Second), Value: 1940 << 10}}, Min: 304 << 10, Max: 1940 << 10})
	}
	st := NewStyles("dark")
	lines := telemetryDetail(telemetryEntries(&state.Snapshot{Telemetry: series})[0], 78, 40, &st, false, 5*time.Minute)
	figures := 0
	for _, l := range lines {
		plain := ansi.Strip(l)
		if n := ansi.StringWidth(plain); n > 78 {
			t.Fatalf("a line of %d cells: %q", n, plain)
		}
		if strings.Contains(plain, "last 1.89MiB  min 304KiB  max 1.89MiB") {
			figures++
		}
	}
	if figures != 2 {
		t.Fatalf("%d members' figures whole, want 2:\n%s", figures, ansi.Strip(strings.Join(lines, "\n")))
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

// The problems with what the user asked for, on the Telemetry pane: each
// whole, wrapped at 80 columns rather than cut, before the series.
func TestTelemetryProblemsGoldenScreens(t *testing.T) {
	agg := simulated(t, 200_000)
	problems := []decode.Event{
		&decode.TelemetryProblem{Spec: "jmx:bank:type=Account,name=main:Label", Problem: "Label of bank:type=Account,name=main is a String, not a number"},
		&decode.TelemetryProblem{Spec: "jfr:bank.Nope#x", Problem: "no event bank.Nope is registered in this JVM (yet): its class is not loaded, or the name is wrong"},
		&decode.TelemetryProblem{Spec: "bogus", Problem: "unknown kind of probe: jfr:EVENT[#FIELD]"},
	}
	agg.Apply(problems, 1, decode.Clock{}, t0)
	for _, tc := range []struct {
		name string
		w, h int
	}{
		{"telemetry-problems-80x24", 80, 24},
		{"telemetry-problems-200x60", 200, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(Config{Refresh: time.Second, Theme: ThemeDark}, &fakeSource{st: streamingStatus()}, agg)
			m.Update(tea.WindowSizeMsg{Width: tc.w, Height: tc.h})
			deliver(m, agg)
			press(m, "7")
			deliver(m, agg)
			screen := m.View().Content
			checkFrame(t, screen, tc.w, tc.h)
			golden(t, tc.name, screen)
		})
	}
}

// problemLines keeps every reason whole at any width, shows as many
// problems as its room holds, and says how many more there are.
func TestTelemetryProblemLines(t *testing.T) {
	st := NewStyles("dark")
	long := state.TelemetryProblem{Spec: "jmx:bank:type=Account,name=main:Label", Problem: "Label of bank:type=Account,name=main is a String, not a number"}
	short := state.TelemetryProblem{Spec: "bogus", Problem: "unknown kind of probe"}
	for _, tc := range []struct {
		name     string
		problems []state.TelemetryProblem
		w, room  int
		want     []string
	}{
		{"a short one on one line", []state.TelemetryProblem{short}, 78, 4,
			[]string{"⚠ bogus: unknown kind of probe"}},
		{"a long one wrapped, not cut", []state.TelemetryProblem{long}, 60, 4,
			[]string{"⚠ jmx:bank:type=Account,name=main:Label: Label of", "  bank:type=Account,name=main is a String, not a number"}},
		{"a spec wider than the pane: cut at its separators", []state.TelemetryProblem{long}, 30, 10,
			[]string{"⚠ jmx:bank:type=Account,", "  name=main:Label:", "  Label of", "  bank:type=Account,name=main", "  is a String, not a number"}},
		{"more than the room: how many more", []state.TelemetryProblem{long, short, short}, 60, 3,
			[]string{"⚠ jmx:bank:type=Account,name=main:Label: Label of", "  bank:type=Account,name=main is a String, not a number", "⚠ and 2 more problems (--batch lists them all)"}},
		{"the first whole, whatever the room", []state.TelemetryProblem{long}, 60, 1,
			[]string{"⚠ jmx:bank:type=Account,name=main:Label: Label of", "  bank:type=Account,name=main is a String, not a number"}},
	} {
		var got []string
		for _, l := range problemLines(tc.problems, tc.w, tc.room, &st) {
			plain := ansi.Strip(l)
			if widthOf(plain) > tc.w {
				t.Errorf("%s: %q is wider than %d", tc.name, plain, tc.w)
			}
			got = append(got, plain)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
	// The spec in the warning's style, the reason in the error's, on every line.
	lines := problemText(long, 60, &st)
	want := []string{st.Warn.Render("⚠ jmx:bank:type=Account,name=main:Label: ") + st.Bad.Render("Label of"),
		"  " + st.Bad.Render("bank:type=Account,name=main is a String, not a number")}
	if !slices.Equal(lines, want) {
		t.Errorf("styled:\n got %q\nwant %q", lines, want)
	}
}

// The chart grid: at the aimed size when every chart fits; else smaller
// charts, so that more show, and no row left empty while some are hidden.
func TestTelemetryChartLayout(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n, w, h   int
		cols      int
		bands     []int
		wantShown int
	}{
		{"all fit at the aimed size", 6, 132, 16, 3, []int{5, 5}, 6},
		{"the grid's third row at 200×60: 26 series", 26, 132, 16, 4, []int{4, 3, 3, 3, 3}, 20},
		{"13 problems' worth less room", 26, 132, 11, 4, []int{4, 4, 3}, 12},
		{"narrower, not lower, when that shows them all", 8, 132, 10, 4, []int{5, 5}, 8},
		{"a large pane: the aimed size, room to spare", 26, 198, 40, 4, []int{5, 5, 5, 5, 5, 5, 5}, 26},
	} {
		cols, bands := chartLayout(tc.n, tc.w, tc.h)
		sum := 0
		for _, b := range bands {
			sum += b
		}
		shown := min(cols*len(bands), tc.n)
		if cols != tc.cols || !slices.Equal(bands, tc.bands) || shown != tc.wantShown {
			t.Errorf("%s: %d columns, bands %v (%d shown), want %d, %v (%d)", tc.name, cols, bands, shown, tc.cols, tc.bands, tc.wantShown)
		}
		if shown < tc.n && sum != tc.h {
			t.Errorf("%s: %d of %d rows used while %d charts are hidden", tc.name, sum, tc.h, tc.n-shown)
		}
		if tc.w/cols < chartMinW && cols > 1 || slices.Min(bands) < chartMinH {
			t.Errorf("%s: charts of %d×%d, smaller than the least", tc.name, tc.w/cols, slices.Min(bands))
		}
	}
}

// A chart's title keeps its name whole before it says the chart's top
// (↑): the top goes when the name would be cut beside it, and when it is
// the value shown already.
func TestChartTitleKeepsTheName(t *testing.T) {
	at := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	series := func(name string, values ...int64) state.Series {
		s := state.Series{Name: name, Unit: "plain", Divisor: 1, Min: slices.Min(values), Max: slices.Max(values)}
		for i, v := range values {
			s.Points = append(s.Points, state.Point{At: at.Add(time.Duration(i) * time.Second), Value: v})
		}
		return s
	}
	percent := func(s state.Series) state.Series { s.Unit = decode.UnitPercent; return s }
	m := New(Config{Refresh: time.Second}, &fakeSource{st: streamingStatus()}, nil)
	for _, tc := range []struct {
		series state.Series
		width  int
		want   string
	}{
		{series("Unscheduled Tasks", 70, 279, 166), 40, "Unscheduled Tasks 166 ↑279"},
		{series("Live threads", 47, 47), 40, "Live threads 47"},                                            // its top is its value
		{series("Tasks Waiting for Dependencies", 66, 462, 309), 36, "Tasks Waiting for Dependencies 309"}, // the name, not the top
		{series("Tasks Waiting for Dependencies", 66, 462, 309), 30, "Tasks … for Dependencies 309"},
		{percent(series("GC activity", 0, 9, 2)), 40, "GC activity 2.0%"}, // to 100% always: no "↑100%" to read as a peak
	} {
		e := telemetryEntries(&state.Snapshot{Telemetry: []state.Series{tc.series}})[0]
		title := strings.Join(strings.Fields(ansi.Strip(m.chartCell(e, tc.width, 3, false)[0])), " ")
		if title != tc.want {
			t.Errorf("%s in %d cells: %q, want %q", tc.series.Name, tc.width, title, tc.want)
		}
	}
}

// A drill-in's chart spans the telemetry window, whatever its width: at
// 200 columns, five minutes of points a second (fewer points than the
// chart's columns) were drawn a point a column and labelled "-6m13s";
// at 80, two minutes of them filled the chart as "-2m13s".
func TestTelemetryDrillInSpansTheWindow(t *testing.T) {
	at := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	st := PlainStyles()
	for _, tc := range []struct {
		points int
		w      int
	}{{300, 198}, {300, 78}, {133, 78}, {10, 198}} {
		var vs []float64
		var ts []time.Time
		for i := range tc.points {
			vs, ts = append(vs, float64(i%7)), append(ts, at.Add(time.Duration(i)*time.Second))
		}
		lines := bigChart(vs, ts, "plain", tc.w, 6, &st, false, 5*time.Minute)
		if axis := strings.Fields(ansi.Strip(lines[len(lines)-1])); len(axis) != 2 || axis[0] != "-5m00s" || axis[1] != "now" {
			t.Errorf("%d points, %d wide: the axis reads %q", tc.points, tc.w, axis)
		}
	}
}

// Placed on the window by time, the points fill the columns between
// them as a line, but a gap in the series (far more than its step) stays
// empty, and so does the window before the first point.
func TestOnWindow(t *testing.T) {
	at := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	sec := func(s int) time.Time { return at.Add(time.Duration(s) * time.Second) }
	// 11 columns over 10 s: a column a second.
	// A point a second, one missing at 4 s (filled), then none for 4 s (a gap).
	got := onWindow([]float64{1, 2, 3, 7, 6, 9}, []time.Time{sec(1), sec(2), sec(3), sec(5), sec(6), sec(10)}, 10*time.Second, 11)
	nan := math.NaN()
	want := []float64{nan, 1, 2, 3, 5, 7, 6, nan, nan, nan, 9}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && got[i] != want[i] {
			t.Fatalf("columns %v, want %v", got, want)
		}
	}
}
