package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/state"
)

// A collection timed at 0 (rbkit stamps collections to the millisecond)
// reads as under a millisecond, not as no pause; with no pause seen at
// all, the pause is unknown.
func TestPausesShorterThanTheSourcesClock(t *testing.T) {
	st := PlainStyles()
	for _, c := range []struct {
		gc   state.GC
		want string
	}{
		{state.GC{Count: 3, Pauses: []time.Duration{0, 2 * time.Millisecond, 0}}, "last pause <1ms"},
		{state.GC{Count: 1, Pauses: []time.Duration{2 * time.Millisecond}, LastPause: 2 * time.Millisecond}, "last pause 2ms"},
		{state.GC{Count: 5}, "last pause –"},
	} {
		s := &state.Snapshot{GC: c.gc, Window: 10 * time.Second}
		if got := strings.Join(renderGC(s, 100, 8, &st, false), "\n"); !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q lacks %q", c.gc, got, c.want)
		}
	}
}

// After a collection, until the next poll, the heap meter (of the
// collection) and the pools (of the poll before) differ: the pools say
// they are of before it.
func TestPoolsPolledBeforeTheLastCollectionSaySo(t *testing.T) {
	st := PlainStyles()
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	pools := []state.Pool{{Name: "G1 Eden Space", Heap: true, Used: 400 << 20, Committed: 512 << 20, At: at},
		{Name: "G1 Old Gen", Heap: true, Used: 100 << 20, Committed: 1 << 30, At: at}}
	for _, c := range []struct {
		name  string
		heap  []state.HeapSample
		stale bool
	}{
		{"the poll is the latest", []state.HeapSample{{At: at, Used: 500 << 20, Total: 1536 << 20}}, false},
		{"a collection since", []state.HeapSample{{At: at, Used: 500 << 20, Total: 1536 << 20}, {At: at.Add(300 * time.Millisecond), Used: 110 << 20, Total: 1536 << 20}}, true},
		{"a pool no longer reported, the others polled since", []state.HeapSample{{At: at.Add(300 * time.Millisecond), Used: 110 << 20, Total: 1536 << 20}},
			false},
	} {
		pools := pools
		if strings.HasPrefix(c.name, "a pool no longer") {
			pools = append([]state.Pool{{Name: "PS Eden Space", Heap: true, Used: 1 << 20, At: at.Add(-time.Minute)}}, pools...)
			for i := 1; i < len(pools); i++ {
				pools[i].At = at.Add(time.Second)
			}
		}
		s := &state.Snapshot{GC: state.GC{Count: 1, Heap: c.heap, Pools: pools}, Window: 10 * time.Second}
		got := strings.Join(renderGC(s, 100, 12, &st, false), "\n")
		if strings.Contains(got, "memory pools, as polled before the last collection:") != c.stale {
			t.Errorf("%s: said before the last collection or not, wrongly:\n%s", c.name, got)
		}
		if n := gcLines(&s.GC); len(strings.Split(strings.TrimRight(got, "\n "), "\n")) > n {
			t.Errorf("%s: more lines than gcLines's %d:\n%s", c.name, n, got)
		}
	}
}

// A row of collections by a collector the totals do not name says it
// holds those since the latest totals (rbkit's "Ruby GC" beside its minor
// and major counts); a collector not named at all is said so already.
func TestCollectorRowsSinceTheTotals(t *testing.T) {
	st := PlainStyles()
	s := &state.Snapshot{Window: 10 * time.Second, GC: state.GC{Count: 56, SinceStart: true, Collectors: []state.Collector{
		{Name: "minor GC", Count: 10}, {Name: "major GC", Count: 41}, {Name: "Ruby GC", Count: 5, SinceTotals: true},
		{Name: state.UnnamedCollector, Count: 1, SinceTotals: true}}}}
	got := strings.Join(renderGC(s, 100, 14, &st, false), "\n")
	if !strings.Contains(got, "Ruby GC (since the latest totals) 5 collections") || strings.Contains(got, "minor GC (since") ||
		!strings.Contains(got, state.UnnamedCollector+"  1 collection") {
		t.Errorf("%s", got)
	}
}

// A profile since the start covers what the call tree holds: since
// watching began (the first event), not since the process started.
func TestProfileSpanSinceWatchingBegan(t *testing.T) {
	end := time.Date(2026, 11, 27, 12, 41, 13, 0, time.UTC)
	s := &state.Snapshot{Clock: end, First: end.Add(-15 * time.Second), Window: 10 * time.Second}
	s.Process.Started = end.Add(-213 * time.Second)
	if sp := profileSpan(s, false); !sp.From.Equal(s.First) || !sp.To.Equal(end) {
		t.Errorf("since the start: %v to %v, want %v to %v", sp.From, sp.To, s.First, end)
	}
	if sp := profileSpan(s, true); !sp.From.Equal(end.Add(-10 * time.Second)) {
		t.Errorf("the window: from %v", sp.From)
	}
}

// A narrow GC pane keeps the collections' time since the process started
// in a shorter form rather than drop it.
func TestGCHeadlineInANarrowPane(t *testing.T) {
	st := PlainStyles()
	s := &state.Snapshot{Window: 10 * time.Second, GC: state.GC{Count: 1569, SinceStart: true, TotalTime: 2720 * time.Millisecond,
		Collectors: []state.Collector{{Name: "G1 Young Generation", Count: 1569, TotalTime: 2720 * time.Millisecond}}}}
	for w, want := range map[int]string{60: "collections 1569 since the process started, 2.72s", 46: "collections 1569 since start, 2.72s"} {
		if got := renderGC(s, w, 10, &st, false)[0]; strings.TrimRight(got, " ") != want {
			t.Errorf("%d cells: %q, want %q", w, got, want)
		}
	}
}

// The pools' figures stay in one column whatever their names' length.
func TestPoolColumnsAlign(t *testing.T) {
	st := PlainStyles()
	s := &state.Snapshot{Window: 10 * time.Second, GC: state.GC{Count: 1, Pools: []state.Pool{
		{Name: "G1 Eden Space", Heap: true, Used: 24 << 20, Committed: 512 << 20},
		{Name: "CodeHeap 'profiled nmethods'", Used: 9 << 20, Committed: 12 << 20}}}}
	var ends []int
	for _, l := range renderGC(s, 100, 14, &st, false) {
		if strings.HasPrefix(l, "  G1 ") || strings.HasPrefix(l, "  CodeHeap") {
			ends = append(ends, strings.Index(l, " of "))
		}
	}
	if len(ends) != 2 || ends[0] != ends[1] {
		t.Errorf("the pools' figures end at %v", ends)
	}
}
