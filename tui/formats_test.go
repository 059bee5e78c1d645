package tui

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	tea "charm.land/bubbletea/v2"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/internal/fixtures"
	"github.com/proftop/proftop/state"
)

// fileModel returns a model of w×h cells showing a file decoded whole, with
// the status a file source gives it.

// jinsightTrace is the real Jinsight trace, of ../shared/fixtures.
const jinsightTrace = "jinsight/trace-linux-x86_64-tagobjects.trc"

func fileModel(t *testing.T, path string, w, h int) (*Model, *state.Aggregator) {
	t.Helper()
	// Times in titles are local: the goldens are in UTC.
	local := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = local })
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := decode.Open(bytes.NewReader(data), decode.Options{Modified: t0})
	if err != nil {
		t.Fatal(err)
	}
	agg := state.New(state.Options{})
	var b decode.Batch
	for {
		ev, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b.Add(ev)
	}
	agg.Apply(b.Events(), 1, d.Clock(), t0)
	desc := d.(decode.Describer)
	cause := "end of file"
	if desc.Still() {
		cause = "a still picture: the snapshot as it was taken"
	}
	src := &fakeSource{st: client.Status{Source: path, State: client.StateEnded, Cause: cause, Format: d.Format(),
		Negotiation: client.OutcomeFile, Events: int64(b.Len()), Streams: 1, Notes: desc.Notes(), Still: desc.Still()}}
	m := New(Config{Refresh: time.Second, Theme: ThemeDark, Recent: true}, src, agg)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	deliver(m, agg)
	return m, agg
}

func TestGoldenScreensOfFiles(t *testing.T) {
	// The trace is of ../shared/fixtures: its cases skip without it.
	const snapshot, trace = "../testdata/profilerj/snapshot-synthetic.xml", jinsightTrace
	for _, tc := range []struct {
		name, path string
		w, h       int
		keys       []string
	}{
		{"profilerj-methods-80x24", snapshot, 80, 24, []string{"2"}},
		{"profilerj-sampler-80x24", snapshot, 80, 24, []string{"2", "v"}},
		{"profilerj-threads-80x24", snapshot, 80, 24, nil},
		{"profilerj-coverage-drill-in-80x24", snapshot, 80, 24, []string{"6", "enter"}},
		{"profilerj-objects-80x24", snapshot, 80, 24, []string{"5"}},
		{"profilerj-grid-200x60", snapshot, 200, 60, nil},
		{"profilerj-method-drill-in-80x24", snapshot, 80, 24, []string{"2", "down", "down", "enter"}},
		{"jinsight-methods-80x24", trace, 80, 24, []string{"2"}},
		{"jinsight-objects-80x24", trace, 80, 24, []string{"5"}},
		{"jinsight-threads-80x24", trace, 80, 24, nil},
		{"jinsight-object-drill-in-80x24", trace, 80, 24, []string{"5", "enter"}},
		{"profilerj-object-drill-in-80x24", snapshot, 80, 24, []string{"5", "enter"}},
		{"jinsight-thread-drill-in-80x24", trace, 80, 24, []string{"enter"}},
		{"jinsight-method-drill-in-80x24", trace, 80, 24, []string{"2", "enter"}},
		{"jinsight-help-200x60", trace, 200, 60, []string{"?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if path == jinsightTrace {
				path = fixtures.Path(t, jinsightTrace)
			}
			m, agg := fileModel(t, path, tc.w, tc.h)
			press(m, tc.keys...)
			deliver(m, agg)
			screen := m.render()
			checkFrame(t, screen, tc.w, tc.h)
			golden(t, tc.name, screen)
		})
	}
}

// A still picture has no timeline: its methods are cumulative whatever
// the configuration says, and c says why it does nothing.
func TestStillPictureIsCumulative(t *testing.T) {
	m, agg := fileModel(t, "../testdata/profilerj/snapshot-synthetic.xml", 80, 24)
	if q := m.query(); q.Recent {
		t.Fatal("a snapshot is asked for its recent figures")
	}
	press(m, "2", "c")
	if !strings.Contains(m.notice, "no timeline") {
		t.Fatalf("notice %q", m.notice)
	}
	deliver(m, agg)
	if m.snap.Recent || len(m.snap.Methods) == 0 {
		t.Fatal("the methods are not cumulative")
	}
}

// v switches the methods between the call tree and the sampler's hits;
// with one view, it says so. The Coverage tab shows only with coverage,
// the Probes tab with probes or a source that can be asked for them.
func TestMethodViewsAndCoverageTab(t *testing.T) {
	m, agg := fileModel(t, "../testdata/profilerj/snapshot-synthetic.xml", 80, 24)
	press(m, "2")
	tree := m.rows(paneMethods, m.snap)
	press(m, "v")
	hits := m.rows(paneMethods, m.snap)
	if tree.Len() != 12 || hits.Len() != 6 || m.tables[paneMethods].cols[2].title != "HITS" {
		t.Fatalf("%d rows in the call tree, %d in the sampler's; column %s", tree.Len(), hits.Len(), m.tables[paneMethods].cols[2].title)
	}
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "6 Coverage") {
		t.Fatal("no Coverage tab")
	}
	// A file without probes has no Probes tab: 8 says why.
	if screen := ansi.Strip(m.render()); strings.Contains(screen, "Probes") {
		t.Fatal("a Probes tab for a file without probes")
	}
	press(m, "8")
	if m.focus == paneProbes || !strings.Contains(m.notice, "--probe") {
		t.Fatalf("8 on a file without probes: focus %d, notice %q", m.focus, m.notice)
	}
	press(m, "2")
	press(m, "v")
	if m.rows(paneMethods, m.snap).Len() != 12 || m.tables[paneMethods].cols[2].title != "CALLS" {
		t.Fatal("v does not come back to the call tree")
	}
	deliver(m, agg)

	sim, _, _ := newTestModel(t, 80, 24)
	press(sim, "2", "v")
	if !strings.Contains(sim.notice, "one view") {
		t.Fatalf("notice %q", sim.notice)
	}
	if strings.Contains(ansi.Strip(sim.render()), "Coverage") {
		t.Fatal("a Coverage tab without coverage")
	}
	press(sim, "6")
	if sim.focus == paneCoverage {
		t.Fatal("6 focuses an empty Coverage pane")
	}
	press(sim, "1", "shift+tab")
	if sim.focus != paneProbes {
		t.Fatalf("shift+tab from threads: %d", sim.focus)
	}
	press(sim, "7", "shift+tab")
	if sim.focus != paneObjects {
		t.Fatalf("shift+tab from telemetry passes the hidden coverage: %d", sim.focus)
	}
	press(sim, "tab")
	if sim.focus != paneTelemetry {
		t.Fatalf("tab from objects passes the hidden coverage: %d", sim.focus)
	}
}

// Batch text wraps the notes, never cuts them: their end is as much
// what the data is as their start.
func TestBatchTextWrapsNotes(t *testing.T) {
	notes := []string{"times approximate: 2319 ticks per µs, the agent's own calibration, overstated on a busy machine",
		"2 frames open at a burst's end closed there", "1 frame open when its thread exited closed there"}
	st := client.Status{Source: "syn.trc", State: client.StateEnded, Cause: "end of file", Notes: notes}
	agg := state.New(state.Options{})
	snap := agg.Snapshot(t0, state.Query{CallersOf: -1})
	for _, width := range []int{80, 132, 300} {
		text := RenderText(snap, st, width, 20, false)
		var noted []string
		inNote := false
		for i, l := range strings.Split(text, "\n") {
			inNote = strings.HasPrefix(l, "note: ") || inNote && strings.HasPrefix(l, "      ")
			if inNote {
				noted = append(noted, strings.TrimSpace(strings.TrimPrefix(l, "note: ")))
			}
			if widthOf(l) > width {
				t.Fatalf("width %d: line %d is %d wide: %q", width, i, widthOf(l), l)
			}
		}
		if got := strings.Join(noted, " "); got != strings.Join(notes, " · ") {
			t.Fatalf("width %d: the notes read %q", width, got)
		}
	}
}

// A pane the source has nothing for has no tab, as the grid leaves it out
// (a TPTP trace without allocations, a file without telemetry): its key
// says why instead.
func TestNoTabForAPaneTheSourceCannotFill(t *testing.T) {
	m, agg := fileModel(t, fixtures.Path(t, jinsightTrace), 80, 24)
	deliver(m, agg)
	bar := ansi.Strip(m.tabBar())
	if !strings.Contains(bar, "5 Objects") || strings.Contains(bar, "Telemetry") {
		t.Fatalf("a Jinsight trace (a census, no series): %q", bar)
	}
	press(m, "7")
	if m.focus == paneTelemetry || !strings.Contains(m.notice, "no telemetry") {
		t.Fatalf("7: focus %v, notice %q", m.focus, m.notice)
	}
}
