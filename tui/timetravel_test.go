package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
	"github.com/proftop/proftop/state"
)

// historyModel is a model of w×h cells over 20 seconds of the simulated
// service with a picture a second: a deadlock from 3 s to 6 s, another
// from 15 s on (they begin every 8 s and last 4 s; see simulator.Config).
func historyModel(t *testing.T, w, h int) (*Model, *state.Aggregator) {
	t.Helper()
	time.Local = time.UTC // the moments shown are local times
	world := simulator.NewWorld(simulator.Config{Seed: 1, Start: t0, DeadlockEvery: 8 * time.Second, DeadlockFor: 4 * time.Second})
	agg := state.New(state.Options{})
	hist := state.NewHistory(state.HistoryOptions{})
	rec := state.NewRecorder(agg, hist)
	var b decode.Batch
	end := t0
	for s := 1; s <= 20; s++ {
		end = t0.Add(time.Duration(s) * time.Second)
		for world.Now().Before(end) {
			b.Add(world.Next())
		}
		agg.Apply(b.Events(), 1, decode.Clock{}, end)
		b.Reset()
		rec.Take(end)
	}
	src := &fakeSource{st: streamingStatus()}
	m := New(Config{Refresh: time.Second, Theme: ThemeDark, History: hist}, src, agg)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.fetched++
	m.Update(snapshotMsg{seq: m.fetched, snap: agg.Snapshot(end, m.query()), status: src.Status()})
	return m, agg
}

// run presses keys and carries out the commands they give that build
// call trees or write files, as the program would.
func run(m *Model, keys ...string) {
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		deliverCmd(m, cmd)
	}
}

func deliverCmd(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case treeMsg, fileMsg:
		m.Update(msg)
	case tea.BatchMsg:
		for _, c := range msg {
			deliverCmd(m, c)
		}
	}
}

func TestTimeTravelGoldenScreens(t *testing.T) {
	for _, tc := range []struct {
		name string
		w, h int
		keys []string
		want []string
	}{
		// Back to the latest mark: the second deadlock beginning.
		{"time-travel-deadlock-80x24", 80, 24, []string{"space", "N"}, []string{"PAST -5s, 09:00:15", "DEADLOCK:", "D"}},
		// Back past it, to the first deadlock, and into its monitor.
		{"time-travel-monitor-drill-in-80x24", 80, 24, []string{"space", "N", "N", "3", "/", "A", "c", "c", "o", "u", "n", "t", "enter", "enter"},
			[]string{"PAST -16s, 09:00:04", "Drill-in: Monitors", "part of a deadlock"}},
		{"timeline-200x60", 200, 60, []string{"space", "left", "left", "left"}, []string{"PAST -3s, 09:00:17", "history 19s", "├"}},
		{"time-travel-oldest-200x60", 200, 60, []string{"space", "home"}, []string{"PAST -19s, 09:00:01"}},
		{"call-tree-80x24", 80, 24, []string{"t"}, []string{"Call tree", "TOTAL%", "▾"}},
		{"call-tree-200x60", 200, 60, []string{"2", "t"}, []string{"Call tree", "Flame (icicle)", "▏"}},
		{"flame-80x24", 80, 24, []string{"t", "f"}, []string{"Flame (icicle)", "▏"}},
		{"call-tree-past-200x60", 200, 60, []string{"space", "N", "t"}, []string{"PAST -5s", "Call tree · the 10s to 09:00:15"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := historyModel(t, tc.w, tc.h)
			run(m, tc.keys...)
			screen := m.render()
			checkFrame(t, screen, tc.w, tc.h)
			for _, w := range tc.want {
				if !strings.Contains(ansi.Strip(screen), w) {
					t.Errorf("the screen lacks %q", w)
				}
			}
			golden(t, tc.name, screen)
		})
	}
}

// Stepping through the history shows each picture; the keys stop at the
// ends and say so.
func TestTimeTravelKeys(t *testing.T) {
	m, _ := historyModel(t, 120, 40)
	run(m, "left")
	if m.trip != nil {
		t.Fatal("the history is travelled only while frozen")
	}
	run(m, "space", "left")
	if m.trip.at != 18 || m.snap != m.trip.pics[18].Snap {
		t.Fatalf("at %d", m.trip.at)
	}
	run(m, "[")
	if m.trip.at != 0 {
		t.Fatalf("a minute back from 19 s: at %d", m.trip.at)
	}
	run(m, "left")
	if m.trip.at != 0 || !strings.Contains(m.notice, "oldest") {
		t.Fatalf("at %d, %q", m.trip.at, m.notice)
	}
	run(m, "]")
	if m.trip.at != 19 {
		t.Fatalf("a minute on: at %d", m.trip.at)
	}
	run(m, "home", "n")
	if p := m.trip.shown(); p == nil || p.Marks == 0 {
		t.Fatal("n found no mark")
	}
	// end, and → past the newest picture, go back to the moment frozen:
	// the latest, not the newest picture "-0s" before it.
	run(m, "end")
	if m.trip.at != -1 || m.snap != m.frozen || strings.Contains(ansi.Strip(m.render()), "PAST") {
		t.Fatalf("end: at %d", m.trip.at)
	}
	// The header counts the moment's events, and their rate since the
	// picture a second before, not the source's, which go on.
	if header := ansi.Strip(m.render()); !strings.Contains(header, "PAUSED   events "+count(m.frozen.Events)+"  19.") {
		t.Fatalf("the header of the moment frozen:\n%.300s", header)
	}
	run(m, "right")
	if m.trip.at != -1 || !strings.Contains(m.notice, "the latest") {
		t.Fatalf("at %d, %q", m.trip.at, m.notice)
	}
	run(m, "left", "right", "right") // the frozen snapshot is as old as the newest picture: ← shows the one before
	if m.trip.at != -1 || m.snap != m.frozen {
		t.Fatalf("→ from the newest picture: at %d", m.trip.at)
	}
	// New snapshots keep coming while frozen; the picture shown stays.
	shown := m.snap
	deliver(m, m.agg)
	if m.snap != shown {
		t.Fatal("a refresh replaced the picture shown")
	}
	run(m, "space")
	if m.trip != nil || m.snap != m.latest {
		t.Fatal("space did not go back to the present")
	}
}

// Frozen, the history goes on: the pictures taken since the freeze are of
// after the moment frozen, and → from the newest before it comes back to
// the moment frozen, not on to them (labelled PAST, newer than what was
// frozen).
func TestTimeTravelStopsAtTheMomentFrozen(t *testing.T) {
	m, agg := historyModel(t, 120, 40)
	run(m, "space")
	frozen := m.frozen
	later := state.NewRecorder(agg, m.cfg.History)
	for s := 1; s <= 3; s++ {
		later.Take(frozen.Taken.Add(time.Duration(s) * time.Second))
	}
	deliver(m, agg) // a refresh while frozen takes the history again
	if n := len(m.cfg.History.Pictures()); n != 23 {
		t.Fatalf("%d pictures in the history", n)
	}
	// As old as the newest picture before it, the moment frozen is one
	// step past it: ← twice, → three times.
	run(m, "left", "left", "right", "right", "right")
	if m.trip.at != -1 || m.snap != frozen {
		t.Fatalf("→ three times after ← twice: at %d of %d, not the moment frozen", m.trip.at, len(m.trip.pics))
	}
	run(m, "right")
	if m.trip.at != -1 || !strings.Contains(m.notice, "the latest") {
		t.Fatalf("→ past the moment frozen: at %d, %q", m.trip.at, m.notice)
	}
	// The moment frozen's call tree is the newest picture's window before
	// it, at every visit; not the live one's, which has a call made since.
	at := func(d time.Duration) decode.Ticks { return decode.Ticks(frozen.Taken.Add(d).UnixNano()) }
	agg.Apply([]decode.Event{
		&decode.ThreadStart{ThreadID: 9001, ThreadName: "late", Time: at(100 * time.Millisecond)},
		&decode.ClassDef{ClassID: 9001, Name: "com.late.Late"},
		&decode.MethodDef{MethodID: 9001, ClassIDRef: 9001, Name: "work"},
		&decode.MethodEntry{ThreadIDRef: 9001, MethodIDRef: 9001, Ticket: 1, Time: at(200 * time.Millisecond)},
		&decode.MethodExit{ThreadIDRef: 9001, Ticket: 1, Time: at(700 * time.Millisecond)},
	}, 1, decode.Clock{}, frozen.Taken.Add(800*time.Millisecond))
	want := state.PastCallTree(m.trip.pics, len(m.trip.pics)-1, 10*time.Second, nil, agg.TreeShape).Nodes[0].Total
	shape, live := agg.TreeAndShape(true)
	if state.BuildCallTree(shape, nil, live).Nodes[0].Total == want {
		t.Fatal("the live window has nothing the moment frozen had not")
	}
	if !m.recent {
		run(m, "2", "c") // the window's figures, which pictures keep
	}
	for visit, keys := range [][]string{{"t"}, {"left", "right"}} {
		run(m, keys...)
		if m.tree == nil || m.tree.Nodes[0].Total != want {
			got := int64(-1)
			if m.tree != nil {
				got = m.tree.Nodes[0].Total
			}
			t.Fatalf("visit %d of the moment frozen: its tree weighs %d, want %d", visit, got, want)
		}
	}
	// Frozen with the tree open, the tree is the moment frozen's at once:
	// the one a visit would show, not the live one of a moment before.
	run(m, "space")
	m.snap.Taken = frozen.Taken.Add(5 * time.Second) // live now: after the pictures taken since
	run(m, "space")
	if m.trip == nil || len(m.trip.pics) == 0 || m.tree == nil {
		t.Fatalf("not frozen with the tree open: trip %v, tree %v, paused %v, ctree %v", m.trip != nil, m.tree != nil, m.paused, m.ctree != nil)
	}
	if got, want := m.tree.Nodes[0].Total, state.PastCallTree(m.trip.pics, len(m.trip.pics)-1, 10*time.Second, nil, agg.TreeShape).Nodes[0].Total; got != want {
		t.Fatalf("frozen with the tree open: it weighs %d, the moment frozen's %d", got, want)
	}
}

// w writes a bundle and e a profile, off the UI goroutine, each saying so.
func TestBundleAndExportKeys(t *testing.T) {
	m, _ := historyModel(t, 80, 24)
	dir := t.TempDir()
	wd, _ := os.Getwd()
	os.Chdir(dir)
	defer os.Chdir(wd)
	var wrote string
	m.cfg.Bundle = func(path string, now time.Time) (string, error) {
		wrote = path
		return "bundle written: " + path, nil
	}
	run(m, "w")
	if !strings.HasPrefix(wrote, "proftop-bundle-") || !strings.HasSuffix(wrote, ".tar.gz") || m.notice != "bundle written: "+wrote || m.bundling {
		t.Fatalf("wrote %q, notice %q", wrote, m.notice)
	}
	run(m, "e")
	if !strings.HasPrefix(m.notice, "profile written: ") {
		t.Fatalf("notice %q", m.notice)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "proftop-profile-*"))
	if len(files) != 2 {
		t.Fatalf("files %v", files)
	}
	// The same moment exported again keeps the first export: it was
	// overwritten without a word.
	first := m.notice
	run(m, "e")
	files, _ = filepath.Glob(filepath.Join(dir, "proftop-profile-*"))
	if len(files) != 4 || !strings.Contains(m.notice, "-2.pb.gz") || first == m.notice {
		t.Fatalf("files %v, notice %q", files, m.notice)
	}
}

// The call tree opens on the method selected, expands and collapses, and
// filters by thread.
func TestCallTreeKeys(t *testing.T) {
	m, _ := historyModel(t, 120, 40)
	run(m, "2")
	name := m.methodSelected()
	run(m, "t")
	if m.tree == nil || m.ctree == nil {
		t.Fatal("no tree")
	}
	rows := m.treeRows()
	sel := rows[m.selected(rows)]
	if m.tree.Nodes[sel].Name != name {
		t.Fatalf("selected %q, want %q", m.tree.Nodes[sel].Name, name)
	}
	n := len(rows)
	run(m, "g", "down", "h")
	if len(m.treeRows()) >= n {
		t.Fatalf("h closed nothing: %d rows, %d before", len(m.treeRows()), n)
	}
	run(m, "l")
	if len(m.treeRows()) != n {
		t.Fatalf("l: %d rows, %d before", len(m.treeRows()), n)
	}
	all := m.tree.AllThreads
	run(m, "/", "e", "x", "e", "c", "-", "1", "$", "enter")
	if len(m.tree.Threads) != 1 || m.tree.AllThreads != all || !strings.Contains(m.treeTitle(), "1 of") {
		t.Fatalf("the filter kept %d threads of %d: %s", len(m.tree.Threads), m.tree.AllThreads, m.treeTitle())
	}
	run(m, "esc")
	if m.ctree != nil {
		t.Fatal("esc did not close the tree")
	}
}

// The first step back from a freeze lands on the newest picture, often
// less than a second before the moment frozen: the header says how much
// less, not "-0s", which read as no step at all.
func TestFirstStepBackSaysTheTenths(t *testing.T) {
	m, agg := historyModel(t, 200, 60)
	at := t0.Add(20*time.Second + 400*time.Millisecond)
	m.fetched++
	m.Update(snapshotMsg{seq: m.fetched, snap: agg.Snapshot(at, m.query()), status: m.src.Status()})
	run(m, "space", "left")
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "PAST -0.4s, 09:00:20") {
		t.Fatalf("the first step back:\n%s", screen)
	}
	run(m, "left")
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "PAST -1s, 09:00:19") {
		t.Fatalf("the second step back:\n%s", screen)
	}
}

// A thread's drill-in in a view frozen shows its stack, as live: the
// snapshot frozen had only the stack of the drill-in open when it was
// taken, and read "no stack reported".
func TestFrozenThreadDrillInHasItsStack(t *testing.T) {
	m, agg, _ := newTestModel(t, 120, 40)
	press(m, "enter")
	deliver(m, agg)
	live := ansi.Strip(m.render())
	if !strings.Contains(live, "Stack (thread poll") {
		t.Fatalf("live:\n%s", live)
	}
	press(m, "esc")
	deliver(m, agg) // a snapshot with no drill-in open: no stack in it
	press(m, "space", "enter")
	if frozen := ansi.Strip(m.render()); !strings.Contains(frozen, "Stack (thread poll") || strings.Contains(frozen, "no stack reported") {
		t.Fatalf("frozen:\n%s", frozen)
	}
}

// While a bundle is written the footer says so, after its notice has
// aged out or a key has cleared it: it showed the keys, as if done.
func TestFooterSaysABundleIsBeingWritten(t *testing.T) {
	m, _ := historyModel(t, 80, 24)
	m.cfg.Bundle = func(path string, now time.Time) (string, error) { return "bundle written: " + path, nil }
	_, cmd := m.Update(keyMsg("w"))
	if cmd == nil || !m.bundling {
		t.Fatal("w wrote nothing")
	}
	press(m, "j") // any key clears a notice
	if f := ansi.Strip(m.footer()); !strings.Contains(f, "writing the bundle proftop-bundle-") {
		t.Fatalf("footer while writing: %q", f)
	}
	m.Update(cmd())
	if f := ansi.Strip(m.footer()); !strings.Contains(f, "bundle written") {
		t.Fatalf("footer once written: %q", f)
	}
}

// Frozen after its source ended, the moment frozen says the events' rate
// the live view said (nothing comes in after the end), not the rate of
// the recording's last second ("events 1301 36/s" where live said 0/s); a
// picture of the past still says its own.
func TestFrozenEndedSourceKeepsTheLiveRate(t *testing.T) {
	for _, ended := range []bool{false, true} {
		m, agg := historyModel(t, 200, 60)
		st := streamingStatus()
		if ended {
			st.State, st.Cause, st.EventsPerSec = client.StateEnded, "end of file", 0
		}
		m.src.(*fakeSource).st = st
		m.fetched++
		m.Update(snapshotMsg{seq: m.fetched, snap: agg.Snapshot(t0.Add(20*time.Second), m.query()), status: st})
		live := ansi.Strip(m.render())
		run(m, "space")
		frozen := ansi.Strip(m.render())
		liveRate := regexp.MustCompile(`events \S+  (\S+/s)`).FindStringSubmatch(live)
		frozenRate := regexp.MustCompile(`events \S+  (\S+/s)`).FindStringSubmatch(frozen)
		if liveRate == nil || frozenRate == nil {
			t.Fatalf("ended %v: no rate in\n%.400s\nor\n%.400s", ended, live, frozen)
		}
		if same := liveRate[1] == frozenRate[1]; same != ended {
			t.Errorf("ended %v: live %s, frozen %s", ended, liveRate[1], frozenRate[1])
		}
		run(m, "left")
		if past := regexp.MustCompile(`events \S+  (\S+/s)`).FindStringSubmatch(ansi.Strip(m.render())); past == nil || past[1] == "0/s" || past[1] == "–/s" {
			t.Errorf("ended %v: a picture of the past says %v", ended, past)
		}
	}
}

// A bundle without its raw stream: nothing was received, the source has
// ended, and its history is all there is. Before freezing, the screen
// says nothing came, and why, not that it waits; frozen, how long ago a
// picture was is told from the latest picture, not from the wall clock
// (which read -156h).
func TestHistoryWithoutAStream(t *testing.T) {
	full, _ := historyModel(t, 200, 60)
	hist := full.cfg.History
	src := &fakeSource{st: client.Status{Source: "b.tar.gz", State: client.StateEnded, Cause: "the bundle holds no raw stream"}}
	agg := state.New(state.Options{TraceTime: true})
	m := New(Config{Refresh: time.Second, Theme: ThemeDark, History: hist}, src, agg)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	m.fetched++
	m.Update(snapshotMsg{seq: m.fetched, snap: agg.Snapshot(time.Now(), m.query()), status: src.Status()})
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "nothing came from b.tar.gz: the bundle holds no raw stream") || strings.Contains(screen, "waiting") {
		t.Fatalf("before freezing:\n%s", screen)
	}
	run(m, "space", "left", "left") // the newest picture, then the one before it
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "PAST -1s, 09:00:19") {
		t.Fatalf("a step back:\n%.400s", screen)
	}
}

// A still picture's moments read as it does live, cumulative: a
// snapshot's history is of one moment, which has no last seconds.
func TestStillSourcePicturesReadCumulative(t *testing.T) {
	m, _ := historyModel(t, 200, 60)
	m.status.Still = true
	run(m, "2", "space", "left", "left")
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "PAST") || !strings.Contains(screen, "Hot methods · cumulative") {
		t.Fatalf("a still source's past moment:\n%.900s", screen)
	}
	if m.snap.Recent || !m.trip.pics[m.trip.at].Snap.Recent {
		t.Fatal("the picture shown should be a cumulative copy, the history's own left as it was")
	}
}

// A bundle written while a past picture is shown says it is of now: its
// history holds the moment shown, its picture and threads are of now.
func TestBundleWrittenInThePastSaysItIsOfNow(t *testing.T) {
	m, _ := historyModel(t, 200, 60)
	m.cfg.Bundle = func(path string, now time.Time) (string, error) { return "bundle written: " + path, nil }
	press(m, "space", "left")
	if m.trip.shown() == nil {
		t.Fatal("no past picture shown")
	}
	m.Update(keyMsg("w"))
	if !strings.Contains(m.notice, "of now (its history holds the moment shown)") {
		t.Fatalf("notice %q", m.notice)
	}
}
