package tui

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/protocol"
	"github.com/proftop/proftop/simulator"
	"github.com/proftop/proftop/state"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// fakeSource is a source with a fixed status, for rendering tests.
type fakeSource struct {
	st     client.Status
	chosen string
}

func (f *fakeSource) Run(ctx context.Context) error { <-ctx.Done(); return nil }
func (f *fakeSource) Batches() <-chan *client.Batch { return nil }
func (f *fakeSource) Recycle(*client.Batch)         {}
func (f *fakeSource) Status() client.Status         { return f.st }
func (f *fakeSource) SelectAgent(spec string)       { f.chosen = spec }

func streamingStatus() client.Status {
	return client.Status{Source: "prod-1:10002", State: client.StateStreaming, Format: decode.FormatBinary, Negotiation: client.OutcomeNegotiated,
		Agent: protocol.Agent{ID: "1", PID: 4242, Name: "com.acme.shop.Main", Type: "Profiler", Version: "1.0"}, Probing: true,
		Events: 1_234_567, EventsPerSec: 19_876, BytesPerSec: 2_900_000, Streams: 1}
}

// simulated returns an aggregator fed with the simulated service up to a
// moment inside its first deadlock, deterministically.
func simulated(t testing.TB, events int) *state.Aggregator {
	t.Helper()
	w := simulator.NewWorld(simulator.Config{Seed: 1, Start: t0, DeadlockEvery: 20 * time.Second, DeadlockFor: 30 * time.Second})
	agg := state.New(state.Options{})
	var b decode.Batch
	for i := 0; i < events; i++ {
		b.Add(w.Next())
		if b.Len() == 4096 {
			agg.Apply(b.Events(), 1, decode.Clock{}, t0)
			b.Reset()
		}
	}
	agg.Apply(b.Events(), 1, decode.Clock{}, t0)
	return agg
}

// newTestModel returns a model of w×h cells showing the simulated service.
func newTestModel(t testing.TB, w, h int) (*Model, *state.Aggregator, *fakeSource) {
	t.Helper()
	agg := simulated(t, 200_000)
	src := &fakeSource{st: streamingStatus()}
	m := New(Config{Refresh: time.Second, Theme: ThemeDark}, src, agg)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	deliver(m, agg)
	return m, agg, src
}

// deliver gives the model a fresh snapshot, as the refresh timer would.
func deliver(m *Model, agg *state.Aggregator) {
	m.fetched++
	m.Update(snapshotMsg{seq: m.fetched, snap: agg.Snapshot(t0, m.query()), status: m.src.Status()})
}

func press(m *Model, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = m.Update(keyMsg(k))
	}
	return cmd
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// golden compares a rendering with testdata/NAME.golden (ANSI stripped).
func golden(t *testing.T, name, got string) {
	t.Helper()
	got = ansi.Strip(got)
	path := filepath.Join("testdata", name+".golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./tui -update rewrites it):\n%s", name, got)
	}
}

// checkFrame asserts the screen is exactly w×h cells, nothing overflowing.
func checkFrame(t *testing.T, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, n, w, ansi.Strip(l))
		}
	}
}

func TestGoldenScreens(t *testing.T) {
	for _, tc := range []struct {
		name string
		w, h int
		keys []string
	}{
		{"grid-200x60", 200, 60, nil},
		{"threads-80x24", 80, 24, nil},
		{"methods-80x24", 80, 24, []string{"2"}},
		{"monitors-80x24", 80, 24, []string{"3"}},
		{"gc-80x24", 80, 24, []string{"4"}},
		{"monitor-drill-in-80x24", 80, 24, []string{"3", "enter"}},
		{"monitor-drill-in-200x60", 200, 60, []string{"3", "enter"}},
		{"deadlocked-monitor-drill-in-80x24", 80, 24, []string{"3", "/", "A", "c", "c", "o", "u", "n", "t", "enter", "enter"}},
		{"deadlocked-monitor-drill-in-200x60", 200, 60, []string{"3", "/", "A", "c", "c", "o", "u", "n", "t", "enter", "enter"}},
		{"thread-drill-in-80x24", 80, 24, []string{"1", "enter"}},
		{"method-drill-in-80x24", 80, 24, []string{"2", "enter"}},
		{"help-80x24", 80, 24, []string{"?"}},
		// The notes under the keys, flowed to the width: no line of one word.
		{"help-notes-80x24", 80, 24, append([]string{"?"}, strings.Split(strings.Repeat("j", 60), "")...)},
		{"paused-sorted-filtered-80x24", 80, 24, []string{"space", "s", "/", "h", "t", "t", "p", "enter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, agg, _ := newTestModel(t, tc.w, tc.h)
			press(m, tc.keys...)
			deliver(m, agg)
			screen := m.render()
			checkFrame(t, screen, tc.w, tc.h)
			golden(t, tc.name, screen)
		})
	}
}

var (
	longRunOnce sync.Once
	longRun     *state.Aggregator
)

// longRunModel is a model of w×h cells over a minute and a half of the
// simulated service, so that its series have something to chart.
func longRunModel(t *testing.T, w, h int, ascii bool) (*Model, *state.Aggregator) {
	longRunOnce.Do(func() { longRun = simulated(t, 1_800_000) })
	m := New(Config{Refresh: time.Second, Theme: ThemeDark, ASCII: ascii}, &fakeSource{st: streamingStatus()}, longRun)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	deliver(m, longRun)
	return m, longRun
}

// The telemetry and the probes: one line per series on a small terminal,
// charts on a large one (braille, or ASCII), a series and a group large,
// the probes table and a row's hot spots.
func TestTelemetryGoldenScreens(t *testing.T) {
	for _, tc := range []struct {
		name  string
		w, h  int
		ascii bool
		keys  []string
	}{
		{"telemetry-80x24", 80, 24, false, []string{"7"}},
		{"telemetry-200x60", 200, 60, false, []string{"7"}},
		{"telemetry-ascii-200x60", 200, 60, true, []string{"7"}},
		{"telemetry-series-drill-in-80x24", 80, 24, false, []string{"7", "/", "P", "r", "o", "c", "e", "s", "s", " ", "C", "P", "U", "enter", "enter"}},
		{"telemetry-group-drill-in-200x60", 200, 60, false, []string{"7", "/", "i", "n", " ", "N", "o", "n", "enter", "enter"}},
		{"probes-80x24", 80, 24, false, []string{"8"}},
		{"probe-drill-in-80x24", 80, 24, false, []string{"8", "enter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, agg := longRunModel(t, tc.w, tc.h, tc.ascii)
			press(m, tc.keys...)
			deliver(m, agg)
			screen := m.View().Content
			checkFrame(t, screen, tc.w, tc.h)
			golden(t, tc.name, screen)
		})
	}
}

func TestKeyBindings(t *testing.T) {
	m, agg, _ := newTestModel(t, 80, 24)
	if m.focus != paneThreads {
		t.Fatal("starts on threads")
	}
	press(m, "tab")
	if m.focus != paneMethods {
		t.Fatalf("tab: focus %d", m.focus)
	}
	press(m, "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab")
	if m.focus != paneGC {
		t.Fatalf("shift+tab: focus %d", m.focus)
	}
	press(m, "3")
	if m.focus != paneMonitors {
		t.Fatalf("3: focus %d", m.focus)
	}
	tb := m.tables[paneMonitors]
	m.render() // the columns an 80-column terminal shows
	col := tb.sortCol
	press(m, "s")
	if tb.sortCol == col || !tb.shown[tb.sortCol] {
		t.Fatalf("s sorts by column %d, from %d; shown %v", tb.sortCol, col, tb.shown)
	}
	for range monitorCols {
		press(m, ">")
		if !tb.shown[tb.sortCol] {
			t.Fatalf("> sorts by the hidden column %s", monitorCols[tb.sortCol].title)
		}
	}
	press(m, "<")
	if !tb.shown[tb.sortCol] || tb.hasSel || tb.offset != 0 {
		t.Fatal("< sorts by a hidden column, or leaves the list scrolled")
	}
	desc := tb.descending()
	press(m, "S")
	if tb.descending() == desc {
		t.Fatal("S does not reverse")
	}
	// Moving the selection.
	press(m, "1")
	first := m.tables[paneThreads].selID
	press(m, "down", "down")
	deliver(m, agg)
	m.render()
	if m.tables[paneThreads].pos != 2 || m.tables[paneThreads].selID == first {
		t.Fatalf("down twice: position %d", m.tables[paneThreads].pos)
	}
	press(m, "g")
	if m.tables[paneThreads].pos != 0 {
		t.Fatal("g goes to the first row")
	}
	// Filtering with a regular expression; esc clears it.
	press(m, "/", "p", "o", "o", "l", "enter")
	deliver(m, agg)
	m.render()
	if m.filters[paneThreads] != "pool" || m.tables[paneThreads].matched == 0 || m.tables[paneThreads].matched >= len(m.snap.Threads) {
		t.Fatalf("filter %q matched %d of %d", m.filters[paneThreads], m.tables[paneThreads].matched, len(m.snap.Threads))
	}
	press(m, "/", "(", "enter")
	if m.filters[paneThreads] != "pool" {
		t.Fatalf("a bad expression replaced the filter: %q", m.filters[paneThreads])
	}
	press(m, "esc")
	if m.filters[paneThreads] != "" {
		t.Fatal("esc does not clear the filter")
	}
	// Drilling in and back, with esc or q (which quits only from the top).
	press(m, "enter")
	if m.detail == nil || m.detail.kind != paneThreads {
		t.Fatal("enter does not drill in")
	}
	if q := m.query(); q.StackOf == 0 {
		t.Fatal("a thread drill-in asks for its stack")
	}
	press(m, "esc")
	if m.detail != nil {
		t.Fatal("esc does not go back")
	}
	press(m, "enter")
	if cmd := press(m, "q"); m.detail != nil || cmd != nil && cmd() == tea.Quit() {
		t.Fatal("q in a drill-in does not go back, or quits")
	}
	// Freezing: new snapshots do not change the view, and come back after.
	press(m, "space")
	frozen := m.snap
	deliver(m, agg)
	if !m.paused || m.snap != frozen || m.latest == frozen {
		t.Fatal("space does not freeze the view while data keeps coming")
	}
	if !strings.Contains(ansi.Strip(m.render()), "PAUSED") {
		t.Fatal("no PAUSED badge")
	}
	press(m, "p")
	if m.paused || m.snap != m.latest {
		t.Fatal("p does not unfreeze to the latest snapshot")
	}
	// Refresh interval: a ladder, within bounds, 1 s reachable again, and
	// at once: the old timer's tick is ignored.
	gen := m.tickGen
	press(m, "-", "-", "-", "-", "-", "-")
	if m.refresh != MaxRefresh || m.tickGen == gen {
		t.Fatalf("slower: %v", m.refresh)
	}
	if _, cmd := m.Update(tickMsg{gen: gen}); cmd != nil {
		t.Fatal("the old timer's tick still fetches")
	}
	press(m, "+", "+", "+", "+", "+", "+", "+", "+")
	if m.refresh != MinRefresh {
		t.Fatalf("faster: %v", m.refresh)
	}
	press(m, "-", "-", "-")
	if m.refresh != time.Second {
		t.Fatalf("100ms, then three steps slower: %v", m.refresh)
	}
	// Recent and cumulative: c acts on the methods only, m on the
	// monitors only; elsewhere they say where they act.
	recent, grouped := m.recent, m.grouped
	press(m, "1", "c", "m")
	if m.recent != recent || m.grouped != grouped || !strings.Contains(m.notice, "3 goes there") {
		t.Fatalf("c and m act away from their panes: notice %q", m.notice)
	}
	if footer := ansi.Strip(m.footer()); strings.Contains(footer, "span") || strings.Contains(footer, "group locks") {
		t.Fatalf("the threads' footer offers the keys of other panes: %q", footer)
	}
	press(m, "3", "m")
	if !m.grouped {
		t.Fatal("m does not group the monitors")
	}
	press(m, "m", "2", "c")
	if m.recent == recent || m.query().Recent == recent {
		t.Fatal("c does not toggle the methods' span")
	}
	// Reset, confirmed by a second r (cumulative figures show it).
	if m.recent {
		press(m, "c")
	}
	press(m, "r", "x")
	deliver(m, agg)
	if len(m.snap.Methods) == 0 {
		t.Fatal("r then another key reset the statistics")
	}
	press(m, "r", "r")
	deliver(m, agg)
	if len(m.snap.Methods) != 0 || !strings.HasPrefix(m.notice, "reset: ") {
		t.Fatalf("r r: %d methods left, notice %q", len(m.snap.Methods), m.notice)
	}
	// Help, closed by any key.
	press(m, "?")
	if m.help == nil {
		t.Fatal("? does not open the help")
	}
	press(m, "x")
	if m.help != nil {
		t.Fatal("the help does not close")
	}
	// Quit.
	if cmd := press(m, "q"); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q does not quit")
	}
	if cmd := press(m, "ctrl+c"); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("ctrl+c does not quit")
	}
}

// Snapshots asked for concurrently may arrive out of order: the older one
// is dropped rather than undo what the newer one shows.
func TestStaleSnapshotsAreDropped(t *testing.T) {
	m, agg, _ := newTestModel(t, 80, 24)
	older := m.fetch(false)
	press(m, "2", "c") // a newer query
	newer := m.fetch(false)
	m.Update(newer())
	shown := m.snap
	m.Update(older())
	if m.snap != shown || m.snap.Recent != m.recent {
		t.Fatal("an older snapshot replaced a newer one")
	}
	_ = agg
}

func TestChoosingAnAgent(t *testing.T) {
	m, _, src := newTestModel(t, 80, 24)
	src.st.State = client.StateChoosingAgent
	src.st.Agents = []protocol.Agent{{ID: "1", PID: 10, Name: "a.Main"}, {ID: "2", PID: 20, Name: "b.Main"}}
	m.status = src.st
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "several agents") || !strings.Contains(screen, "b.Main") {
		t.Fatal(screen)
	}
	press(m, "down", "enter")
	if src.chosen != "2" {
		t.Fatalf("chose %q", src.chosen)
	}
}

// Names are untrusted: escape sequences in them are shown, not obeyed.
func TestHostileNamesAreInert(t *testing.T) {
	agg := state.New(state.Options{})
	agg.Apply([]decode.Event{
		&decode.ThreadStart{ThreadID: 1, ThreadName: "evil\x1b]0;pwned\x07\x1b[2J\u202egnp.exe", GroupName: "g\x00\x9b31m"},
		&decode.ClassDef{ClassID: 1, Name: "com.evil.\x1b[31mRed"},
		&decode.MethodDef{Name: "run\r\n", ClassIDRef: 1, MethodID: 1},
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 1, Ticket: 1, Time: 5},
		&decode.MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 9, ThreadOwner: 2, Time: 6, Stack: decode.Stack{Methods: []string{"x\x1b[H"}, Lines: []int64{1}}},
	}, 1, decode.Clock{}, t0)
	src := &fakeSource{st: streamingStatus()}
	src.st.Source = "host\x1b[6n"
	for _, size := range [][2]int{{200, 60}, {80, 24}} {
		m := New(Config{Refresh: time.Second}, src, agg)
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		deliver(m, agg)
		for _, keys := range [][]string{nil, {"3", "enter"}, {"1", "enter"}} {
			press(m, "esc")
			press(m, keys...)
			deliver(m, agg)
			screen := ansi.Strip(m.render()) // our own styling removed: what is left came from the profiler
			for _, bad := range []string{"\x1b", "\x07", "\x00", "\x9b", "\r", "\u202e"} {
				if strings.Contains(screen, bad) {
					t.Fatalf("%q reached the terminal:\n%q", bad, screen)
				}
			}
		}
	}
	if got := inert("evil\x1b]0;x\x07"); got != `evil\x1b]0;x\x07` {
		t.Fatal(got)
	}
	if got := inert("plain ascii"); got != "plain ascii" {
		t.Fatal(got)
	}
	if got := inert("名前\u202e\xff"); got != `名前\u202e\xff` {
		t.Fatal(got)
	}
}

func TestColorProfiles(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "NO_COLOR" {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		mode    ColorMode
		noColor string
		forced  bool
		ascii   bool
	}{
		{ColorAuto, "", false, false},
		{ColorAuto, "yes", true, true}, // any non-empty value
		{ColorAuto, "0", true, true},
		{ColorAlways, "1", true, false},
		{ColorNever, "", true, true},
	} {
		p, forced := Profile(tc.mode, env(tc.noColor))
		if forced != tc.forced || (forced && (p.String() == "Ascii") != tc.ascii) {
			t.Errorf("%s with NO_COLOR=%q: %v %v", tc.mode, tc.noColor, p, forced)
		}
	}
}

func TestSparklines(t *testing.T) {
	if got := sparkline([]float64{0, 1, 2, 4, 8}, 6, 0, false); got != "  ▂▃▅█" {
		t.Fatalf("%q", got)
	}
	if got := sparkline([]float64{8, 8}, 3, 0, true); got != " @@" {
		t.Fatalf("%q", got)
	}
	if got := bar(0.5, 4, true); got != "##.." {
		t.Fatalf("%q", got)
	}
}

// r r says in the footer, whole at 80 columns, what was reset; the method
// drill-in then heads its cumulative figures with the reset, not with the
// start.
func TestResetIsSaidWhole(t *testing.T) {
	w := simulator.NewWorld(simulator.Config{Seed: 1, Start: t0})
	agg := state.New(state.Options{})
	feed := func(n int) {
		var b decode.Batch
		for i := range n {
			b.Add(w.Next())
			if b.Len() == 4096 || i == n-1 {
				agg.Apply(b.Events(), 1, decode.Clock{}, t0)
				b.Reset()
			}
		}
	}
	feed(100_000)
	m := New(Config{Refresh: time.Second, Theme: ThemeDark}, &fakeSource{st: streamingStatus()}, agg)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	deliver(m, agg)
	press(m, "2", "enter")
	deliver(m, agg)
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "Since watching began") {
		t.Fatalf("before the reset:\n%s", screen)
	}
	press(m, "esc", "r", "r")
	lines := strings.Split(ansi.Strip(m.render()), "\n")
	if footer := lines[len(lines)-1]; strings.Contains(footer, "…") || !strings.Contains(footer, "count from now") {
		t.Fatalf("the footer cuts the notice: %q", footer)
	}
	feed(100_000)
	deliver(m, agg)
	press(m, "enter")
	deliver(m, agg)
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "Since the reset, at ") || strings.Contains(screen, "Since watching began") {
		t.Fatalf("after the reset:\n%s", screen)
	}
}

// Before any data, the picture is looked at often whatever the refresh,
// so that the first frame with data comes when the data does; a table
// with no rows yet says it waits for them.
func TestFirstDataIsShownAtOnce(t *testing.T) {
	st := streamingStatus()
	st.Events = 1
	agg := state.New(state.Options{})
	m := New(Config{Refresh: 5 * time.Second, Theme: ThemeDark}, &fakeSource{st: st}, agg)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	deliver(m, agg)
	if d := m.nextTick(m.snap); d != firstDataPoll {
		t.Fatalf("no data yet: the next look in %v", d)
	}
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "Threads · 0") || !strings.Contains(screen, "waiting for data") {
		t.Fatalf("an empty pane says nothing:\n%s", screen)
	}
	full, _, _ := newTestModel(t, 80, 24)
	full.refresh = 5 * time.Second
	if d := full.nextTick(full.snap); d != 5*time.Second {
		t.Fatalf("with data: the next look in %v", d)
	}
	press(full, "/", "z", "z", "z", "enter")
	if screen := ansi.Strip(full.render()); !strings.Contains(screen, "no row matches the filter") {
		t.Fatalf("a filter that hides every row:\n%s", screen)
	}
}
