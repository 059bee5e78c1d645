package tui

import (
	"fmt"
	"testing"
	"time"

	"github.com/proftop/proftop/state"
)

// A title too wide loses the sort, then the count, whole, before anything
// is cut: never half a part, nor the pane's name or what its figures mean.
func TestTitlesLoseWholePartsLeastFirst(t *testing.T) {
	for _, c := range []struct {
		title string
		w     int
		want  string
	}{
		{"Monitors · 0 · by time blocked ▼", 40, "Monitors · 0 · by time blocked ▼"},
		{"Monitors · 0 · by time blocked ▼", 26, "Monitors · 0"},
		{"Coverage · 71% of 21 lines ran · 2 · by class ▲", 45, "Coverage · 71% of 21 lines ran · 2"},
		{"Objects · per second over 10s · 1–16 of 48 · by live objects ▼ · 2083 freed of unknown class", 76,
			"Objects · per second over 10s · 1–16 of 48 · 2083 freed of unknown class"},
		{"Threads · 3 (of 40) /http · by CPU time ▼", 20, "Threads"},
		{"Hot methods · last 10s · sampled: SELF and TOTAL in samples · 1–18 of 22 · by self time ▼", 40,
			"Hot methods · last 10s · sampled: SELF and TOTAL in samples"}, // cut by the frame, from its end
	} {
		if got := fitTitle(c.title, c.w); got != c.want {
			t.Errorf("%q in %d: %q, want %q", c.title, c.w, got, c.want)
		}
	}
}

// A past picture's table that keeps the first of more rows says so: "of
// 100" read as all there were.
func TestPastPictureSaysItKeptTheFirstRows(t *testing.T) {
	s := &state.Snapshot{}
	for i := range 150 {
		s.Monitors = append(s.Monitors, state.Monitor{Object: int64(i + 1), Class: "org.h2.mvstore.tx.Transaction"})
	}
	pic := state.NewPicture(s, time.Unix(0, 0), 100).Snap
	rows := len(pic.Monitors)
	if got, want := keptTitle(pic, paneMonitors, rows), fmt.Sprintf(" · the first %d of 150 kept", rows); rows >= 150 || got != want {
		t.Errorf("%d rows kept: %q, want %q", rows, got, want)
	}
	if got := keptTitle(s, paneMonitors, 150); got != "" {
		t.Errorf("a live snapshot: %q", got)
	}
	if got := keptTitle(pic, paneThreads, 0); got != "" {
		t.Errorf("no thread dropped: %q", got)
	}
}

// An empty table of a past picture says there was none then, not that it
// waits for data: a picture of the past waits for nothing.
func TestPastPictureEmptyPaneWaitsForNothing(t *testing.T) {
	m := &Model{st: PlainStyles()}
	m.snap = state.NewPicture(&state.Snapshot{}, time.Unix(0, 0), 100).Snap
	if got := m.emptyPane(paneMethods, 0, 80); len(got) != 1 || got[0] != "none at this moment" {
		t.Fatalf("%q", got)
	}
	m.snap = &state.Snapshot{}
	if got := m.emptyPane(paneMethods, 0, 80); len(got) != 1 || got[0] != "waiting for data" {
		t.Fatalf("live: %q", got)
	}
}
