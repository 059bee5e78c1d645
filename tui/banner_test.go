package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/state"
)

// The banner says how long a deadlock has lasted only when it saw it
// form; else how long it has been seen, and whether it was there before
// proftop attached.
func TestDeadlockAge(t *testing.T) {
	clock := time.Date(2026, 11, 26, 10, 0, 10, 0, time.UTC)
	since := clock.Add(-4 * time.Second)
	cases := []struct {
		d    state.Deadlock
		want string
	}{
		{state.Deadlock{Since: since}, " (for 4s)"},
		{state.Deadlock{Since: since, FirstSeen: true}, " (seen for 4s)"},
		{state.Deadlock{Since: since, FirstSeen: true, BeforeWatching: true}, " (formed before proftop attached; seen for 4s)"},
		{state.Deadlock{Since: clock, FirstSeen: true, BeforeWatching: true}, " (formed before proftop attached)"},
		{state.Deadlock{Since: clock}, ""},
	}
	for _, c := range cases {
		if got := deadlockAge(&c.d, clock); got != c.want {
			t.Errorf("%+v: %q, want %q", c.d, got, c.want)
		}
	}
}

// A deadlock too long for three lines loses its locks' packages, not its
// end: whom the cycle goes back to, and for how long (it was cut at "→ ba…").
// Two threads keep the packages' initials.
func TestDeadlockBannerKeepsItsEnd(t *testing.T) {
	st := PlainStyles()
	clock := time.Date(2026, 11, 27, 9, 0, 10, 0, time.UTC)
	s := &state.Snapshot{Clock: clock, Deadlocks: []state.Deadlock{{
		Threads:  []int64{31, 32, 33},
		Names:    []string{"juc-contender-1", "juc-contender-2", "juc-contender-3"},
		Classes:  []string{"java.util.concurrent.locks.ReentrantLock$NonfairSync", "java.util.concurrent.locks.ReentrantLock$NonfairSync", "java.util.concurrent.locks.ReentrantReadWriteLock$NonfairSync"},
		Monitors: []int64{0x38bb06f4, 0x5a07e868, 0x76ed5528},
		Since:    clock.Add(-7 * time.Second),
	}}}
	lines := renderDeadlocks(s, 80, &st)
	text := strings.Join(lines, " ")
	if len(lines) > 4 || !strings.Contains(text, "back to juc-contender-1 (for 7s)") || !strings.Contains(text, "ReentrantLock$NonfairSync@38bb06f4") {
		t.Fatalf("%d lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	two := *s
	two.Deadlocks = []state.Deadlock{s.Deadlocks[0]}
	d := &two.Deadlocks[0]
	d.Threads, d.Names, d.Classes, d.Monitors = d.Threads[:2], d.Names[:2], d.Classes[:2], d.Monitors[:2]
	if text := strings.Join(renderDeadlocks(&two, 80, &st), " "); !strings.Contains(text, "j.u.c.l.ReentrantLock$NonfairSync@38bb06f4") || !strings.Contains(text, "back to juc-contender-1 (for 7s)") {
		t.Fatalf("two threads:\n%s", text)
	}
	// Wide enough, the names are whole.
	if wide := strings.Join(renderDeadlocks(s, 200, &st), " "); !strings.Contains(wide, "java.util.concurrent.locks.ReentrantLock$NonfairSync@38bb06f4") {
		t.Fatalf("at 200 columns:\n%s", wide)
	}
}

func TestWrapWords(t *testing.T) {
	for _, tc := range []struct {
		text      string
		width, at int
		want      []string
	}{
		{"one two three", 20, 3, []string{"one two three"}},
		{"one two three four", 9, 3, []string{"one two", "three", "four"}},
		{"one two three four five", 9, 2, []string{"one two", "three fo…"}},
		{"a /very/long/path/that/does/not/fit here", 10, 3, []string{"a", "/very/lon…", "here"}},
	} {
		if got := wrapWords(tc.text, tc.width, tc.at); !slices.Equal(got, tc.want) {
			t.Errorf("wrapWords(%q, %d, %d) = %q, want %q", tc.text, tc.width, tc.at, got, tc.want)
		}
	}
	// Whole: as many lines as it takes, no word cut.
	if got, want := wrapWhole("a /very/long/path/that/does/not/fit here", 10), []string{"a", "/very/long/path/that/does/not/fit", "here"}; !slices.Equal(got, want) {
		t.Errorf("wrapWhole: %q, want %q", got, want)
	}
}

// The deadlocks that cleared with the latest are listed, not the latest
// alone (a JVM that exits takes them all at once), and those the
// process's exit ended say so: they did not clear. One that cleared
// before them is left to the history.
func TestDeadlocksClearedTogetherAreAllListed(t *testing.T) {
	defer func(l *time.Location) { time.Local = l }(time.Local)
	time.Local = time.UTC
	st := PlainStyles()
	clock := time.Date(2026, 11, 27, 9, 1, 0, 0, time.UTC)
	exited := clock.Add(-10 * time.Second)
	past := func(a, b string, since, until time.Duration) state.PastDeadlock {
		return state.PastDeadlock{Deadlock: state.Deadlock{Names: []string{a, b}}, Since: clock.Add(since), Until: clock.Add(until)}
	}
	s := &state.Snapshot{Clock: clock, Process: state.Process{Exited: exited}, RecentDeadlocks: []state.PastDeadlock{
		past("juc-1", "juc-2", -50*time.Second, -11*time.Second),
		past("mon-1", "mon-2", -49*time.Second, -11*time.Second),
		past("old-1", "old-2", -40*time.Second, -30*time.Second),
	}}
	lines := renderDeadlocks(s, 200, &st)
	want := []string{
		"last deadlock: juc-1 ⇄ juc-2, 09:00:10–09:00:49 (39s; the process exited with it unresolved)",
		"last deadlock: mon-1 ⇄ mon-2, 09:00:11–09:00:49 (38s; the process exited with it unresolved)",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i := range want {
		if got := strings.TrimRight(lines[i], " "); got != want[i] {
			t.Errorf("line %d:\n%q\nwant\n%q", i+1, got, want[i])
		}
	}
	// Without an exit, the same deadlocks cleared.
	s.Process.Exited = time.Time{}
	if text := strings.Join(renderDeadlocks(s, 200, &st), "\n"); strings.Contains(text, "exited") {
		t.Fatalf("no exit:\n%s", text)
	}
}

// Beyond three lines, the deadlocks that cleared with the latest are
// counted, not the older ones the history has.
func TestDeadlocksClearedTogetherBeyondThreeLines(t *testing.T) {
	st := PlainStyles()
	clock := time.Date(2026, 11, 27, 9, 1, 0, 0, time.UTC)
	var recent []state.PastDeadlock
	for i := range 4 {
		recent = append(recent, state.PastDeadlock{Deadlock: state.Deadlock{Names: []string{fmt.Sprint("a", i), fmt.Sprint("b", i)}},
			Since: clock.Add(-time.Minute), Until: clock.Add(-10 * time.Second)})
	}
	recent = append(recent, state.PastDeadlock{Deadlock: state.Deadlock{Names: []string{"old-1", "old-2"}},
		Since: clock.Add(-2 * time.Minute), Until: clock.Add(-90 * time.Second)})
	lines := renderDeadlocks(&state.Snapshot{Clock: clock, RecentDeadlocks: recent}, 200, &st)
	if len(lines) != 3 || !strings.HasSuffix(strings.TrimRight(lines[2], " "), "(and 1 more)") {
		t.Fatalf("%d lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
}
