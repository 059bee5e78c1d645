package state

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// Each table stops at its bound, whatever the stream names, and the
// snapshot counts what it turned away.
func TestTablesAreBoundedAndCountTheRest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   Options
		events func() []decode.Event
		check  func(s *Snapshot) error
	}{
		{"threads started", Options{MaxThreads: 100}, func() []decode.Event {
			var evs []decode.Event
			for id := int64(1); id <= 1000; id++ {
				evs = append(evs, &decode.ThreadStart{ThreadID: id, ThreadName: fmt.Sprint("t", id), Time: ms(1)})
			}
			return evs
		}, func(s *Snapshot) error {
			if len(s.Threads) != 100 || s.NotTracked.Threads != 900 {
				return fmt.Errorf("%d threads, %d not tracked", len(s.Threads), s.NotTracked.Threads)
			}
			return nil
		}},
		{"threads named by their events only", Options{MaxThreads: 10}, func() []decode.Event {
			var evs []decode.Event
			for id := int64(1); id <= 50; id++ {
				evs = append(evs, &decode.MonContendedEnter{ThreadIDRef: id, ObjIDRef: 7, Time: ms(2)},
					&decode.MonContendedEntered{ThreadIDRef: id, ObjIDRef: 7, Time: ms(3)})
			}
			return evs
		}, func(s *Snapshot) error {
			if len(s.Threads) != 10 || s.NotTracked.Threads != 40 {
				return fmt.Errorf("%d threads, %d not tracked", len(s.Threads), s.NotTracked.Threads)
			}
			return nil
		}},
		{"ended threads leave room", Options{MaxThreads: 10}, func() []decode.Event {
			var evs []decode.Event
			for id := int64(1); id <= 50; id++ {
				evs = append(evs, &decode.ThreadStart{ThreadID: id, Time: ms(1)}, &decode.ThreadEnd{ThreadMoment: decode.ThreadMoment{ThreadIDRef: id, Time: ms(2)}})
			}
			return evs
		}, func(s *Snapshot) error {
			if len(s.Threads) != 50 || s.NotTracked.Threads != 0 {
				return fmt.Errorf("%d threads, %d not tracked", len(s.Threads), s.NotTracked.Threads)
			}
			return nil
		}},
		{"methods defined", Options{MaxMethods: 100}, func() []decode.Event {
			evs := []decode.Event{&decode.ClassDef{ClassID: 1, Name: "C"}}
			for id := int64(1); id <= 500; id++ {
				evs = append(evs, &decode.MethodDef{MethodID: id, ClassIDRef: 1, Name: fmt.Sprint("m", id), Signature: "()V"},
					&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: id, Ticket: 1, Time: ms(1)},
					&decode.MethodExit{ThreadIDRef: 1, MethodIDRef: id, Ticket: 1, Time: ms(2)})
			}
			return evs
		}, func(s *Snapshot) error {
			if len(s.Methods) != 100 || s.NotTracked.Methods != 400 || s.Unpaired != 0 {
				return fmt.Errorf("%d methods, %d not tracked, %d unpaired exits", len(s.Methods), s.NotTracked.Methods, s.Unpaired)
			}
			return nil
		}},
		{"one method by ever new ids", Options{MaxMethods: 10}, func() []decode.Event {
			evs := []decode.Event{&decode.ClassDef{ClassID: 1, Name: "C"}}
			for id := int64(1); id <= 1000; id++ {
				evs = append(evs, &decode.MethodDef{MethodID: id, ClassIDRef: 1, Name: "same", Signature: "()V"})
			}
			return evs
		}, func(s *Snapshot) error {
			if s.NotTracked.Methods != 0 {
				return fmt.Errorf("%d not tracked", s.NotTracked.Methods)
			}
			return nil
		}},
		{"methods sampled", Options{MaxMethods: 100}, func() []decode.Event {
			var evs []decode.Event
			for i := range 300 {
				evs = append(evs, &decode.Sample{ThreadIDRef: 1, Time: ms(i), Count: 1, Weight: decode.Ticks(time.Millisecond),
					Stack: stack(fmt.Sprint("a.B.m", i), "a.B.main")})
			}
			return evs
		}, func(s *Snapshot) error {
			if len(s.Methods) != 100 || s.NotTracked.Methods != 201 {
				return fmt.Errorf("%d methods, %d not tracked", len(s.Methods), s.NotTracked.Methods)
			}
			return nil
		}},
		{"methods with long names", Options{MaxMethods: 100}, func() []decode.Event {
			// 100 methods may hold 25,600 bytes of names: six of 4,000 bytes.
			var evs []decode.Event
			for i := range 300 {
				evs = append(evs, &decode.Sample{ThreadIDRef: 1, Time: ms(i), Count: 1, Weight: decode.Ticks(time.Millisecond),
					Stack: stack(fmt.Sprintf("a.B.m%03d", i) + strings.Repeat("x", 3991))})
			}
			return evs
		}, func(s *Snapshot) error {
			if len(s.Methods) != 6 || s.NotTracked.Methods < 290 || s.NotTracked.Methods > 298 {
				return fmt.Errorf("%d methods, %d not tracked", len(s.Methods), s.NotTracked.Methods)
			}
			return nil
		}},
		{"busy monitors", Options{MaxMonitors: 80}, func() []decode.Event {
			// One owner holding every lock: none is idle, none can go.
			var evs []decode.Event
			for obj := int64(1); obj <= 200; obj++ {
				evs = append(evs, &decode.MonContendedEnter{ThreadIDRef: obj + 1, ObjIDRef: obj, ThreadOwner: 1, Time: ms(1)})
			}
			return evs
		}, func(s *Snapshot) error {
			if len(s.Monitors) != 80 || s.NotTracked.Monitors != 120 {
				return fmt.Errorf("%d monitors, %d not tracked", len(s.Monitors), s.NotTracked.Monitors)
			}
			return nil
		}},
		{"idle monitors make room", Options{MaxMonitors: 80}, func() []decode.Event {
			var evs []decode.Event
			// Each lock taken by a thread that then ends: nobody holds it after.
			for obj := int64(1); obj <= 1000; obj++ {
				evs = append(evs, &decode.MonContendedEnter{ThreadIDRef: obj, ObjIDRef: obj, Time: ms(int(obj))},
					&decode.MonContendedEntered{ThreadIDRef: obj, ObjIDRef: obj, Time: ms(int(obj))},
					&decode.ThreadEnd{ThreadMoment: decode.ThreadMoment{ThreadIDRef: obj, Time: ms(int(obj))}})
			}
			return evs
		}, func(s *Snapshot) error {
			if len(s.Monitors) > 80 || s.NotTracked.Monitors != 0 || monitorByObj(s, 1000) == nil {
				return fmt.Errorf("%d monitors, %d not tracked", len(s.Monitors), s.NotTracked.Monitors)
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(tc.opts)
			feed(a, tc.events()...)
			if err := tc.check(a.Snapshot(t0, Query{CallersOf: -1})); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A poll of more threads than the table holds: the picture shows the
// bound's worth, and the rest of the JVM's threads as not tracked, as of
// that poll.
func TestPollBeyondTheThreadBound(t *testing.T) {
	a := New(Options{MaxThreads: 3})
	var ps []polled
	for id := int64(1); id <= 5; id++ {
		ps = append(ps, polled{id: id, state: "running"})
	}
	poll(a, 1000, ps...)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if len(s.Threads) != 3 || s.NotTracked.Threads != 2 {
		t.Fatalf("%d threads, %d not tracked", len(s.Threads), s.NotTracked.Threads)
	}
	poll(a, 2000, ps[:3]...)
	if s := a.Snapshot(t0, Query{CallersOf: -1}); s.NotTracked.Threads != 0 {
		t.Fatalf("after a poll within the bound: %d not tracked", s.NotTracked.Threads)
	}
}

// The count of what was turned away is close to exact at any size.
func TestUntrackedCount(t *testing.T) {
	for _, n := range []int{1, 100, 12_345, NotTrackedExactUpTo, NotTrackedExactUpTo + 1, 300_000} {
		var u untracked
		u.add(0) // a hash like any other
		for i := range n - 1 {
			u.addID(int64(i + 1))
			u.addID(int64(i + 1)) // twice: counted once
		}
		u.add(0)
		got := u.count()
		if n <= NotTrackedExactUpTo && got != int64(n) {
			t.Errorf("%d distinct: counted %d, not exactly", n, got)
		}
		if d := float64(got-int64(n)) / float64(n); d < -0.005 || d > 0.005 {
			t.Errorf("%d distinct: counted %d", n, got)
		}
	}
}

// Stacks are cut at maxStackDepth frames.
func TestStacksAreCut(t *testing.T) {
	a := New(Options{})
	frames := make([]string, 5000)
	for i := range frames {
		frames[i] = fmt.Sprint("a.B.m", i)
	}
	feed(a, &decode.MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 9, Time: ms(1), Stack: stack(frames...)})
	s := a.Snapshot(t0, Query{CallersOf: -1, StackOf: 1})
	if th := threadByID(s, 1); th == nil || len(th.Stack) != maxStackDepth {
		t.Fatalf("%+v", th)
	}
}

// A stream naming 300,000 threads, a million methods and 100,000 busy
// monitors leaves the aggregator within its bounds: the heap it holds
// stays under 200 MiB (measured: about 95 MiB; docs/performance.md).
func TestHostileStreamHeapIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few hundred MiB")
	}
	a := New(Options{})
	var evs []decode.Event
	flush := func() {
		a.Apply(evs, 1, decode.Clock{Frequency: 1e9}, t0)
		evs = evs[:0]
	}
	for id := int64(1); id <= 300_000; id++ {
		evs = append(evs, &decode.ThreadStart{ThreadID: id, ThreadName: fmt.Sprint("worker-", id), GroupName: "main", Time: ms(1)})
		if len(evs) == 1024 {
			flush()
		}
	}
	for i := range 1_000_000 {
		evs = append(evs, &decode.Sample{ThreadIDRef: 1, Time: ms(2), Count: 1, Weight: 1000,
			Stack: stack(fmt.Sprint("com.example.Generated", i, ".method"), "java.lang.Thread.run")})
		if len(evs) == 1024 {
			flush()
		}
	}
	for obj := int64(1); obj <= 100_000; obj++ {
		evs = append(evs, &decode.MonContendedEnter{ThreadIDRef: 2 + obj%40_000, ObjIDRef: obj, ThreadOwner: 1, Time: ms(3)})
		if len(evs) == 1024 {
			flush()
		}
	}
	flush()
	evs = nil
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if len(s.Threads) != 50_000 || len(s.Methods) != 200_000 || len(s.Monitors) > 10_000 {
		t.Fatalf("%d threads, %d methods, %d monitors", len(s.Threads), len(s.Methods), len(s.Monitors))
	}
	nt := s.NotTracked
	if nt.Threads < 249_000 || nt.Threads > 251_000 || nt.Methods < 795_000 || nt.Methods > 805_000 || nt.Monitors < 85_000 {
		t.Fatalf("not tracked: %+v", nt)
	}
	s = nil
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	runtime.KeepAlive(a)
	t.Logf("heap in use with the aggregator full: %d MiB; not tracked %+v", m.HeapInuse>>20, nt)
	if m.HeapInuse > 200<<20 {
		t.Fatalf("the aggregator holds %d MiB", m.HeapInuse>>20)
	}
}
