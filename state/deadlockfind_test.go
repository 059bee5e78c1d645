package state

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
)

// The deadlocks a snapshot keeps from the previous one while no lock
// changed are those a search finds afresh, through deadlocks forming and
// clearing, owners leaving with their frames and coming back.
func TestKeptDeadlocksAreThoseFoundAfresh(t *testing.T) {
	w := simulator.NewWorld(simulator.Config{Seed: 3, Start: t0, DeadlockEvery: 2 * time.Second, DeadlockFor: 3 * time.Second})
	a := New(Options{})
	at := t0
	found := 0
	for round := range 300 {
		var evs []decode.Event
		for range 700 {
			evs = append(evs, decode.Clone(w.Next()))
		}
		a.Apply(evs, 1, decode.Clock{}, at)
		at = at.Add(100 * time.Millisecond)
		for range 2 { // the second finds nothing changed
			s := a.Snapshot(at, Query{CallersOf: -1})
			fresh := a.monitors.deadlocks(&a.threads)
			if len(fresh) == 0 {
				fresh = []Deadlock{}
			}
			for i := range fresh {
				fresh[i].Since = time.Time{} // the snapshot's is from the log of deadlocks
			}
			got := make([]Deadlock, len(s.Deadlocks))
			for i, d := range s.Deadlocks {
				d.Since = time.Time{}
				got[i] = d
			}
			if !reflect.DeepEqual(got, fresh) {
				t.Fatalf("round %d: %+v, afresh %+v", round, got, fresh)
			}
			found += len(got)
		}
	}
	if found == 0 {
		t.Fatal("no deadlock seen")
	}
}

// An owner that leaves the synchronized frame it took a monitor in breaks
// the deadlock through it at once, and entering as deep again brings it back.
func TestDeadlockFollowsTheOwnersFrames(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a,
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 1, Time: ms(1)},
		&decode.MethodEntry{ThreadIDRef: 2, MethodIDRef: 11, Ticket: 2, Time: ms(2)},
		&decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: 5, ThreadOwner: 1, Time: ms(3)},
		&decode.MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 6, ThreadOwner: 2, Time: ms(4)},
	)
	count := func() int { return len(a.Snapshot(t0, Query{CallersOf: -1}).Deadlocks) }
	if n := count(); n != 1 {
		t.Fatalf("%d deadlocks, want 1", n)
	}
	feed(a, &decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: ms(5)})
	if n := count(); n != 0 {
		t.Fatalf("the owner left its frame, yet %d deadlocks", n)
	}
	feed(a, &decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 3, Time: ms(6)})
	if n, want := count(), len(a.monitors.deadlocks(&a.threads)); n != want {
		t.Fatalf("%d deadlocks, afresh %d", n, want)
	}
}

// An allocation that names a deadlocked monitor's class is in the next
// snapshot's deadlock, as a search afresh finds it.
func TestKeptDeadlockLearnsItsMonitorsClass(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a,
		&decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: 5, ThreadOwner: 1, Time: ms(3)},
		&decode.MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 6, ThreadOwner: 2, Time: ms(4)},
	)
	if d := a.Snapshot(t0, Query{CallersOf: -1}).Deadlocks; len(d) != 1 || slices.Contains(d[0].Classes, "com.acme.Cache") {
		t.Fatalf("before the allocation: %+v", d)
	}
	feed(a, &decode.ObjAlloc{ObjID: 5, ClassIDRef: 1, Time: ms(5)})
	if d := a.Snapshot(t0, Query{CallersOf: -1}).Deadlocks; len(d) != 1 || !slices.Contains(d[0].Classes, "com.acme.Cache") {
		t.Fatalf("the class named after: %+v", d)
	}
}
