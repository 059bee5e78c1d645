package tui

import (
	"encoding/json"
	"fmt"
	"strings"
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

// fakeFleet is a fleet of sources with fixed statuses.
type fakeFleet struct {
	labels []string
	srcs   []*fakeSource
}

func (f *fakeFleet) Len() int                   { return len(f.srcs) }
func (f *fakeFleet) Label(i int) string         { return f.labels[i] }
func (f *fakeFleet) Member(i int) client.Source { return f.srcs[i] }

func (f *fakeFleet) statuses() []client.Status {
	out := make([]client.Status, len(f.srcs))
	for i, s := range f.srcs {
		out[i] = s.st
	}
	return out
}

// feedSimulated applies events of the simulated service (seed) to agg, up
// to a moment inside its first deadlock when events is 200,000.
func feedSimulated(agg *state.Aggregator, seed uint64, events int) {
	w := simulator.NewWorld(simulator.Config{Seed: seed, Start: t0, DeadlockEvery: 20 * time.Second, DeadlockFor: 30 * time.Second})
	var b decode.Batch
	for i := 0; i < events; i++ {
		b.Add(w.Next())
		if b.Len() == 4096 {
			agg.Apply(b.Events(), 1, decode.Clock{}, t0)
			b.Reset()
		}
	}
	agg.Apply(b.Events(), 1, decode.Clock{}, t0)
}

// testFleet is five JVMs: one deadlocked, one quiet, one refusing
// connections, one gone after it streamed, one still connecting.
func testFleet(t testing.TB) (*fakeFleet, *state.Fleet) {
	t.Helper()
	live := func(addr string, pid int, name string) *fakeSource {
		st := streamingStatus()
		st.Source, st.Agent.PID, st.Agent.Name = addr, pid, name
		return &fakeSource{st: st}
	}
	ff := &fakeFleet{
		labels: []string{"prod-1", "prod-2", "prod-3:10003", "prod-4/billing", "prod-5"},
		srcs: []*fakeSource{
			live("prod-1:10002", 4242, "com.acme.shop.Main"),
			live("prod-2:10002", 5151, "com.acme.shop.Main"),
			{st: client.Status{Source: "prod-3:10003", State: client.StateReconnecting, Attempt: 4,
				Cause: "connection refused by prod-3:10003: is the profiler's agent controller running there?"}},
			{st: client.Status{Source: "prod-4:10002", State: client.StateDisconnected, Streams: 1, Events: 30_000,
				Cause: "prod-4:10002 closed the connection"}},
			{st: client.Status{Source: "prod-5:10002", State: client.StateConnecting}},
		},
	}
	aggs := state.NewFleet(len(ff.srcs), state.Options{}.ForFleet())
	feedSimulated(aggs.Member(0), 1, 200_000)
	feedSimulated(aggs.Member(1), 2, 60_000)
	feedSimulated(aggs.Member(3), 4, 30_000)
	return ff, aggs
}

// newTestFleet returns the overview of testFleet at w×h cells.
func newTestFleet(t testing.TB, w, h int) (*FleetModel, *fakeFleet) {
	t.Helper()
	ff, aggs := testFleet(t)
	f := NewFleet(Config{Refresh: time.Second, Theme: ThemeDark, Recent: true}, ff, aggs)
	f.Update(tea.WindowSizeMsg{Width: w, Height: h})
	deliverFleet(f, ff)
	return f, ff
}

// deliverFleet gives the overview fresh summaries, and the open JVM a
// fresh snapshot, as their timers would.
func deliverFleet(f *FleetModel, ff *fakeFleet) {
	f.fetched++
	f.Update(fleetSnapshotMsg{seq: f.fetched, snap: f.aggs.Snapshot(t0), statuses: ff.statuses()})
	if f.open >= 0 {
		m := f.models[f.open]
		m.fetched++
		f.Update(memberMsg{member: f.open, msg: snapshotMsg{seq: m.fetched, snap: m.agg.Snapshot(t0, m.query()), status: m.src.Status()}})
	}
}

func pressFleet(f *FleetModel, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = f.Update(keyMsg(k))
	}
	return cmd
}

// shownHosts lists the hosts of the table's rows on screen, in order.
func shownHosts(f *FleetModel) []string {
	f.render()
	var out []string
	for _, i := range f.table.order {
		out = append(out, f.rows[i].name)
	}
	return out
}

func TestFleetRows(t *testing.T) {
	f, _ := newTestFleet(t, 200, 50)
	r := f.rows
	if len(r) != 5 {
		t.Fatalf("%d rows", len(r))
	}
	for i, want := range []struct {
		state   string
		kind    rowKind
		threads string
		dl      string
	}{
		{"live", rowAlert, "", "1"},
		{"live", rowNormal, "", ""},
		{"reconnecting", rowNormal, noData, noData},
		{"gone", rowDim, "", ""},
		{"connecting", rowNormal, noData, noData},
	} {
		if got := r.Cell(i, 1); got != want.state {
			t.Errorf("%s: state %q, want %q", r[i].name, got, want.state)
		}
		if got := r.Kind(i); got != want.kind {
			t.Errorf("%s: kind %d, want %d", r[i].name, got, want.kind)
		}
		if want.threads != "" && r.Cell(i, 4) != want.threads {
			t.Errorf("%s: threads %q, want %q", r[i].name, r.Cell(i, 4), want.threads)
		}
		if got := r.Cell(i, 6); got != want.dl {
			t.Errorf("%s: deadlocks %q, want %q", r[i].name, got, want.dl)
		}
	}
	live := &r[0].sum
	if live.Threads == 0 || live.TopMethod == "" || live.TopLock == "" || live.Blocked == 0 || !strings.Contains(r.Name(0), "deadlock") {
		t.Fatalf("the deadlocked JVM's summary: %+v", live)
	}
	if r.Cell(2, 10) == "" || !strings.Contains(r.Cell(2, 10), "connection refused") || r.Cell(0, 10) != "" {
		t.Fatal("the error column shows the cause of a JVM that is not live, and only then")
	}
	// A gone JVM keeps what it showed.
	if r[3].sum.Threads == 0 || r.Cell(3, 8) == noData {
		t.Fatalf("the gone JVM lost its picture: %+v", r[3].sum)
	}
}

func TestFleetSortAndFilter(t *testing.T) {
	f, ff := newTestFleet(t, 200, 50)
	if got := shownHosts(f); strings.Join(got, " ") != "prod-1 prod-2 prod-3:10003 prod-4/billing prod-5" {
		t.Fatalf("not in the order given: %v", got)
	}
	pressFleet(f, "s") // by state: the worst first
	if got := shownHosts(f); got[0] != "prod-4/billing" || got[1] != "prod-3:10003" || f.table.sortName() != "state ▼" {
		t.Fatalf("by state: %v (%s)", got, f.table.sortName())
	}
	pressFleet(f, "S")
	if got := shownHosts(f); got[4] != "prod-4/billing" || !strings.HasPrefix(got[0], "prod-") || f.table.sortName() != "state ▲" {
		t.Fatalf("by state reversed: %v", got)
	}
	pressFleet(f, "<", "<") // back past the host to the error column, the last one shown
	if f.table.sortCol != len(fleetCols)-1 {
		t.Fatalf("< from the state: column %d", f.table.sortCol)
	}
	pressFleet(f, ">", ">") // host, then state
	if f.table.sortCol != 1 {
		t.Fatalf("> twice from the last column: column %d", f.table.sortCol)
	}
	// Filters: a deadlock, a state, the inverse.
	for _, tc := range []struct {
		filter string
		want   string
	}{
		{"deadlock", "prod-1"},
		{"reconnect", "prod-3:10003"},
		{"billing", "prod-4/billing"},
		{"!live", "prod-4/billing prod-3:10003 prod-5"},
	} {
		pressFleet(f, "esc", "/")
		pressFleet(f, strings.Split(tc.filter, "")...)
		pressFleet(f, "enter")
		deliverFleet(f, ff)
		if got := strings.Join(shownHosts(f), " "); got != tc.want || f.filter != tc.filter {
			t.Errorf("/%s shows %q, want %q", tc.filter, got, tc.want)
		}
		if !strings.Contains(ansi.Strip(f.render()), "/"+tc.filter) {
			t.Errorf("the title does not show the filter /%s", tc.filter)
		}
	}
	pressFleet(f, "/", "(")
	if !strings.HasPrefix(f.notice, "bad regular expression") || f.filter != "!live" {
		t.Fatalf("a bad expression: notice %q, filter %q", f.notice, f.filter)
	}
	pressFleet(f, "esc")
	if f.filter != "!live" {
		t.Fatal("esc while typing does not restore the filter")
	}
	pressFleet(f, "esc")
	if f.filter != "" || len(shownHosts(f)) != 5 {
		t.Fatal("esc does not clear the filter")
	}
	// Moving: down, the last row, the first.
	pressFleet(f, "down")
	f.render()
	if f.table.pos != 1 {
		t.Fatalf("down: position %d", f.table.pos)
	}
	pressFleet(f, "G")
	if f.table.pos != 4 {
		t.Fatalf("G: position %d", f.table.pos)
	}
	pressFleet(f, "g")
	if f.table.pos != 0 {
		t.Fatalf("g: position %d", f.table.pos)
	}
}

func TestFleetOpenAndBack(t *testing.T) {
	f, ff := newTestFleet(t, 120, 40)
	pressFleet(f, "down", "enter")
	if f.open != 1 || f.models[1] == nil || !f.models[1].cfg.Fleet {
		t.Fatalf("enter opens the selected JVM: open %d", f.open)
	}
	deliverFleet(f, ff)
	screen := ansi.Strip(f.View().Content)
	if strings.Contains(screen, "Fleet ·") || f.models[1].snap == nil {
		t.Fatalf("not the JVM's panes:\n%s", screen)
	}
	if !strings.Contains(screen, "DEADLOCK elsewhere (1 JVM, esc: the fleet): prod-1") || !strings.Contains(screen, "Threads") ||
		!strings.Contains(screen, "esc q fleet") {
		t.Fatalf("the JVM's panes lack the fleet's deadlock line or the way back:\n%s", screen)
	}
	if n := strings.Count(screen, "\n") + 1; n != 40 {
		t.Fatalf("%d lines with the fleet's line, want 40", n)
	}
	// The JVM's own keys work as on their own: a pane, a drill-in, q out of it.
	pressFleet(f, "2")
	if f.models[1].focus != paneMethods {
		t.Fatal("2 does not reach the JVM's panes")
	}
	pressFleet(f, "enter")
	if f.models[1].detail == nil {
		t.Fatal("enter does not drill in")
	}
	pressFleet(f, "q")
	if f.open != 1 || f.models[1].detail != nil {
		t.Fatal("q in a drill-in leaves the JVM instead of the drill-in")
	}
	// esc clears the pane's filter first, then goes back to the fleet.
	pressFleet(f, "/", "x", "enter", "esc")
	if f.open != 1 || f.models[1].filters[paneMethods] != "" {
		t.Fatal("esc does not clear the JVM's filter first")
	}
	pressFleet(f, "esc")
	if f.open != -1 {
		t.Fatal("esc does not go back to the fleet")
	}
	// A closed JVM's timer stops; a snapshot still reaches its model.
	m := f.models[1]
	if _, cmd := f.Update(memberMsg{member: 1, msg: tickMsg{gen: m.tickGen}}); cmd != nil {
		t.Fatal("a closed JVM keeps refreshing")
	}
	// Opened again, it is as it was left; q goes back too.
	pressFleet(f, "enter")
	if f.open != 1 || f.models[1] != m || m.focus != paneMethods {
		t.Fatal("the JVM's panes were not kept")
	}
	if cmd := pressFleet(f, "q"); f.open != -1 || cmd != nil && cmd() == tea.Quit() {
		t.Fatal("q in a JVM's panes quits instead of going back")
	}
	// A message of one JVM never reaches another.
	pressFleet(f, "up", "enter")
	if f.open != 0 {
		t.Fatalf("open %d", f.open)
	}
	other := f.models[1].snap
	f.Update(memberMsg{member: 1, msg: snapshotMsg{seq: 1 << 20, snap: f.aggs.Member(1).Snapshot(t0, state.Query{CallersOf: -1})}})
	if f.models[0].snap == f.models[1].snap || f.models[1].snap == other {
		t.Fatal("a JVM's snapshot went to the wrong panes")
	}
	// ctrl+c quits from anywhere; q quits from the overview.
	if cmd := pressFleet(f, "ctrl+c"); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("ctrl+c does not quit")
	}
	f.quitting = false
	pressFleet(f, "esc")
	if cmd := pressFleet(f, "q"); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("q does not quit from the overview")
	}
}

// A JVM's commands come back tagged with it, batches included.
func TestFleetTagsCommands(t *testing.T) {
	inner := func() tea.Msg { return tickMsg{gen: 7} }
	msg := tag(3, tea.Batch(inner, inner))()
	batch, ok := msg.(tea.BatchMsg)
	if !ok || len(batch) != 2 {
		t.Fatalf("%T", msg)
	}
	if got, ok := batch[0]().(memberMsg); !ok || got.member != 3 || got.msg != (tickMsg{gen: 7}) {
		t.Fatalf("%#v", got)
	}
	if tag(1, nil) != nil {
		t.Fatal("a nil command stays nil")
	}
}

func TestFleetGoldenScreens(t *testing.T) {
	for _, tc := range []struct {
		name string
		w, h int
		keys []string
	}{
		{"fleet-80x24", 80, 24, nil},
		{"fleet-200x50", 200, 50, nil},
		{"fleet-refused-selected-80x24", 80, 24, []string{"down", "down"}},
		{"fleet-sorted-filtered-120x30", 120, 30, []string{"s", "/", "!", "l", "i", "v", "e", "enter"}},
		{"fleet-help-80x24", 80, 24, []string{"?"}},
		{"fleet-open-80x24", 80, 24, []string{"down", "enter"}},
		{"fleet-open-200x50", 200, 50, []string{"down", "enter", "3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ff := newTestFleet(t, tc.w, tc.h)
			pressFleet(f, tc.keys...)
			deliverFleet(f, ff)
			screen := f.View().Content
			if f.open < 0 {
				screen = f.render() // without the time-dependent badge of a reconnecting row
			}
			checkFrame(t, screen, tc.w, tc.h)
			golden(t, tc.name, screen)
		})
	}
}

func TestFleetJSON(t *testing.T) {
	ff, aggs := testFleet(t)
	ff.labels[4] = "evil\x1b[2J\u202e\u0085"
	ff.srcs[4].st.Cause = "bad \x07 cause"
	snap := aggs.Snapshot(t0)
	b, err := RenderFleetJSON(ff, snap, ff.statuses())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want one per JVM", len(lines))
	}
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u0085"} {
		if strings.Contains(string(b), bad) {
			t.Fatalf("%q is in the JSON raw", bad)
		}
	}
	type doc struct {
		Host         string
		State        string
		Cause        string
		Agent        *protocol.Agent
		PictureStale bool
		Picture      struct {
			Threads   int
			Blocked   int
			TopMethod string
			TopLock   string
			Deadlocks []state.Deadlock
		}
	}
	var docs []doc
	for _, l := range lines {
		var d doc
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		docs = append(docs, d)
	}
	if docs[0].Host != "prod-1" || docs[0].State != "live" || docs[0].Agent == nil || docs[0].Picture.Threads == 0 ||
		len(docs[0].Picture.Deadlocks) != 1 || docs[0].Picture.TopMethod == "" || docs[0].Picture.TopLock == "" {
		t.Fatalf("the deadlocked JVM: %+v", docs[0])
	}
	if docs[2].State != "reconnecting" || !strings.Contains(docs[2].Cause, "connection refused") || docs[2].Picture.Deadlocks == nil {
		t.Fatalf("the refused JVM: %+v", docs[2])
	}
	// A JVM no longer connected keeps its last picture, said to be stale.
	if docs[0].PictureStale || docs[3].State != "gone" || !docs[3].PictureStale || docs[3].Picture.Threads == 0 {
		t.Fatalf("stale pictures: live %+v, gone %+v", docs[0], docs[3])
	}
	if docs[4].Host != "evil\x1b[2J\u202e\u0085" || docs[4].Cause != "bad \x07 cause" {
		t.Fatalf("the escapes do not decode to the names: %q %q", docs[4].Host, docs[4].Cause)
	}
}

func TestFleetText(t *testing.T) {
	ff, aggs := testFleet(t)
	text := RenderFleetText(ff, aggs.Snapshot(t0), ff.statuses(), 132, 0, false)
	for _, want := range []string{"fleet of 5 JVMs", "● 2 live", "● 1 reconnecting", "● 1 gone", "● 1 connecting",
		"DEADLOCK on prod-1:", "prod-3:10003", "connection refused", "prod-4/billing", "TOP METHOD"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	// The table cuts the errors to its column; below it, each is whole.
	narrow := RenderFleetText(ff, aggs.Snapshot(t0), ff.statuses(), 80, 0, false)
	if !strings.Contains(narrow, "ERRORS\nprod-3:10003:\n  connection refused by prod-3:10003: is the profiler's agent controller running\n  there?") ||
		!strings.Contains(narrow, "prod-4:10002 closed the connection") {
		t.Errorf("the errors, whole, at 80 columns:\n%s", narrow)
	}
	top2 := RenderFleetText(ff, aggs.Snapshot(t0), ff.statuses(), 132, 2, false)
	table, errors, _ := strings.Cut(top2, "ERRORS")
	if !strings.Contains(errors, "prod-3:10003:") {
		t.Errorf("--top 2 leaves out the errors of the JVMs below it:\n%s", top2)
	}
	if n := strings.Count(table, "prod-"); n != 3 {
		t.Errorf("--top 2 shows %d rows naming prod- (the banner's and two)", n)
	}
}

// Names and causes are untrusted: what a host's name or a peer's error
// holds is shown as escapes on the overview too.
func TestFleetHostileNamesAreInert(t *testing.T) {
	f, ff := newTestFleet(t, 200, 50)
	ff.labels[0] = "evil\x1b]0;pwned\x07\u202e"
	ff.srcs[2].st.Cause = "refused \x1b[2J by \x9b31m"
	deliverFleet(f, ff)
	for _, keys := range [][]string{nil, {"down", "down"}} {
		pressFleet(f, keys...)
		screen := ansi.Strip(f.render())
		for _, bad := range []string{"\x1b", "\x07", "\x9b", "\u202e"} {
			if strings.Contains(screen, bad) {
				t.Fatalf("%q reached the terminal:\n%q", bad, screen)
			}
		}
	}
}

// However small the terminal, the overview fills it exactly, and keys
// still work.
func TestFleetTinyTerminals(t *testing.T) {
	for _, size := range [][2]int{{40, 12}, {20, 6}, {10, 3}} {
		f, ff := newTestFleet(t, size[0], size[1])
		for _, keys := range [][]string{nil, {"down", "down"}, {"?"}, {"x", "/", "p"}} {
			pressFleet(f, keys...)
			deliverFleet(f, ff)
			screen := f.render()
			if n := strings.Count(screen, "\n") + 1; n > size[1] {
				t.Fatalf("%dx%d after %v: %d lines", size[0], size[1], keys, n)
			}
			for i, l := range strings.Split(screen, "\n") {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Fatalf("%dx%d after %v: line %d is %d cells: %q", size[0], size[1], keys, i, w, ansi.Strip(l))
				}
			}
		}
	}
}

// LAST ERROR shows when a JVM has one to show (or the table is sorted by
// it): empty, its 20 cells went to no one while TOP LOCK was cut.
func TestFleetErrorColumnOnlyWithAnError(t *testing.T) {
	live := fleetRow{name: "a", status: client.Status{State: client.StateStreaming}}
	lost := fleetRow{name: "b", status: client.Status{State: client.StateReconnecting, Cause: "connection refused"}}
	for _, c := range []struct {
		rows    fleetRows
		sortCol int
		shown   bool
	}{
		{fleetRows{live, live}, 0, false},
		{fleetRows{live, lost}, 0, true},
		{fleetRows{live}, fleetColError, true},
	} {
		if got := !fleetColumns(c.rows, c.sortCol)[fleetColError].off; got != c.shown {
			t.Errorf("rows %v sorted by %d: LAST ERROR shown %v, want %v", c.rows, c.sortCol, got, c.shown)
		}
	}
}

// The fleet's deadlock banner wraps as the single JVM's does: on a
// small terminal the host, every thread and lock of the cycle and its
// end are said, on lines of at most the width (it was cut to one line,
// at the first lock's id).
func TestFleetDeadlockBannerWraps(t *testing.T) {
	for _, w := range []int{80, 200} {
		f, _ := newTestFleet(t, w, 24)
		d := f.rows[0].sum.Deadlocks[0]
		lines := f.banner()
		var text []string
		for _, l := range lines {
			plain := ansi.Strip(l)
			if n := ansi.StringWidth(plain); n > w {
				t.Errorf("%d columns: a line of %d cells: %q", w, n, plain)
			}
			text = append(text, strings.Fields(plain)...)
		}
		said := strings.Join(text, " ")
		if !strings.HasPrefix(said, "DEADLOCK on prod-1: ") || !strings.Contains(said, "→ back to "+d.Names[0]) {
			t.Errorf("%d columns: the banner lacks its host or the end of the cycle:\n%s", w, strings.Join(lines, "\n"))
		}
		for i := range d.Threads {
			if lock := fmt.Sprintf("@%x", d.Monitors[i]); !strings.Contains(said, d.Names[i]) || !strings.Contains(said, lock) {
				t.Errorf("%d columns: the banner lacks %s or its lock %s:\n%s", w, d.Names[i], lock, strings.Join(lines, "\n"))
			}
		}
		if w == 80 && (len(lines) < 2 || len(lines) > 4) {
			t.Errorf("80 columns: %d lines", len(lines))
		}
	}
}

// On a wide terminal the errors are said whole when there is room: TOP
// METHOD no longer takes it all ("prod-4:10002 closed the co…" beside a
// method padded with blanks).
func TestFleetWideErrorsAreWhole(t *testing.T) {
	f, _ := newTestFleet(t, 200, 50)
	screen := ansi.Strip(f.render())
	for _, line := range strings.Split(screen, "\n") {
		if strings.HasPrefix(line, "│prod-4/billing") && !strings.HasSuffix(strings.TrimRight(strings.TrimSuffix(line, "│"), " "), "closed the connection") {
			t.Fatalf("the error is cut, or not the row's:\n%s", screen)
		}
	}
	if !strings.Contains(screen, "closed the connection") {
		t.Fatalf("no error:\n%s", screen)
	}
}

// A JVM whose agent said it shut down reads "exited", and why, not a
// refused connection's question of whether its agent runs; a new JVM
// streaming there is live again.
func TestFleetRowOfAnExitedJVM(t *testing.T) {
	exited := time.Date(2026, 11, 21, 9, 30, 0, 0, time.Local)
	refused := "connection refused by 127.0.0.1:10010: is the profiler's agent controller running there?"
	for _, tc := range []struct {
		state      client.State
		exited     time.Time
		wantState  string
		wantCause  []string
		causeNotIn string
	}{
		{client.StateReconnecting, exited, "exited", []string{"the JVM exited at 09:30:00 (its agent said so)", "reconnecting in case it starts again"}, "agent controller"},
		{client.StateDisconnected, exited, "exited", []string{"the JVM exited at 09:30:00"}, "reconnecting"},
		{client.StateReconnecting, time.Time{}, "reconnecting", []string{refused}, ""},
		// Started again, and refusing: said after the exit.
		{client.StateReconnecting, exited, "exited", []string{"the JVM exited at 09:30:00", "authenticate: UNAUTHORIZED"}, ""},
		{client.StateChoosingAgent, exited, "choose agent", nil, ""},
		{client.StateStreaming, exited, "live", nil, ""},
	} {
		cause := refused
		if strings.Contains(strings.Join(tc.wantCause, ""), "UNAUTHORIZED") {
			cause = "authenticate: UNAUTHORIZED: wrong token"
		}
		rows := fleetRows{{name: "127.0.0.1:10010", status: client.Status{State: tc.state, Cause: cause, Refused: cause == refused}}}
		rows[0].sum.Process.Exited = tc.exited
		if got := rows.Cell(0, 1); got != tc.wantState {
			t.Errorf("%v, exited %v: state %q, want %q", tc.state, tc.exited, got, tc.wantState)
		}
		cause = rows.Cell(0, fleetColError)
		for _, w := range tc.wantCause {
			if !strings.Contains(cause, w) {
				t.Errorf("%v: cause %q, want %q", tc.state, cause, w)
			}
		}
		if tc.causeNotIn != "" && strings.Contains(cause, tc.causeNotIn) {
			t.Errorf("%v: cause %q says %q", tc.state, cause, tc.causeNotIn)
		}
	}
}

// A row's error leaves out the address its HOST says: cut in a narrow
// cell, "connection refused by 127.0.0.1…" had lost the port that told
// which JVM.
func TestFleetErrorCellLeavesOutTheAddress(t *testing.T) {
	for cause, want := range map[string]string{
		"connection refused by 127.0.0.1:12003: is the profiler's agent controller running there?": "connection refused: is the profiler's agent controller running there?",
		"127.0.0.1:12003 closed the connection":                                                    "closed the connection",
		"the trace stream from 127.0.0.1:12003 is malformed: bad magic":                            "the trace stream is malformed: bad magic",
		`cannot resolve host "prod-9": no such host`:                                               `cannot resolve host "prod-9": no such host`,
	} {
		rows := fleetRows{{name: "127.0.0.1:12003", status: client.Status{Source: "127.0.0.1:12003", State: client.StateReconnecting, Cause: cause}}}
		if got := rows.Cell(0, fleetColError); got != want {
			t.Errorf("%q: cell %q, want %q", cause, got, want)
		}
	}
}

// A JVM no longer connected shows the top method and lock it was last
// seen live with, not those of a window that goes on emptying after the
// connection went (its top method changed, then went blank); live again,
// it shows its own again.
func TestFleetRowKeepsWhatItWasLastSeenDoing(t *testing.T) {
	srcs := &fakeFleet{labels: []string{"prod-1"}}
	snap := func(method, lock string) *state.FleetSnapshot {
		return &state.FleetSnapshot{JVMs: []state.Summary{{Events: 10, Threads: 47, TopMethod: method, TopLock: lock}}}
	}
	st := func(s client.State) []client.Status { return []client.Status{{State: s}} }
	var seen []state.Summary
	var rows fleetRows
	rows, seen = buildFleetRows(srcs, snap("a.B.live", "a.Lock@1"), st(client.StateStreaming), rows, seen)
	for _, later := range []string{"c.D.older", ""} { // the window emptying
		rows, seen = buildFleetRows(srcs, snap(later, ""), st(client.StateReconnecting), rows, seen)
		if rows[0].sum.TopMethod != "a.B.live" || rows[0].sum.TopLock != "a.Lock@1" {
			t.Fatalf("not connected: top method %q, lock %q; want those last seen live", rows[0].sum.TopMethod, rows[0].sum.TopLock)
		}
	}
	rows, _ = buildFleetRows(srcs, snap("e.F.now", "b.Lock@2"), st(client.StateStreaming), rows, seen)
	if rows[0].sum.TopMethod != "e.F.now" || rows[0].sum.TopLock != "b.Lock@2" {
		t.Fatalf("live again: %q, %q", rows[0].sum.TopMethod, rows[0].sum.TopLock)
	}
}
