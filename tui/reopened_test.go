package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/state"
)

// reopenedModel is the model of a bundle reopened: the history of
// historyModel written as a bundle writes it (history.jsonl, its call-tree
// weights) and read back, over an aggregator that knows nothing of it (a
// replay's plays only the stream of the last minutes).
func reopenedModel(t *testing.T, w, h int) (*Model, []*state.Picture) {
	t.Helper()
	rec, _ := historyModel(t, w, h)
	orig := rec.cfg.History.Pictures()
	var hist, trees bytes.Buffer
	for _, p := range orig {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		hist.Write(append(b, '\n'))
	}
	if err := state.NewPastTrees(orig, rec.agg.TreeShape()).Write(&trees); err != nil {
		t.Fatal(err)
	}
	var pics []*state.Picture
	for _, line := range bytes.Split(bytes.TrimSpace(hist.Bytes()), []byte("\n")) {
		p := &state.Picture{}
		if err := json.Unmarshal(line, p); err != nil {
			t.Fatal(err)
		}
		pics = append(pics, p)
	}
	if err := state.ReadPastTrees(&trees, pics); err != nil {
		t.Fatal(err)
	}
	reopened := state.NewHistory(state.HistoryOptions{Span: time.Hour})
	for _, p := range pics {
		reopened.Add(p)
	}
	agg := state.New(state.Options{})
	src := &fakeSource{st: streamingStatus()}
	m := New(Config{Refresh: time.Second, Theme: ThemeDark, History: reopened}, src, agg)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.fetched++
	m.Update(snapshotMsg{seq: m.fetched, snap: agg.Snapshot(t0.Add(20*time.Second), m.query()), status: src.Status()})
	return m, orig
}

// A reopened bundle's past moments have their call trees, and e exports
// them; a past method's drill-in shows its figures of then, over the
// window and since the start.
func TestReopenedBundleGoldenScreens(t *testing.T) {
	for _, tc := range []struct {
		name string
		w, h int
		keys []string
		want []string
	}{
		{"reopened-call-tree-past-80x24", 80, 24, append(toPicture(14), "2", "t"),
			[]string{"PAST -5s, 09:00:15", "Call tree · the 10s to 09:00:15", "all threads"}},
		{"reopened-call-tree-past-200x60", 200, 60, append(toPicture(14), "2", "t"),
			[]string{"PAST -5s, 09:00:15", "Call tree · the 10s to 09:00:15", "Flame (icicle)"}},
		{"reopened-method-drill-in-past-80x24", 80, 24, append(toPicture(14), "2", "g", "enter"),
			[]string{"PAST -5s, 09:00:15", "Over the last 10s to 09:00:15", "Since watching began, as of then"}},
		{"reopened-method-drill-in-past-200x60", 200, 60, append(toPicture(14), "2", "g", "enter"),
			[]string{"PAST -5s, 09:00:15", "Over the last 10s to 09:00:15", "Since watching began, as of then"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := reopenedModel(t, tc.w, tc.h)
			run(m, tc.keys...)
			screen := m.render()
			checkFrame(t, screen, tc.w, tc.h)
			plain := ansi.Strip(screen)
			for _, w := range tc.want {
				if !strings.Contains(plain, w) {
					t.Errorf("the screen lacks %q", w)
				}
			}
			if strings.Contains(plain, "no stacks") || strings.Contains(plain, "calls 0 ") {
				t.Errorf("an empty past:\n%s", plain)
			}
			golden(t, tc.name, screen)
		})
	}
}

// The drill-in of the hottest method at a past moment shows the figures
// of its row then, and those since the start as of then: not zeros (the
// picture's first row is slot 0, which the focused figures, empty in a
// picture, also named).
func TestPastMethodDrillInFigures(t *testing.T) {
	for _, reopen := range []bool{false, true} {
		var m *Model
		var pics []*state.Picture
		if reopen {
			m, pics = reopenedModel(t, 120, 40)
		} else {
			m, _ = historyModel(t, 120, 40)
			pics = m.cfg.History.Pictures()
		}
		run(m, append(toPicture(14), "2", "g", "enter")...)
		p := pics[14].Snap
		if !m.snap.Taken.Equal(p.Taken) || m.detail == nil {
			t.Fatalf("reopened %v: not at the fifteenth picture, or no drill-in", reopen)
		}
		row, since := &p.Methods[0], &p.Since[0]
		if row.Slot != 0 || row.Calls == 0 || since.Calls <= row.Calls {
			t.Fatalf("the picture's first row: %+v, since the start %+v", row, since)
		}
		plain := ansi.Strip(m.render())
		for _, want := range []string{
			fmt.Sprintf("calls %s  self %s", count(row.Calls), dur(row.Self)),
			fmt.Sprintf("calls %s  self %s", count(since.Calls), dur(since.Self)),
		} {
			if !strings.Contains(plain, want) {
				t.Errorf("reopened %v: the drill-in lacks %q:\n%s", reopen, want, plain)
			}
		}
	}
}

// toPicture are the keys that show the i-th picture: frozen, the oldest,
// then i steps on.
func toPicture(i int) []string {
	keys := []string{"space", "home"}
	for range i {
		keys = append(keys, "right")
	}
	return keys
}

// A past moment's export is named by that moment, and holds its tree.
func TestPastExportIsNamedByTheMoment(t *testing.T) {
	m, _ := reopenedModel(t, 120, 40)
	t.Chdir(t.TempDir())
	run(m, "space", "home", "right", "right", "right", "e")
	if !strings.HasPrefix(m.notice, "profile written: proftop-profile-20261121-090004.pb.gz") {
		t.Fatalf("notice %q", m.notice)
	}
}
