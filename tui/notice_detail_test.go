package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/state"
)

// A notice gives the footer back to the key hints after a while, unless
// a confirmation waits on it; a new notice starts its own while.
func TestNoticeAges(t *testing.T) {
	m := &Model{}
	t0 := time.Unix(1_000_000, 0)
	m.notice = "profile written: p.pb.gz"
	m.ageNotice(t0)
	m.ageNotice(t0.Add(noticeFor - time.Second))
	if m.notice == "" {
		t.Fatal("cleared before its time")
	}
	m.notice = "bundle written: b.tar.gz"
	m.ageNotice(t0.Add(noticeFor))
	if m.notice == "" {
		t.Fatal("a new notice cleared with the old one's age")
	}
	m.ageNotice(t0.Add(2 * noticeFor))
	if m.notice != "" {
		t.Fatalf("still %q after %v", m.notice, noticeFor)
	}
	m.notice, m.confirmReset = "press r again to reset", true
	m.ageNotice(t0)
	m.ageNotice(t0.Add(time.Hour))
	if m.notice == "" {
		t.Fatal("a confirmation's notice cleared")
	}
}

// A notice longer than the footer's line (a file written, with its path)
// takes a second line, which the body gives up: it was cut at the path.
func TestALongNoticeTakesTwoLines(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 24)
	short := strings.Split(ansi.Strip(m.render()), "\n")
	m.notice = "bundle written: /tmp/trial/proftop-bundle-20261127-085453.tar.gz (29.9 MiB; 63 pictures, 2 deadlocks, 2m0s of raw stream)"
	lines := strings.Split(ansi.Strip(m.render()), "\n")
	foot := strings.Join(lines[len(lines)-2:], " ")
	if len(lines) != 24 || len(short) != 24 || !strings.Contains(foot, "proftop-bundle-20261127-085453.tar.gz") || !strings.Contains(foot, "of raw stream)") {
		t.Fatalf("%d lines, the foot:\n%s", len(lines), strings.Join(lines[len(lines)-2:], "\n"))
	}
	for _, l := range lines {
		if widthOf(l) > 80 {
			t.Fatalf("a line of %d cells: %q", widthOf(l), l)
		}
	}
	// A terminal too short for it keeps its height: the notice is cut to
	// one line (it was one line taller than the terminal).
	for _, h := range []int{6, 8, 10} {
		m.Update(tea.WindowSizeMsg{Width: 60, Height: h})
		if n := len(strings.Split(m.render(), "\n")); n != h {
			t.Errorf("60×%d: %d lines", h, n)
		}
	}
}

// A thread's drill-in says which locks it holds and how many wait for
// each, as jstack's "- locked" lines do; not those of an ended thread.
func TestThreadDetailSaysWhatItHolds(t *testing.T) {
	st := NewStyles("dark")
	s := &state.Snapshot{Monitors: []state.Monitor{
		{Object: 0x7f3a01b0, Class: "com.acme.Account", Owner: 38, Waiters: []state.Waiter{{Thread: 41}, {Thread: 42}}},
		{Object: 0x7f3a0168, Class: "com.acme.Account", Owner: 41},
	}}
	th := &state.Thread{ID: 38, Name: "pool-2-thread-1", State: state.ThreadBlocked}
	text := ansi.Strip(strings.Join(threadDetail(th, s, &st), "\n"))
	if !strings.Contains(text, "holds com.acme.Account@7f3a01b0, 2 waiting for it") || strings.Contains(text, "7f3a0168") {
		t.Fatalf("drill-in:\n%s", text)
	}
	th.State = state.ThreadEnded
	if text := ansi.Strip(strings.Join(threadDetail(th, s, &st), "\n")); strings.Contains(text, "holds") {
		t.Fatalf("an ended thread holds:\n%s", text)
	}
}

// A thread's lock line reads as a sentence: the lock, then its owner.
func TestLockLine(t *testing.T) {
	st := PlainStyles()
	s := &state.Snapshot{}
	for _, tc := range []struct {
		th   state.Thread
		want string
	}{
		{state.Thread{State: state.ThreadWaiting, LockClass: "java.lang.Object", Monitor: 0x2d2e}, "waiting on java.lang.Object@2d2e, which no thread owns"},
		{state.Thread{State: state.ThreadBlocked, LockClass: "java.lang.Object", Monitor: 0x2d2e, LockOwner: 7, LockOwnerName: "worker-1"},
			"blocked on java.lang.Object@2d2e, owned by worker-1 (thread 7)"},
	} {
		if got := ansi.Strip(lockLine(&tc.th, s, &st)); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}

// A lock known by JFR's address only says so in its drill-in: it may be
// a lock of another row.
func TestMonitorKnownByAddressSaysSo(t *testing.T) {
	st := PlainStyles()
	s := &state.Snapshot{}
	for _, byAddress := range []bool{false, true} {
		m := &state.Monitor{Object: 0xf0925d40, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", ByAddress: byAddress}
		text := ansi.Strip(strings.Join(monitorDetail(m, s, &st), "\n"))
		if strings.Contains(text, "known by the address JFR gave its events only") != byAddress {
			t.Errorf("by address %v:\n%s", byAddress, text)
		}
	}
}

// A waiter says what is known of its wait's timeout: a poll's
// TIMED_WAITING has one, of a length it does not say; "no timeout" is
// said only of a WAITING state. And a wait's length is a lower bound when
// it was under way already at the first poll (its thread's row says its
// start was not seen): not when a poll saw it begin, nor when an event
// began it.
func TestMonitorDrillInWaiters(t *testing.T) {
	st := PlainStyles()
	clock := time.Unix(1_000, 0)
	began := clock.Add(-4800 * time.Millisecond)
	for _, tc := range []struct {
		name   string
		polled bool
		seen   bool // a poll saw it begin
		w      state.Waiter
		want   string
	}{
		{"polled wait(5000)", true, false, state.Waiter{Thread: 21, ThreadName: "timed-waiter", Waiting: true, State: state.ThreadTimedWaiting, Since: began},
			"● timed-waiter (thread 21) WAITING for at least 4.8s in Object.wait, with a timeout"},
		{"polled wait()", true, false, state.Waiter{Thread: 22, ThreadName: "waiter", Waiting: true, State: state.ThreadWaiting, Since: began},
			"● waiter (thread 22) WAITING for at least 4.8s in Object.wait, no timeout"},
		{"polled contention", true, false, state.Waiter{Thread: 23, ThreadName: "blocked", State: state.ThreadBlocked, Since: began},
			"● blocked (thread 23) BLOCKED for at least 4.8s"},
		{"polled wait(), seen beginning", true, true, state.Waiter{Thread: 22, ThreadName: "waiter", Waiting: true, State: state.ThreadWaiting, Since: began},
			"● waiter (thread 22) WAITING for 4.8s in Object.wait, no timeout"},
		{"polled contention, seen beginning", true, true, state.Waiter{Thread: 23, ThreadName: "blocked", State: state.ThreadBlocked, Since: began},
			"● blocked (thread 23) BLOCKED for 4.8s"},
		{"polled virtual thread", true, true, state.Waiter{Thread: 23, ThreadName: "blocked", Virtual: true, State: state.ThreadBlocked, Since: began},
			"● blocked (virtual thread 23) BLOCKED for at least 4.8s"},
		{"event wait(5000)", false, false, state.Waiter{Thread: 21, ThreadName: "timed-waiter", Waiting: true, State: state.ThreadTimedWaiting, Since: began, Timeout: 5 * time.Second},
			"● timed-waiter (thread 21) WAITING for 4.8s in Object.wait, timeout 5s"},
		{"event wait()", false, false, state.Waiter{Thread: 22, ThreadName: "waiter", Waiting: true, State: state.ThreadWaiting, Since: began},
			"● waiter (thread 22) WAITING for 4.8s in Object.wait, no timeout"},
		{"event contention", false, false, state.Waiter{Thread: 23, ThreadName: "blocked", State: state.ThreadBlocked, Since: began},
			"● blocked (thread 23) BLOCKED for 4.8s"},
	} {
		s := &state.Snapshot{Clock: clock, Polled: tc.polled, Threads: []state.Thread{
			{ID: tc.w.Thread, Name: tc.w.ThreadName, State: tc.w.State, Since: began.UnixNano(), SinceBegan: tc.seen}}}
		m := &state.Monitor{Object: 0x2d2e, Class: "java.lang.Object", Waiters: []state.Waiter{tc.w}}
		text := ansi.Strip(strings.Join(monitorDetail(m, s, &st), "\n"))
		if !strings.Contains(text, "\n  "+tc.want+"\n") {
			t.Errorf("%s: no %q in\n%s", tc.name, tc.want, text)
		}
		if said := strings.Contains(text, "Waiters (1), as the thread polls saw them"); said != tc.polled {
			t.Errorf("%s: polled %v, says the polls' times are what they saw %v:\n%s", tc.name, tc.polled, said, text)
		}
	}
}

// Polled, a waiter's time runs to the latest poll, not to now: the polls
// that saw it held up since then say it was so at least that long, and
// one poll alone says no length (a lock held for milliseconds at a time
// is entered anew between polls; a thread blocked on it at the latest
// poll read "for 1.07s" beside the lock's longest contention, 138 ms).
func TestPolledWaiterTimeRunsToTheLatestPoll(t *testing.T) {
	st := PlainStyles()
	clock := time.Unix(1_000, 0)
	polledAt := clock.Add(-700 * time.Millisecond)
	for _, tc := range []struct {
		name  string
		since time.Time
		want  string
	}{
		{"seen at three polls", polledAt.Add(-2 * time.Second), "● blocked (thread 23) BLOCKED for at least 2s"},
		{"seen at the latest poll only", polledAt, "● blocked (thread 23) BLOCKED at the latest poll"},
	} {
		s := &state.Snapshot{Clock: clock, Polled: true, PolledAt: polledAt, Threads: []state.Thread{
			{ID: 23, Name: "blocked", State: state.ThreadBlocked, Since: tc.since.UnixNano(), SinceBegan: true}}}
		m := &state.Monitor{Object: 0x2d2e, Class: "java.lang.Object", Waiters: []state.Waiter{{Thread: 23, ThreadName: "blocked", State: state.ThreadBlocked, Since: tc.since}}}
		text := ansi.Strip(strings.Join(monitorDetail(m, s, &st), "\n"))
		if !strings.Contains(text, "\n  "+tc.want+"\n") {
			t.Errorf("%s: no %q in\n%s", tc.name, tc.want, text)
		}
	}
}

// A thread's time in its state is a lower bound only when it was so
// already at the first poll; a poll that saw it begin, or an event, dates
// its start.
func TestThreadDetailTimeInState(t *testing.T) {
	st := PlainStyles()
	clock := time.Unix(1_000, 0)
	for _, tc := range []struct {
		polled, seen bool
		want         string
	}{
		{true, false, "in this state for at least 996ms (already so when watching began, or at the reset)"},
		{true, true, "in this state for 996ms\n"},
		{false, true, "in this state for 996ms\n"},
	} {
		th := &state.Thread{ID: 7, Name: "main", State: state.ThreadWaiting, Since: clock.Add(-996 * time.Millisecond).UnixNano(), SinceBegan: tc.seen}
		s := &state.Snapshot{Clock: clock, Polled: tc.polled}
		if text := ansi.Strip(strings.Join(threadDetail(th, s, &st), "\n")); !strings.Contains(text, tc.want) {
			t.Errorf("polled %v, seen beginning %v: no %q in\n%s", tc.polled, tc.seen, tc.want, text)
		}
	}
}

// The drill-in's sentences are whole lines, wrapped to the terminal's
// width: none ends a line mid-sentence at a width it was not wrapped to.
func TestMonitorByAddressWrapsAsOneSentence(t *testing.T) {
	st := PlainStyles()
	m := &state.Monitor{Object: 0xf0925d40, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", ByAddress: true}
	lines := wrapLines(monitorDetail(m, &state.Snapshot{}, &st), 78)
	text := ansi.Strip(strings.Join(lines, "\n"))
	want := "  known by the address JFR gave its events only: no look at the threads\n" +
		"    tied them to a lock, so it may be a lock of another row of its class,\n" +
		"    known there by its identity hash\n"
	if !strings.Contains(text, want) {
		t.Fatalf("wrapped:\n%s\nwant:\n%s", text, want)
	}
}

// After a reset (r r) the figures that count "since watching began"
// count from the reset, and say so: the callers of a method's drill-in,
// the call tree's and the help's monitor figures.
func TestFiguresAfterAResetSaySince(t *testing.T) {
	st := PlainStyles()
	reset := time.Date(2026, 11, 28, 2, 39, 39, 0, time.Local)
	for _, tc := range []struct {
		reset bool
		want  string
	}{
		{false, "Callers (since watching began, from method entries"},
		{true, "Callers (since the reset, at "},
	} {
		agg := state.New(state.Options{})
		agg.Apply([]decode.Event{&decode.ClassDef{ClassID: 1, Name: "a.B"}, &decode.MethodDef{MethodID: 1, ClassIDRef: 1, Name: "c"},
			&decode.ThreadStart{ThreadID: 1, ThreadName: "main"},
			&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 1, Ticket: 1, Time: 10}, &decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: 20}},
			1, decode.Clock{}, reset)
		if tc.reset {
			agg.Reset()
		}
		agg.Apply([]decode.Event{&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 1, Ticket: 2, Time: 30}, &decode.MethodExit{ThreadIDRef: 1, Ticket: 2, Time: 40}},
			1, decode.Clock{}, reset)
		s := agg.Snapshot(reset, state.Query{CallersOf: -1})
		if tc.reset && !strings.Contains(countedFrom(s), s.ResetAt.Local().Format("15:04:05")) {
			t.Errorf("%q does not say when the reset was (%v)", countedFrom(s), s.ResetAt)
		}
		text := ansi.Strip(strings.Join(methodDetail(&s.Methods[0], s, &st, false), "\n"))
		if !strings.Contains(text, tc.want) {
			t.Errorf("reset %v: no %q in\n%s", tc.reset, tc.want, text)
		}
	}
}
