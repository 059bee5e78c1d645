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
	} {
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
