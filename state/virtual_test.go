package state

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

const vflag = decode.ThreadVirtual

// vthread is one virtual thread of a listing, for the tests.
type vthread struct {
	id        int64
	name      string
	state     string
	flags     int32
	lock      int64
	class     string
	owner     int64
	carrier   int64
	container string
	frames    []string
}

func (v vthread) event(at int) *decode.ThreadState {
	frames := v.frames
	if frames == nil {
		frames = []string{"java.lang.VirtualThread.park", "com.acme.Orders.await", "java.lang.VirtualThread.run"}
	}
	container := v.container
	if container == "" {
		container = "java.util.concurrent.ThreadPerTaskExecutor@1"
	}
	return &decode.ThreadState{ThreadIDRef: v.id, Time: ms(at), State: v.state, Flags: v.flags | vflag, LockObjIDRef: v.lock,
		LockClass: v.class, LockOwner: v.owner, CPUTime: -1, Stack: stack(frames...), Carrier: v.carrier, ThreadName: v.name,
		Container: container}
}

// listing feeds a listing of virtual threads at time at (ms after t0):
// the threads one by one, the groups, and the message that closes it.
func listing(a *Aggregator, at int, count int64, threads []vthread, groups ...*decode.ThreadGroup) {
	var evs []decode.Event
	for _, v := range threads {
		evs = append(evs, v.event(at))
	}
	for _, g := range groups {
		g.Time = ms(at)
		evs = append(evs, g)
	}
	evs = append(evs, &decode.VirtualThreads{Time: ms(at), Count: count, Started: 100, Ended: 10,
		Flags: decode.VirtualListing | decode.VirtualComplete, ListedAt: ms(at), Listed: int32(len(threads)), Groups: int32(len(groups)),
		Cost: 3_000_000, Period: 1_000_000_000})
	feed(a, evs...)
}

func groupOf(s *Snapshot, state string, site string) *VirtualGroup {
	for i := range s.VirtualGroups {
		g := &s.VirtualGroups[i]
		if VirtualStateLabel(g) == state && g.Site == site {
			return g
		}
	}
	return nil
}

// A listing is the virtual present: a handful of rows for thousands of
// threads, the lock they wait for with its waiters counted (listed or
// not), its owner a virtual thread; carriers show what they run; the
// thread table has platform threads only.
func TestVirtualListingIsThePresent(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	poll(a, 1000,
		polled{id: 1, state: "running", flags: decode.ThreadCarrier},
		polled{id: 2, state: "blocked", lock: 0x10, class: "com.acme.Ledger", owner: 101},
	)
	feed(a, &decode.ThreadState{ThreadIDRef: 3, Time: ms(1000), State: "running", Flags: decode.ThreadCarrier, CPUTime: -1, Carrier: 102},
		&decode.ThreadPoll{Time: ms(1000), Threads: 1})
	ledger := []string{"com.acme.Ledger.post", "java.lang.VirtualThread.run"}
	listing(a, 1100, 3204, []vthread{
		{id: 101, name: "ledger-owner", state: "sleeping", flags: decode.ThreadTimed, frames: []string{"java.lang.Thread.sleep", "com.acme.Ledger.post"}},
		{id: 102, state: "running", flags: decode.ThreadMounted, carrier: 3, frames: ledger},
		{id: 103, state: "blocked", lock: 0x10, class: "com.acme.Ledger", owner: 101, frames: ledger},
		{id: 104, state: "blocked", lock: 0x10, class: "com.acme.Ledger", owner: 101, frames: ledger},
		{id: 105, state: "parked", lock: 0x20, class: rl, frames: []string{"java.lang.VirtualThread.park", "java.util.concurrent.locks.ReentrantLock.lock", "com.acme.Stock.take"}},
		{id: 106, state: "sleeping", flags: decode.ThreadMounted | decode.ThreadPinned | decode.ThreadTimed, carrier: 1,
			frames: []string{"java.lang.VirtualThread.parkOnCarrierThread", "com.acme.Native.call"}},
	},
		&decode.ThreadGroup{Container: "java.util.concurrent.ThreadPerTaskExecutor@1", State: "parked", Flags: vflag, LockObjIDRef: 0x30,
			LockClass: "java.util.concurrent.CountDownLatch$Sync", Count: 3120, Site: "com.acme.Orders.await", Stack: stack("com.acme.Orders.await")},
		&decode.ThreadGroup{Container: "java.util.concurrent.ThreadPerTaskExecutor@1", State: "blocked", Flags: vflag, LockObjIDRef: 0x10,
			LockClass: "com.acme.Ledger", LockOwner: 101, Count: 76, Site: "com.acme.Ledger.post", Stack: stack(ledger...)},
		&decode.ThreadGroup{Container: "java.util.concurrent.ThreadPerTaskExecutor@1", State: "parked", Flags: vflag, LockObjIDRef: 0x20,
			LockClass: rl, Count: 2, Site: "com.acme.Stock.take", Stack: stack("com.acme.Stock.take")},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if s.Process.VirtualThreads != 3204 || s.Virtual == nil || s.Virtual.Count != 3204 || s.Virtual.Listed != 6 || !s.Virtual.Complete {
		t.Fatalf("summary %+v, process %+v", s.Virtual, s.Process)
	}
	for _, th := range s.Threads {
		if th.ID > 100 {
			t.Errorf("a virtual thread among the platform threads: %+v", th)
		}
	}
	want := map[string]int64{"parked": 3123, "blocked": 78, "sleeping": 1, "running": 1, "pinned": 1}
	for st, n := range want {
		if s.Virtual.ByState[st] != n {
			t.Errorf("by state: %v, want %s %d", s.Virtual.ByState, st, n)
		}
	}
	orders := groupOf(s, "parked", "com.acme.Orders.await")
	if orders == nil || orders.Count != 3120 || orders.Listed != 0 || orders.Lock != 0x30 || len(orders.Stack) != 1 {
		t.Fatalf("the parked group: %+v", orders)
	}
	if s.VirtualGroups[0].ID != orders.ID || orders.ID >= 0 {
		t.Errorf("the busiest group first, with a negative id: %+v", s.VirtualGroups[0])
	}
	blocked := groupOf(s, "blocked", "com.acme.Ledger.post")
	if blocked == nil || blocked.Count != 78 || blocked.Listed != 2 || len(blocked.Threads) != 2 || blocked.LockOwner != 101 ||
		blocked.OwnerName != "ledger-owner" || blocked.Threads[0].Name != "virtual-103" {
		t.Fatalf("the blocked group: %+v", blocked)
	}
	if g := groupOf(s, "pinned", "com.acme.Native.call"); g == nil || g.Threads[0].Carrier != 1 || !g.Mounted {
		t.Errorf("the pinned group: %+v", g)
	}
	if g := groupOf(s, "running", "com.acme.Ledger.post"); g == nil || g.Ready {
		t.Errorf("the running group: %+v", g)
	}
	m := monitorByObj(s, 0x10)
	if m == nil || m.Owner != 101 || !m.OwnerVirtual || m.OwnerName != "ledger-owner" || len(m.Waiters) != 3 ||
		m.VirtualWaiters != 78 || m.VirtualUnlistedBlocked != 76 || m.Class != "com.acme.Ledger" {
		t.Fatalf("the contended monitor: %+v", m)
	}
	virtualWaiters := 0
	for _, w := range m.Waiters {
		if w.Virtual {
			virtualWaiters++
		}
	}
	if virtualWaiters != 2 {
		t.Errorf("waiters: %+v", m.Waiters)
	}
	// A ReentrantLock whose owner the listing cannot tell: its waiters contend for it all the same.
	// Its site is the application's, below VirtualThread.park and the lock's own frames.
	if l := monitorByObj(s, 0x20); l == nil || l.VirtualUnlistedBlocked != 2 || len(l.Waiters) != 1 || l.Waiters[0].Waiting || !l.Synchronizer ||
		!strings.HasPrefix(l.Site, "com.acme.Stock.take") {
		t.Errorf("the lock: %+v", l)
	}
	if l := monitorByObj(s, 0x30); l == nil || l.VirtualUnlistedWaiting != 3120 || l.VirtualWaiters != 3120 {
		t.Errorf("the latch: %+v", l)
	}
	if th := threadByID(s, 3); th == nil || !th.VirtualCarrier || th.VirtualMounted != 102 || th.VirtualMountedName != "virtual-102" {
		t.Errorf("a carrier: %+v", th)
	}
	if th := threadByID(s, 2); th.LockOwnerName != "ledger-owner" {
		t.Errorf("a platform thread behind a virtual owner: %+v", th)
	}

	// The listing stays the present across polls, until the next one
	// replaces it; a stack left out is the previous listing's.
	poll(a, 2000, polled{id: 1, state: "running", flags: decode.ThreadCarrier})
	s = a.Snapshot(t0, Query{CallersOf: -1})
	if m := monitorByObj(s, 0x10); m.VirtualWaiters != 78 || m.Owner != 101 {
		t.Fatalf("after a poll: %+v", m)
	}
	// The listed virtual waiters' contentions in progress count in its
	// blocked time (JFR reports none for virtual threads), from the listing
	// that first saw them so.
	if m := monitorByObj(s, 0x10); m.BlockedMax != 900*time.Millisecond || m.BlockedSum != 1800*time.Millisecond {
		t.Errorf("blocked time after a poll: max %v, total %v; want 900ms, 1.8s", m.BlockedMax, m.BlockedSum)
	}
	listing(a, 2050, 3204, []vthread{{id: 103, state: "blocked", lock: 0x10, class: "com.acme.Ledger", owner: 101, frames: ledger},
		{id: 104, state: "blocked", lock: 0x20, class: rl, frames: ledger}})
	s = a.Snapshot(t0, Query{CallersOf: -1})
	if m := monitorByObj(s, 0x10); len(m.Waiters) != 1 || !m.Waiters[0].Since.Equal(time.Unix(0, int64(ms(1100)))) {
		t.Errorf("a waiter still blocked on its lock in the next listing: %+v", m.Waiters)
	}
	if m := monitorByObj(s, 0x20); len(m.Waiters) != 1 || !m.Waiters[0].Since.Equal(time.Unix(0, int64(ms(2050)))) {
		t.Errorf("a waiter blocked on another lock in the next listing: %+v", m.Waiters)
	}
	next := vthread{id: 103, state: "sleeping", flags: decode.ThreadStackUnchanged}
	listing(a, 2100, 1, []vthread{next})
	s = a.Snapshot(t0, Query{CallersOf: -1})
	if len(s.VirtualGroups) != 1 || s.VirtualGroups[0].Threads[0].Stack[0].Method != "com.acme.Ledger.post" {
		t.Fatalf("the next listing: %+v", s.VirtualGroups)
	}
	if m := monitorByObj(s, 0x10); m.VirtualWaiters != 0 || m.Owner != 0 {
		t.Errorf("the monitor after the next listing: %+v", m)
	}
}

// A deadlock between virtual threads, and one between a virtual and a
// platform thread, are found like any other.
func TestVirtualDeadlocks(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	poll(a, 1000, polled{id: 1, state: "blocked", lock: 0x40, class: "com.acme.B", owner: 203})
	listing(a, 1100, 3, []vthread{
		{id: 201, name: "va", state: "blocked", lock: 0x10, class: "com.acme.A", owner: 202},
		{id: 202, name: "vb", state: "blocked", lock: 0x20, class: "com.acme.A", owner: 201},
		{id: 203, name: "vc", state: "blocked", lock: 0x30, class: "com.acme.C", owner: 1},
	})
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if len(s.Deadlocks) != 2 {
		t.Fatalf("deadlocks: %+v", s.Deadlocks)
	}
	for _, d := range s.Deadlocks {
		names := strings.Join(d.Names, ",")
		switch names {
		case "va,vb":
			if len(d.Virtual) != 2 || !d.Virtual[0] || !d.Virtual[1] {
				t.Errorf("virtual flags: %+v", d)
			}
		case "main,vc":
			if len(d.Virtual) != 2 || d.Virtual[0] || !d.Virtual[1] {
				t.Errorf("virtual flags: %+v", d)
			}
		default:
			t.Errorf("deadlock %s", names)
		}
	}
}

// Memory stays bounded: threads listed beyond the bound, and groups beyond
// theirs, are counted in groups; the counts stay exact.
func TestVirtualListingIsBounded(t *testing.T) {
	a := New(Options{MaxVirtualListed: 3, MaxVirtualGroups: 2})
	var threads []vthread
	for i := range 10 {
		threads = append(threads, vthread{id: int64(300 + i), state: "parked", lock: 0x30, class: "java.util.concurrent.CountDownLatch$Sync"})
	}
	var groups []*decode.ThreadGroup
	for i := range 5 {
		groups = append(groups, &decode.ThreadGroup{Container: "c", State: "sleeping", Flags: vflag, Count: 10,
			Site: "com.acme.Site" + string(rune('A'+i))})
	}
	listing(a, 1000, 60, threads, groups...)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if s.Virtual.Listed != 3 || s.Virtual.Folded != 7 {
		t.Fatalf("summary %+v", s.Virtual)
	}
	var total int64
	for _, g := range s.VirtualGroups {
		total += g.Count
	}
	if total != 60 || len(s.VirtualGroups) > 4 {
		t.Fatalf("%d threads in %d groups: %+v", total, len(s.VirtualGroups), s.VirtualGroups)
	}
	if m := monitorByObj(s, 0x30); m.VirtualWaiters != 10 {
		t.Errorf("the latch: %+v", m)
	}
}

// A polled source's contentions and samples of threads no poll lists
// (virtual threads, which JFR reports) count for their locks and methods,
// and never become rows of the thread table.
func TestUnlistedThreadsMakeNoRows(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	poll(a, 1000, polled{id: 1, state: "running"})
	feed(a,
		&decode.MonContendedEnter{ThreadIDRef: 500, Time: ms(1100), ObjIDRef: 0x10, Stack: stack("com.acme.Ledger.post")},
		&decode.MonContendedEntered{ThreadIDRef: 500, Time: ms(1300), ObjIDRef: 0x10},
		&decode.Sample{ThreadIDRef: 500, Time: ms(1400), Count: 1, Weight: 20_000_000, Stack: stack("com.acme.Ledger.post")},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if th := threadByID(s, 500); th != nil {
		t.Fatalf("a row for an unlisted thread: %+v", th)
	}
	if m := monitorByObj(s, 0x10); m == nil || m.Enters != 1 || m.BlockedSum != 200*time.Millisecond {
		t.Fatalf("monitor: %+v", m)
	}
	if m := methodByName(s, "com.acme.Ledger.post"); m == nil || m.Self != 20*time.Millisecond {
		t.Fatalf("method: %+v", m)
	}
}

// The counts every poll give the rates; pinnings add up by site; a note
// stays until withdrawn; the JSON names are virtual….
func TestVirtualCountsPinningAndNotes(t *testing.T) {
	a := New(Options{})
	for i := range 4 {
		feed(a, &decode.VirtualThreads{Time: ms(1000 * (i + 1)), Count: int64(1000 + 10*i), Started: int64(5000 + 200*i),
			Ended: int64(100 * i), Flags: decode.VirtualEstimated, Period: 60_000_000_000})
	}
	feed(a,
		&decode.VirtualPinned{ThreadIDRef: 9, Time: ms(4000), Duration: 30_000_000, Carrier: 2, Reason: "Native frame",
			Operation: "Thread.sleep", Stack: stack("java.lang.VirtualThread.parkOnCarrierThread", "com.acme.Cache.<clinit>")},
		&decode.VirtualPinned{ThreadIDRef: 8, Time: ms(4100), Duration: 50_000_000, Stack: stack("com.acme.Cache.<clinit>")},
		&decode.SourceNote{Time: ms(4000), Topic: "virtual-threads", Level: 1, Text: "listed every 60 s"},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	v := s.Virtual
	if v == nil || v.Count != 1030 || !v.Estimated || v.StartedPerSec != 200 || v.EndedPerSec != 100 || v.ListingPeriod != time.Minute {
		t.Fatalf("summary %+v", v)
	}
	if len(s.VirtualPinning) != 1 || s.VirtualPinning[0].Count != 2 || s.VirtualPinning[0].Max != 50*time.Millisecond ||
		s.VirtualPinning[0].Total != 80*time.Millisecond || s.VirtualPinning[0].Site != "com.acme.Cache.<clinit>" {
		t.Fatalf("pinning %+v", s.VirtualPinning)
	}
	if len(s.Notes) != 1 || !s.Notes[0].Degraded || s.Notes[0].Text != "listed every 60 s" {
		t.Fatalf("notes %+v", s.Notes)
	}
	doc, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"virtualThreads":1030`, `"virtual":{"count":1030`, `"virtualPinning":[`, `"notes":[`} {
		if !strings.Contains(string(doc), key) {
			t.Errorf("no %s in %s", key, doc)
		}
	}
	feed(a, &decode.SourceNote{Time: ms(5000), Topic: "virtual-threads"})
	a.Reset()
	if s := a.Snapshot(t0, Query{CallersOf: -1}); len(s.Notes) != 0 || len(s.VirtualPinning) != 0 {
		t.Fatalf("after the note's withdrawal and a reset: %+v %+v", s.Notes, s.VirtualPinning)
	}
}

// A source that says nothing of virtual threads gets no virtual fields.
func TestNoVirtualThreadsNoVirtualFields(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	poll(a, 1000, polled{id: 1, state: "running"})
	doc, _ := json.Marshal(a.Snapshot(t0, Query{CallersOf: -1}))
	if strings.Contains(string(doc), "irtual") {
		t.Fatalf("virtual fields without virtual threads: %s", doc)
	}
}
