package state

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/proftop/proftop/decode"
)

// monitorListFaults says where the monitor table's lists disagree with its
// map: the list by last seen must hold exactly the map's monitors, linked
// both ways; the monitors awaiting a class name must be counted; once polled, every monitor with an owner, a waiter or
// unlisted threads must be in the held list, which stays bounded.
func monitorListFaults(mt *monitorTable) error {
	n := 0
	var prev *monitor
	for m := mt.oldest; m != nil; m = m.newer {
		if m.older != prev {
			return fmt.Errorf("monitor %#x: linked back to %p, not %p", m.obj, m.older, prev)
		}
		if !mt.has(m) {
			return fmt.Errorf("monitor %#x is in the list, not in the map", m.obj)
		}
		if n++; n > len(mt.byObj) {
			return fmt.Errorf("the list is longer than the map's %d monitors", len(mt.byObj))
		}
		prev = m
	}
	if prev != mt.newest || n != len(mt.byObj) {
		return fmt.Errorf("the list holds %d monitors ending at %p, the map %d ending at %p", n, prev, len(mt.byObj), mt.newest)
	}
	for _, m := range mt.spare {
		if mt.has(m) || m.listed || m.held || m.older != nil || m.newer != nil || mt.oldest == m {
			return fmt.Errorf("spare monitor %#x is still in the table or one of its lists", m.obj)
		}
	}
	if len(mt.spare) > mt.max/8+1 {
		return fmt.Errorf("%d spare monitors for a table of %d", len(mt.spare), mt.max)
	}
	waiting := 0
	for _, l := range mt.pending {
		waiting += len(l)
	}
	if waiting != mt.pendingN {
		return fmt.Errorf("%d monitors await a class name, counted %d", waiting, mt.pendingN)
	}
	if !mt.polled {
		return nil
	}
	for _, m := range mt.byObj {
		if (m.owner != nil || len(m.waiters) > 0 || m.unlistedBlocked+m.unlistedWaiting > 0) && !m.held {
			return fmt.Errorf("monitor %#x has an owner or waiters and is not held", m.obj)
		}
	}
	if len(mt.held) > 3*mt.max {
		return fmt.Errorf("%d monitors held, for a table of %d", len(mt.held), mt.max)
	}
	return nil
}

// A full table drops the idle monitors seen longest ago, in the order the
// events saw them: a monitor seen again goes to the end of the line, and
// one with a waiter or an owner stays however old.
func TestMonitorsExpireInTheOrderLastSeen(t *testing.T) {
	mt := &monitorTable{}
	mt.init(100, 10)
	owner, waiter := &thread{id: 1}, &thread{id: 2, state: ThreadBlocked}
	for obj := int64(1); obj <= 8; obj++ {
		mt.get(obj, 10) // all seen at the same moment
	}
	mt.get(1, 5)                     // seen again (its event a little late): the newest seen
	mt.contend(3, waiter, owner, 10) // busy
	mt.expire(5)
	var kept []int64
	for m := mt.oldest; m != nil; m = m.newer {
		kept = append(kept, m.obj)
	}
	if fmt.Sprint(kept) != "[6 7 8 1 3]" { // 2, 4 and 5 seen longest ago
		t.Fatalf("kept %v in the order last seen", kept)
	}
	if mt.byObj[1].lastSeen != 10 {
		t.Fatalf("monitor 1 last seen at %d: seen late, not earlier", mt.byObj[1].lastSeen)
	}
	if err := monitorListFaults(mt); err != nil {
		t.Fatal(err)
	}
}

// Once polled, a poll clears only the monitors the poll before gave an
// owner or a waiter (events between polls count episodes, they do not set
// the present), and that must be all of them: a lock the next poll does
// not mention is free, even after the table made room in between.
func TestPollClearsWhatThePollBeforeSet(t *testing.T) {
	a := New(Options{MaxMonitors: 40})
	feed(a, defs()...)
	poll(a, 1000, polled{id: 1, state: "running"}, polled{id: 2, state: "blocked", lock: 0x10, owner: 1},
		polled{id: 3, state: "waiting", lock: 0x20})
	var evs []decode.Event
	for obj := int64(0x100); obj < 0x100+200; obj++ { // more than the table holds: it makes room
		evs = append(evs, &decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: obj, ThreadOwner: 1, Time: ms(1100)},
			&decode.MonContendedEntered{ThreadIDRef: 2, ObjIDRef: obj, Time: ms(1100)})
	}
	feed(a, evs...)
	if err := monitorListFaults(&a.monitors); err != nil {
		t.Fatal(err)
	}
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if m := monitorByObj(s, 0x10); m == nil || m.Owner != 1 || len(m.Waiters) != 1 {
		t.Fatalf("a busy monitor after the table made room: %+v", m)
	}
	if m := monitorByObj(s, 0x20); m == nil || len(m.Waiters) != 1 {
		t.Fatalf("a monitor waited on after the table made room: %+v", m)
	}
	poll(a, 2000, polled{id: 1, state: "running"}, polled{id: 2, state: "running"}, polled{id: 3, state: "running"})
	if err := monitorListFaults(&a.monitors); err != nil {
		t.Fatal(err)
	}
	s = a.Snapshot(t0, Query{CallersOf: -1})
	for _, m := range s.Monitors {
		if m.Owner != 0 || len(m.Waiters) != 0 {
			t.Errorf("monitor %#x after a poll with no thread on a lock: %+v", m.Object, m)
		}
	}
	if len(s.Monitors) > 40 || monitorByObj(s, 0x10) == nil {
		t.Errorf("%d monitors, 0x10 among them: %v", len(s.Monitors), monitorByObj(s, 0x10) != nil)
	}
}

// A monitor is named by the class told for its object, just before its
// first event (the JVM agent's objClass) or among the latest allocations
// (a ring of them): an object told before those is not remembered. A
// monitor the table dropped and made again (a lock used again after a
// while) is named again.
func TestMonitorNamedByTheLatestObjectsTold(t *testing.T) {
	mt := &monitorTable{}
	mt.init(100, 4)
	mt.classDefined(1, "com.acme.Cache")
	for obj := int64(1); obj <= 7; obj++ {
		mt.classOf(obj, 1)
	}
	mt.classOf(9, 1)
	for obj, want := range map[int64]string{1: "", 4: "", 5: "com.acme.Cache", 7: "com.acme.Cache", 9: "com.acme.Cache", 8: ""} {
		if m := mt.get(obj, 1); m.class != want {
			t.Errorf("monitor %d: class %q, want %q", obj, m.class, want)
		}
	}
	mt.classOf(11, 2) // its class not yet defined: named when it is
	m := mt.get(11, 3)
	mt.classDefined(2, "com.acme.Lock")
	if m.class != "com.acme.Lock" {
		t.Errorf("monitor 11: class %q", m.class)
	}

	mt = &monitorTable{}
	mt.init(3, 8)
	mt.classDefined(1, "com.acme.Cache")
	for obj := int64(1); obj <= 4; obj++ {
		mt.classOf(obj, 1)
		mt.get(obj, obj) // the table holds 3: monitor 1 goes
	}
	if mt.byObj[1] != nil {
		t.Fatal("monitor 1 was not dropped")
	}
	if m := mt.get(1, 5); m.class != "com.acme.Cache" {
		t.Errorf("monitor 1 made again: class %q", m.class)
	}
}

// Monitors waiting for a class the stream never defines are bounded by
// the table, not by what the peer sends: a stream that names a hundred
// thousand short-lived locks by a class id it never defines (or by a
// hundred thousand such ids) must not keep them all.
func TestMonitorsAwaitingAClassNameAreBounded(t *testing.T) {
	for _, tc := range []struct {
		name    string
		classOf func(obj int64) int64
	}{
		{"one class id", func(int64) int64 { return 7 }},
		{"a class id each", func(obj int64) int64 { return obj }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := &monitorTable{}
			mt.init(100, 16)
			for obj := int64(1); obj <= 300_000; obj++ {
				mt.classOf(obj, tc.classOf(obj))
				mt.get(obj, obj)
			}
			waiting := 0
			for _, l := range mt.pending {
				waiting += len(l)
			}
			if waiting > 4*mt.max || len(mt.pending) > maxClasses {
				t.Fatalf("%d monitors awaiting the names of %d classes, for a table of %d", waiting, len(mt.pending), mt.max)
			}
			if err := monitorListFaults(mt); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A monitor the table dropped is made again clean, whether the next new
// monitor reuses its storage or not: nothing of the old lock shows on the
// new one.
func TestMonitorReusedClean(t *testing.T) {
	mt := &monitorTable{}
	mt.init(2, 8)
	mt.classDefined(1, "com.acme.Cache")
	owner, waiter := &thread{id: 1}, &thread{id: 2, state: ThreadBlocked}
	mt.classOf(10, 1)
	mt.contend(10, waiter, owner, 1)
	mt.entered(10, waiter, 2, 5_000)
	mt.forget(waiter, 3) // the holder ends: the lock is idle
	mt.deadlocks(nil)    // which lets it out of the busy list
	old := mt.byObj[10]
	old.site = "com.acme.Cache.get:12"
	mt.get(11, 4).enters = 3 // used more than 10
	mt.get(12, 5)            // the table holds 2: 10 goes, the least used
	if mt.byObj[10] != nil {
		t.Fatal("monitor 10 was not dropped")
	}
	if mt.byObj[12] != old {
		t.Fatalf("monitor 10's storage not reused (kept %d spare)", len(mt.spare))
	}
	if m := mt.byObj[12]; m.class != "" || m.site != "" || m.enters+m.blockedN+m.blockedSum+m.blockedMax != 0 || m.owner != nil || len(m.waiters) != 0 {
		t.Errorf("monitor 12 made after 10 was dropped: %+v", m)
	}
	for _, m := range mt.byObj {
		if m.obj == 12 {
			continue
		}
		if m.class != "" || m.site != "" || m.blockedN+m.blockedSum+m.blockedMax != 0 || m.owner != nil || len(m.waiters) != 0 {
			t.Errorf("monitor %d made after 10 was dropped: %+v", m.obj, m)
		}
	}
	if err := monitorListFaults(mt); err != nil {
		t.Fatal(err)
	}
}

// A new stream drops what the old one said of the monitors' present, the
// virtual threads counted in groups too: they hold no monitor of the new
// stream, which can drop it when full.
func TestNewStreamForgetsTheGroupsOnAMonitor(t *testing.T) {
	mt := &monitorTable{}
	mt.init(2, 8)
	m := mt.get(1, 1)
	m.unlistedBlocked, m.unlistedWaiting = 40, 2
	mt.newStream()
	mt.get(2, 2)
	mt.get(3, 3)
	if mt.byObj[1] != nil {
		t.Fatalf("monitor 1 kept, with %d+%d unlisted threads of the old stream", mt.byObj[1].unlistedBlocked, mt.byObj[1].unlistedWaiting)
	}
}

// leastUsed picks what a stable sort by uses would put first: the least
// used, the first walked among the equally used; counted or sorted.
func TestLeastUsedIsTheStableSortsFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 400 {
		cands := make([]dropCandidate, 1+rng.IntN(300))
		spread := []int64{1, 3, fewUses, 4 * fewUses}[trial%4]
		for i := range cands {
			cands[i] = dropCandidate{uses: rng.Int64N(spread + 1), m: &monitor{obj: int64(i)}}
			if trial%5 == 4 && rng.IntN(20) == 0 {
				cands[i].uses = -1 // a monitor made again by an estimate taken back
			}
		}
		n := rng.IntN(len(cands) + 2)
		want := slices.Clone(cands)
		slices.SortStableFunc(want, func(a, b dropCandidate) int { return cmp.Compare(a.uses, b.uses) })
		want = want[:min(n, len(want))]
		got := leastUsed(slices.Clone(cands), n)
		gotSet, wantSet := map[int64]bool{}, map[int64]bool{}
		for _, c := range got {
			gotSet[c.m.obj] = true
		}
		for _, c := range want {
			wantSet[c.m.obj] = true
		}
		if len(got) != len(want) || !maps.Equal(gotSet, wantSet) {
			t.Fatalf("trial %d: %d of %d (spread %d): got %d monitors, want %d, sets differ: %v", trial, n, len(cands), spread, len(got), len(want), !maps.Equal(gotSet, wantSet))
		}
	}
}
