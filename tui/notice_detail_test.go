package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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
