package state

import (
	"slices"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// A thread a poll catches parked on a lock at an instant the lock has no
// owner (one owner let it go, the next has not taken it) contends for it:
// it is not waiting, whether JFR's exact report of it comes (a contention)
// or not (the polls' estimate). A park on a condition is a wait. The lock
// is known by its class (the JDK's locks) or by the source's say-so
// (decode.ThreadOnLock, for a lock class of the application's).
func TestParkOnAnUnownedLockIsContention(t *testing.T) {
	enter := func(obj int64, at int) decode.Event {
		return &decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: obj, Time: ms(at)}
	}
	entered := func(obj int64, at int) decode.Event {
		return &decode.MonContendedEntered{ThreadIDRef: 2, ObjIDRef: obj, Time: ms(at)}
	}
	cases := []struct {
		name          string
		parked        polled
		report        []decode.Event
		enters, waits int64
	}{
		{"a ReentrantLock, reported", polled{id: 2, state: "parked", lock: 0x20, class: rl}, []decode.Event{enter(0x20, 950), entered(0x20, 1200)}, 1, 0},
		{"a ReentrantLock, never reported", polled{id: 2, state: "parked", lock: 0x20, class: rl}, nil, 1, 0},
		{"a read-write lock", polled{id: 2, state: "parked", lock: 0x20, class: "java.util.concurrent.locks.ReentrantReadWriteLock$FairSync"}, nil, 1, 0},
		{"the application's lock, as the source says", polled{id: 2, state: "parked", lock: 0x20, class: "com.acme.Latchless$Sync", flags: decode.ThreadOnLock}, nil, 1, 0},
		{"a condition", polled{id: 2, state: "parked", lock: 0x20, class: cond}, nil, 0, 1},
		{"the application's synchronizer, unsaid", polled{id: 2, state: "parked", lock: 0x20, class: "com.acme.Latchless$Sync"}, nil, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := New(Options{})
			feed(a, defs()...)
			poll(a, 1000, polled{id: 1, state: "running"}, c.parked)
			s := a.Snapshot(t0, Query{CallersOf: -1})
			if m := monitorByObj(s, 0x20); len(m.Waiters) != 1 || m.Waiters[0].Waiting != (c.waits == 1) {
				t.Fatalf("while parked: waiters %+v", m.Waiters)
			}
			poll(a, 2000, polled{id: 1, state: "running"}, polled{id: 2, state: "running"})
			feed(a, c.report...)
			poll(a, 9000, polled{id: 1, state: "running"}, polled{id: 2, state: "running"}) // unreported: an estimate by now
			s = a.Snapshot(t0, Query{CallersOf: -1})
			m, th := monitorByObj(s, 0x20), threadByID(s, 2)
			if m.Enters != c.enters || m.Waits != c.waits || th.Contentions != c.enters {
				t.Fatalf("enters %d, waits %d, thread's contentions %d; want %d, %d, %d", m.Enters, m.Waits, th.Contentions, c.enters, c.waits, c.enters)
			}
		})
	}
}

// A wait or contention the source reports once it is over (JFR's, dated
// by its start) counts from when watching began (the first poll) at the
// earliest, as one still under way then does: a thread whose timed waits
// keep ending, the first of them begun a minute before proftop attached,
// reads no more than the time watched, like its neighbour's endless wait;
// after a reset, both count from the reset. One over before watching
// began counts for nothing.
func TestReportsCountFromWhenWatchingBegan(t *testing.T) {
	type report struct {
		due int // ms: a second after it ended
		evs []decode.Event
	}
	var reports []report
	wait := func(th, obj int64, from, to int) {
		reports = append(reports, report{to + 1000, []decode.Event{
			&decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: th, ObjIDRef: obj, Timeout: 3000, Time: ms(from)}},
			&decode.MonWaited{MonitorWait: decode.MonitorWait{ThreadIDRef: th, ObjIDRef: obj, Timeout: 3000, Time: ms(to)}}}})
	}
	block := func(th, obj int64, from, to int) {
		reports = append(reports, report{to + 1000, []decode.Event{
			&decode.MonContendedEnter{ThreadIDRef: th, ObjIDRef: obj, Time: ms(from)},
			&decode.MonContendedEntered{ThreadIDRef: th, ObjIDRef: obj, Time: ms(to)}}})
	}
	// The agent polls first, then starts JFR. Thread 2 waited on 0x50
	// until a second before watching began; it
	// waits on 0x20 from 2.5 s to 62.5 s, then 3 s at a time. Thread 1
	// contends for 0x40 from 30 s to 62 s, thread 99 (no poll lists it: a
	// virtual thread) from 40 s to 61.5 s. Thread 3 waits on 0x30 all along.
	wait(2, 0x50, 10_000, 60_000)
	block(99, 0x40, 40_000, 61_500)
	block(1, 0x40, 30_000, 62_000)
	wait(2, 0x20, 2_500, 62_500)
	for from := 62_500; from < 80_000; from += 3_000 {
		wait(2, 0x20, from, from+3_000)
	}
	slices.SortStableFunc(reports, func(x, y report) int { return x.due - y.due })

	a := New(Options{})
	feed(a, defs()...)
	at := 60_000
	until := func(end int) { // a poll a second, then the reports due by then
		for at < end {
			at += 1000
			one := polled{id: 1, state: "running"}
			if at < 62_000 {
				one = polled{id: 1, state: "blocked", lock: 0x40, class: "com.acme.Cache", owner: 3}
			}
			poll(a, at, one, polled{id: 2, state: "timed-waiting", lock: 0x20, class: "java.lang.Object", flags: decode.ThreadTimed},
				polled{id: 3, state: "waiting", lock: 0x30, class: "java.lang.Object"})
			for len(reports) > 0 && reports[0].due <= at {
				feed(a, reports[0].evs...)
				reports = reports[1:]
			}
		}
	}
	check := func(watched time.Duration) {
		t.Helper()
		s := a.Snapshot(t0, Query{CallersOf: -1})
		// Thread 2's latest wait is not reported yet: the polls' view of
		// it counts from the poll that saw the report before, up to a
		// second after the report's end and a second of delay.
		if w := threadByID(s, 2).Waiting; w > watched || w < watched-2*time.Second {
			t.Errorf("after %v watched: the looping waiter waited %v", watched, w)
		}
		if w := threadByID(s, 3).Waiting; w != watched {
			t.Errorf("after %v watched: the endless waiter waited %v", watched, w)
		}
	}
	until(71_000) // watching began at 61 s
	check(10 * time.Second)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if m := monitorByObj(s, 0x50); m != nil && m.Waits != 0 {
		t.Errorf("a wait over before watching began counts: %+v", m)
	}
	if b := threadByID(s, 1).Blocked; b != time.Second {
		t.Errorf("thread 1 blocked %v, want 1s (from 61 s to 62 s)", b)
	}
	// Thread 1's second, and thread 99's half second.
	if m := monitorByObj(s, 0x40); m.Enters != 2 || m.BlockedSum != 1500*time.Millisecond || m.BlockedMax != time.Second {
		t.Errorf("0x40: %d enters, blocked %v, at most %v; want 2, 1.5s, 1s", m.Enters, m.BlockedSum, m.BlockedMax)
	}
	a.Reset()
	until(76_000)
	check(5 * time.Second)
}

// An episode reported late to a source without polls (it began before the
// thread's present block or wait) counts from the latest reset at the
// earliest: begun before it, it was over by then.
func TestLateEpisodeCountsFromTheReset(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a, &decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: 2, ObjIDRef: 0x20, Time: ms(5000)}},
		&decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: 0x10, Time: ms(3000)}) // late: before the wait
	a.Reset()
	feed(a, &decode.MonContendedEntered{ThreadIDRef: 2, ObjIDRef: 0x10, Time: ms(4500)})
	if b := threadByID(a.Snapshot(t0, Query{CallersOf: -1}), 2).Blocked; b != 0 {
		t.Fatalf("blocked %v since the reset, over before it", b)
	}
}

// A thread's row says whether its Since is when its state began: not for
// a state the first poll found (under way when watching began), nor for
// one a reset moved to the reset; for one a poll saw begin, or an event
// began, yes.
func TestThreadRowsSinceBegan(t *testing.T) {
	began := func(a *Aggregator, id int64) bool {
		th := threadByID(a.Snapshot(t0, Query{CallersOf: -1}), id)
		if th.Since == 0 {
			t.Fatalf("thread %d: no since: %+v", id, th)
		}
		return th.SinceBegan
	}
	waiting := func(id int64) polled { return polled{id: id, state: "waiting", lock: 0x30, class: "java.lang.Object"} }
	a := New(Options{})
	feed(a, defs()...)
	poll(a, 1000, polled{id: 1, state: "running"}, waiting(2), polled{id: 3, state: "running"})
	poll(a, 2000, polled{id: 1, state: "running"}, waiting(2), waiting(3))
	if began(a, 2) || !began(a, 3) {
		t.Fatalf("polled: the first poll's wait began %v, the second's %v", began(a, 2), began(a, 3))
	}
	a.Reset()
	poll(a, 3000, polled{id: 1, state: "blocked", lock: 0x40, class: "com.acme.Cache", owner: 3}, waiting(2), waiting(3))
	if began(a, 3) || !began(a, 1) {
		t.Fatalf("polled, after a reset: the wait from before began %v, the block after %v", began(a, 3), began(a, 1))
	}

	a = New(Options{})
	feed(a, defs()...)
	feed(a, &decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: 2, ObjIDRef: 0x20, Time: ms(1000)}})
	if !began(a, 2) {
		t.Fatal("an event's wait: its start not seen")
	}
	a.Reset()
	if began(a, 2) {
		t.Fatal("an event's wait, after a reset: since is the reset's, said to be its start")
	}
}

// A thread in timed waits back to back, the first begun before watching
// began: JFR never reports that one, only those after it. The polls saw
// the thread waiting from the first; the first report (of the second
// wait) must not take the place of all they saw, or the thread's waiting
// column lost the first wait's watched part (here 3.5 s) for good, while
// its neighbour in an endless wait read the time watched. It reads, at
// every poll, at most the time watched and at least two seconds less (a
// report's delay, in which the polls' view of the latest wait counts only
// from the poll that saw the report before). The same for contention.
func TestAWaitBegunBeforeWatchingIsNotLostToTheNextReport(t *testing.T) {
	for _, waiting := range []bool{true, false} {
		a := New(Options{})
		feed(a, defs()...)
		report := map[int][]decode.Event{} // by the poll it arrives at: a second or two after it ended
		// The first wait, 59 s to 64.5 s, is not reported; then 3 s at a time.
		for from := 64_500; from < 90_000; from += 3_000 {
			evs := []decode.Event{
				&decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: 2, ObjIDRef: 0x20, Timeout: 3000, Time: ms(from)}},
				&decode.MonWaited{MonitorWait: decode.MonitorWait{ThreadIDRef: 2, ObjIDRef: 0x20, Timeout: 3000, Time: ms(from + 3000)}}}
			if !waiting {
				evs = []decode.Event{&decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: 0x20, Time: ms(from)},
					&decode.MonContendedEntered{ThreadIDRef: 2, ObjIDRef: 0x20, Time: ms(from + 3000)}}
			}
			due := (from+3000)/1000*1000 + 1000
			report[due] = append(report[due], evs...)
		}
		state := polled{id: 2, state: "timed-waiting", lock: 0x20, class: "java.lang.Object", flags: decode.ThreadTimed}
		if !waiting {
			state = polled{id: 2, state: "blocked", lock: 0x20, class: "com.acme.Cache", owner: 3}
		}
		for at := 61_000; at <= 85_000; at += 1000 {
			poll(a, at, state, polled{id: 3, state: "waiting", lock: 0x30, class: "java.lang.Object"})
			feed(a, report[at]...)
			s := a.Snapshot(t0, Query{CallersOf: -1})
			got := threadByID(s, 2).Waiting
			if !waiting {
				got = threadByID(s, 2).Blocked
			}
			watched := time.Duration(at-61_000) * time.Millisecond
			if got > watched || got < watched-2*time.Second {
				t.Fatalf("waiting %v: after %v watched, thread 2 read %v", waiting, watched, got)
			}
		}
	}
}

// The first poll is dated by its start, and reaches a large JVM's last
// threads hundreds of milliseconds later: a thread it saw blocked that
// began blocking meanwhile (JFR's report starts after the poll's date) is
// that one contention, not an earlier one besides.
func TestASlowFirstPollAddsNoContention(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	blocked := polled{id: 2, state: "blocked", lock: 0x20, class: "com.acme.Cache", owner: 3}
	poll(a, 61_000, blocked)
	feed(a, &decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: 0x20, Time: ms(61_140)},
		&decode.MonContendedEntered{ThreadIDRef: 2, ObjIDRef: 0x20, Time: ms(61_170)})
	poll(a, 62_000, blocked)
	feed(a, &decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: 0x20, Time: ms(61_900)},
		&decode.MonContendedEntered{ThreadIDRef: 2, ObjIDRef: 0x20, Time: ms(62_100)})
	poll(a, 63_000, polled{id: 2, state: "running"})
	poll(a, 70_000, polled{id: 2, state: "running"}) // anything left pending is an estimate by now
	th := threadByID(a.Snapshot(t0, Query{CallersOf: -1}), 2)
	if th.Contentions != 2 || th.Blocked != 230*time.Millisecond {
		t.Fatalf("%d contentions, %v blocked; want the 2 reported, 230ms", th.Contentions, th.Blocked)
	}
}
