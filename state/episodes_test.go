package state

import (
	"testing"

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
