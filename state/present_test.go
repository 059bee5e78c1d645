package state

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// polled is one thread's line of a poll, for the tests.
type polled struct {
	id    int64
	state string
	lock  int64
	class string
	owner int64
	cpu   time.Duration
	flags int32
	// blocked and waited are the thread's counts of blocks and waits (0: not said).
	blocked, waited int64
}

// poll feeds one complete poll at time at (ms after t0).
func poll(a *Aggregator, at int, threads ...polled) {
	var evs []decode.Event
	for _, p := range threads {
		evs = append(evs, &decode.ThreadState{ThreadIDRef: p.id, Time: ms(at), State: p.state, Flags: p.flags,
			LockObjIDRef: p.lock, LockClass: p.class, LockOwner: p.owner, CPUTime: decode.Ticks(p.cpu), BlockedCount: p.blocked, WaitedCount: p.waited,
			Stack: stack("com.acme.T"+p.state+".run", "java.lang.Thread.run")})
	}
	evs = append(evs, &decode.ThreadPoll{Time: ms(at), Threads: int32(len(threads)), Flags: decode.PollComplete})
	feed(a, evs...)
}

const (
	rl   = "java.util.concurrent.locks.ReentrantLock$NonfairSync"
	cond = "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject"
)

// The present is exactly the latest poll: states as jstack tells them,
// the lock each thread waits for with its owner, and the monitors' owners
// and waiters built from them; nothing older is kept.
func TestPollIsThePresent(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a, &decode.ThreadStart{ThreadID: 4, ThreadName: "pool-1", Time: ms(0)}, &decode.ThreadStart{ThreadID: 5, ThreadName: "gone", Time: ms(0)})
	poll(a, 1000,
		polled{id: 1, state: "running", cpu: 5 * time.Millisecond},
		polled{id: 2, state: "blocked", lock: 0x10, class: "com.acme.Cache", owner: 1},
		polled{id: 3, state: "parked", lock: 0x20, class: rl, owner: 2},
		polled{id: 4, state: "parked", lock: 0x30, class: cond, flags: decode.ThreadTimed},
		polled{id: 5, state: "sleeping"},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if !s.Polled || !s.PolledAt.Equal(t0.Add(time.Second)) {
		t.Fatalf("polled %v at %v", s.Polled, s.PolledAt)
	}
	want := map[int64]ThreadState{1: ThreadRunning, 2: ThreadBlocked, 3: ThreadParked, 4: ThreadParked, 5: ThreadSleeping}
	for id, st := range want {
		if th := threadByID(s, id); th == nil || th.State != st {
			t.Errorf("thread %d: %+v, want %v", id, th, st)
		}
	}
	if th := threadByID(s, 3); th.Monitor != 0x20 || th.LockClass != rl || th.LockOwner != 2 || th.LockOwnerName != "worker-1" {
		t.Errorf("parked on a lock: %+v", th)
	}
	if th := threadByID(s, 4); !th.Timed || th.Method != "com.acme.Tparked.run" {
		t.Errorf("parked on a condition: %+v", th)
	}
	cache, lock, queue := monitorByObj(s, 0x10), monitorByObj(s, 0x20), monitorByObj(s, 0x30)
	if cache.Owner != 1 || len(cache.Waiters) != 1 || cache.Waiters[0].Thread != 2 || cache.Waiters[0].Waiting || cache.Synchronizer {
		t.Errorf("monitor: %+v", cache)
	}
	if lock.Owner != 2 || len(lock.Waiters) != 1 || lock.Waiters[0].Waiting || !lock.Synchronizer || lock.Class != rl {
		t.Errorf("lock: %+v", lock)
	}
	if queue.Owner != 0 || len(queue.Waiters) != 1 || !queue.Waiters[0].Waiting {
		t.Errorf("condition: %+v", queue)
	}

	// The next poll: the contention is over, thread 5 is gone, a thread
	// the poll says owns nothing is not its own waiter.
	poll(a, 2000,
		polled{id: 1, state: "native", cpu: 9 * time.Millisecond},
		polled{id: 2, state: "running"},
		polled{id: 3, state: "blocked", lock: 0x10, class: "com.acme.Cache", owner: 3},
		polled{id: 4, state: "parked", lock: 0x30, class: cond},
	)
	s = a.Snapshot(t0, Query{CallersOf: -1})
	if th := threadByID(s, 5); th.State != ThreadEnded {
		t.Errorf("a thread missing from a complete poll: %+v", th)
	}
	if th := threadByID(s, 2); th.State != ThreadRunning || th.Monitor != 0 || th.Blocked != 0 || th.Contentions != 1 {
		t.Errorf("thread no longer blocked: %+v", th)
	}
	if cache = monitorByObj(s, 0x10); cache.Owner != 0 || len(cache.Waiters) != 1 || cache.Waiters[0].Thread != 3 {
		t.Errorf("a thread is never held up by itself: %+v", cache)
	}
	if lock = monitorByObj(s, 0x20); lock.Owner != 0 || len(lock.Waiters) != 0 {
		t.Errorf("the lock nobody waits for now: %+v", lock)
	}
	if th := threadByID(s, 1); th.State != ThreadNative || th.CPU != 9*time.Millisecond {
		t.Errorf("native thread: %+v", th)
	}
}

// A deadlock through java.util.concurrent locks is found from the poll:
// each thread parks on a lock the other owns.
func TestDeadlockThroughLocks(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	poll(a, 1000,
		polled{id: 2, state: "parked", lock: 0x20, class: rl, owner: 3},
		polled{id: 3, state: "blocked", lock: 0x10, class: "com.acme.Cache", owner: 2},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if len(s.Deadlocks) != 1 || len(s.Deadlocks[0].Threads) != 2 {
		t.Fatalf("deadlocks %+v", s.Deadlocks)
	}
	d := s.Deadlocks[0]
	if d.Threads[0] != 2 || d.Monitors[0] != 0x20 || d.Classes[0] != rl || d.Monitors[1] != 0x10 {
		t.Fatalf("deadlock %+v", d)
	}
}

// What polls see of a contention counts while no exact report has come;
// the exact report (JFR's, a second later) then takes its place, and an
// episode nobody reports counts as the polls saw it. Nothing twice.
func TestEpisodesCountOnce(t *testing.T) {
	enter := func(th, obj int64, at int) decode.Event {
		return &decode.MonContendedEnter{ThreadIDRef: th, ObjIDRef: obj, Time: ms(at)}
	}
	entered := func(th, obj int64, at int) decode.Event {
		return &decode.MonContendedEntered{ThreadIDRef: th, ObjIDRef: obj, Time: ms(at)}
	}
	blocked := polled{id: 2, state: "blocked", lock: 0x10, class: "com.acme.Cache", owner: 1}
	running := polled{id: 2, state: "running"}
	type step struct {
		poll  *polled // a poll at the step's time
		evs   []decode.Event
		at    int // ms
		check func(*Thread, *Monitor) string
	}
	want := func(blockedTotal time.Duration, contentions int64) func(*Thread, *Monitor) string {
		return func(th *Thread, m *Monitor) string {
			if th.Blocked != blockedTotal || th.Contentions != contentions || m.Enters != contentions || m.BlockedSum != blockedTotal {
				return "thread blocked " + th.Blocked.String() + ", monitor " + m.BlockedSum.String()
			}
			return ""
		}
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"reported after it ends", []step{
			{poll: &blocked, at: 1000, check: want(0, 1)},
			{poll: &blocked, at: 2000, check: want(time.Second, 1)},
			{poll: &running, at: 3000, check: want(time.Second, 1)}, // over: what the polls saw, until the report
			{evs: []decode.Event{enter(2, 0x10, 900), entered(2, 0x10, 2500)}, at: 3100, check: want(1600*time.Millisecond, 1)},
			{poll: &running, at: 9000, check: want(1600*time.Millisecond, 1)},
		}},
		{"reported while a poll still sees it", []step{
			{poll: &blocked, at: 1000},
			{evs: []decode.Event{enter(2, 0x10, 990), entered(2, 0x10, 1010)}, at: 1500, check: want(20*time.Millisecond, 1)},
			// The next poll sees it again: a new one.
			{poll: &blocked, at: 2000, check: want(20*time.Millisecond, 2)},
			// Seen by one poll only: it lasted 0 at the least.
			{poll: &running, at: 3000, check: want(20*time.Millisecond, 2)},
		}},
		{"never reported", []step{
			{poll: &blocked, at: 1000},
			{poll: &blocked, at: 3000},
			{poll: &running, at: 4000, check: want(2*time.Second, 1)},
			{poll: &running, at: 10000, check: want(2*time.Second, 1)}, // committed as an estimate
			// A report long after still takes its place.
			{evs: []decode.Event{enter(2, 0x10, 500), entered(2, 0x10, 3500)}, at: 11000, check: want(3*time.Second, 1)},
		}},
		{"two contentions seen as one", []step{
			{poll: &blocked, at: 1000},
			{poll: &blocked, at: 2000},
			{evs: []decode.Event{enter(2, 0x10, 995), entered(2, 0x10, 1005)}, at: 2100},
			{poll: &running, at: 3000, check: want(10*time.Millisecond, 2)},
		}},
		{"reported on another name of the lock", []step{
			{poll: &blocked, at: 1000},
			{poll: &running, at: 2000},
			{evs: []decode.Event{enter(2, 0x99, 900), entered(2, 0x99, 1500)}, at: 2100, check: func(th *Thread, m *Monitor) string {
				if th.Blocked != 600*time.Millisecond || th.Contentions != 1 || m.Enters != 0 {
					return "the report counts once, on the lock it names"
				}
				return ""
			}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := New(Options{})
			feed(a, defs()...)
			// Watching begins before any of the reports' starts: they
			// count whole (else from this poll on).
			poll(a, 100, polled{id: 1, state: "running"}, running, polled{id: 3, state: "running"})
			for i, st := range c.steps {
				if st.poll != nil {
					poll(a, st.at, polled{id: 1, state: "running"}, *st.poll, polled{id: 3, state: "running"})
				}
				feed(a, st.evs...)
				if st.check == nil {
					continue
				}
				s := a.Snapshot(t0, Query{CallersOf: -1})
				th, m := threadByID(s, 2), monitorByObj(s, 0x10)
				if msg := st.check(th, m); msg != "" {
					t.Fatalf("step %d: %s\nthread %+v\nmonitor %+v", i, msg, th, m)
				}
			}
		})
	}
}

// Samples give self time to the innermost frame, total time to every frame
// once (recursion included), and callers from the frames below.
func TestSamplesGiveSelfTotalAndCallers(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a,
		&decode.Sample{ThreadIDRef: 1, Time: ms(10), Count: 3, Weight: 30_000_000,
			Stack: stack("com.acme.Cache.get(I)V", "com.acme.Cache.walk", "com.acme.Cache.walk", "com.acme.Api.handle")},
		&decode.Sample{ThreadIDRef: 1, Time: ms(20), Count: 1, Weight: 10_000_000,
			Stack: stack("com.acme.Api.handle")},
		&decode.Sample{ThreadIDRef: 2, Time: ms(20), Count: 2, Weight: 4_000_000,
			Stack: stack("com.acme.Cache.get(J)V", "com.acme.Api.handle")},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if !s.Sampled {
		t.Fatal("not marked sampled")
	}
	byName := map[string][]*Method{}
	for i := range s.Methods {
		byName[s.MethodName(&s.Methods[i])] = append(byName[s.MethodName(&s.Methods[i])], &s.Methods[i])
	}
	if gets := byName["com.acme.Cache.get"]; len(gets) != 2 {
		t.Fatalf("overloads are two methods: %d", len(gets))
	}
	walk, handle := byName["com.acme.Cache.walk"][0], byName["com.acme.Api.handle"][0]
	if walk.Self != 0 || walk.Total != 30*time.Millisecond || walk.TotalSamples != 3 || walk.Calls != 0 {
		t.Errorf("walk %+v", walk)
	}
	if handle.Self != 10*time.Millisecond || handle.Samples != 1 || handle.Total != 44*time.Millisecond || handle.TotalSamples != 6 {
		t.Errorf("handle %+v", handle)
	}
	if s.TotalSelf != 44*time.Millisecond {
		t.Errorf("total self %v", s.TotalSelf)
	}
	s = a.Snapshot(t0, Query{CallersOf: walk.Slot})
	if len(s.Callers) != 2 || s.Callers[0].Name != "com.acme.Cache.walk" || s.Callers[0].Calls != 3 {
		t.Errorf("callers of walk %+v", s.Callers)
	}
	if th := threadByID(s, 2); th.Method != "com.acme.Cache.get(J)V" {
		t.Errorf("method of a sampled thread: %q", th.Method)
	}
}

// GC figures since the JVM started come from the collectors' totals; the
// heap is known at every poll from its pools; percentiles are nearest-rank.
func TestGCTotalsPoolsAndPercentiles(t *testing.T) {
	a := New(Options{})
	feed(a,
		&decode.GCTotals{Time: ms(0), Collector: "G1 Young Generation", Count: 40, TotalTime: 400_000_000},
		&decode.GCTotals{Time: ms(0), Collector: "G1 Old Generation", Count: 1, TotalTime: 90_000_000},
		&decode.MemoryPool{Time: ms(0), Name: "G1 Eden Space", Heap: 1, Used: 10 << 20, Committed: 30 << 20, Max: -1},
		&decode.MemoryPool{Time: ms(0), Name: "G1 Old Gen", Heap: 1, Used: 50 << 20, Committed: 100 << 20, Max: 200 << 20},
		&decode.MemoryPool{Time: ms(0), Name: "Metaspace", Used: 8 << 20, Committed: 9 << 20, Max: -1},
		&decode.Collection{Time: ms(100), Collector: "G1 Young Generation", Cause: "G1 Evacuation Pause", Pause: 5_000_000,
			UsedBefore: 60 << 20, UsedAfter: 52 << 20, Committed: 130 << 20},
		&decode.Collection{Time: ms(200), Collector: "G1 Young Generation", Cause: "G1 Evacuation Pause", Pause: 7_000_000,
			UsedBefore: 60 << 20, UsedAfter: 53 << 20, Committed: 130 << 20},
		&decode.Collection{Time: ms(300), Collector: "G1 Young Generation", Cause: "G1 Evacuation Pause", Pause: 9_000_000,
			UsedBefore: 60 << 20, UsedAfter: 54 << 20, Committed: 130 << 20},
		&decode.GCTotals{Time: ms(1000), Collector: "G1 Young Generation", Count: 43, TotalTime: 421_000_000},
		&decode.MemoryPool{Time: ms(1000), Name: "G1 Eden Space", Heap: 1, Used: 2 << 20, Committed: 30 << 20, Max: -1},
		&decode.MemoryPool{Time: ms(1000), Name: "G1 Old Gen", Heap: 1, Used: 54 << 20, Committed: 100 << 20, Max: 200 << 20},
	)
	g := a.Snapshot(t0, Query{CallersOf: -1}).GC
	if g.Count != 44 || !g.SinceStart || g.TotalTime != 511*time.Millisecond {
		t.Errorf("count %d since start %v total %v", g.Count, g.SinceStart, g.TotalTime)
	}
	if g.P50 != 7*time.Millisecond || g.P99 != 9*time.Millisecond || g.P99 > g.Max {
		t.Errorf("p50 %v p99 %v max %v", g.P50, g.P99, g.Max)
	}
	if g.Reclaimed != 21<<20 || g.LastCause != "G1 Evacuation Pause" || g.FreedKnown {
		t.Errorf("reclaimed %d cause %q freed known %v", g.Reclaimed, g.LastCause, g.FreedKnown)
	}
	if len(g.Pools) != 3 || g.Pools[0].Name != "G1 Eden Space" || g.Pools[0].Used != 2<<20 || g.Pools[2].Heap {
		t.Errorf("pools %+v", g.Pools)
	}
	last := g.Heap[len(g.Heap)-1]
	if last.Used != 56<<20 || last.Total != 130<<20 || !last.At.Equal(t0.Add(time.Second)) {
		t.Errorf("heap at the latest poll %+v", last)
	}
}

// A poll's pools need not carry one time to the nanosecond (the simulator's
// do not): they still make one sample of the whole heap, and the samples,
// collections' among them, stay in the order they were taken.
func TestHeapSamplesAreWholePollsInOrder(t *testing.T) {
	a := New(Options{})
	pools := func(at int) []decode.Event {
		return []decode.Event{
			&decode.MemoryPool{Time: ms(at), Name: "Eden", Heap: 1, Used: 10 << 20, Committed: 30 << 20, Max: -1},
			&decode.MemoryPool{Time: ms(at) + 40, Name: "Survivor", Heap: 1, Used: 1 << 20, Committed: 2 << 20, Max: -1},
			&decode.MemoryPool{Time: ms(at) + 90, Name: "Old", Heap: 1, Used: 50 << 20, Committed: 100 << 20, Max: -1},
			&decode.MemoryPool{Time: ms(at) + 95, Name: "Metaspace", Used: 8 << 20, Committed: 9 << 20, Max: -1},
		}
	}
	feed(a, pools(0)...)
	feed(a, &decode.Collection{Time: ms(500), Collector: "Young", Pause: 1_000_000, UsedBefore: 61 << 20, UsedAfter: 20 << 20, Committed: 132 << 20})
	feed(a, pools(1000)...)
	feed(a, pools(2000)...)
	heap := a.Snapshot(t0, Query{CallersOf: -1}).GC.Heap
	want := []HeapSample{
		{At: t0, Used: 61 << 20, Total: 132 << 20},
		{At: t0.Add(500 * time.Millisecond), Used: 20 << 20, Total: 132 << 20},
		{At: t0.Add(time.Second), Used: 61 << 20, Total: 132 << 20},
		{At: t0.Add(2 * time.Second), Used: 61 << 20, Total: 132 << 20},
	}
	if len(heap) != len(want) {
		t.Fatalf("%d heap samples, want %d: %+v", len(heap), len(want), heap)
	}
	for i := range want {
		if !heap[i].At.Equal(want[i].At) || heap[i].Used != want[i].Used || heap[i].Total != want[i].Total {
			t.Errorf("sample %d: %+v, want %+v", i, heap[i], want[i])
		}
	}
}

// The process saying it shuts down ends every thread.
func TestShutdownEndsTheThreads(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	poll(a, 1000, polled{id: 1, state: "running"}, polled{id: 2, state: "blocked", lock: 0x10, owner: 1})
	feed(a, &decode.RuntimeShutdown{ThreadMoment: decode.ThreadMoment{Time: ms(1500)}})
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if !s.Process.Exited.Equal(t0.Add(1500 * time.Millisecond)) {
		t.Fatalf("exited %v", s.Process.Exited)
	}
	for _, th := range s.Threads {
		if th.State != ThreadEnded {
			t.Errorf("%+v", th)
		}
	}
	if m := monitorByObj(s, 0x10); len(m.Waiters) != 0 || m.Enters != 1 {
		t.Errorf("monitor after the end %+v", m)
	}
	// A thread told of after (one the shutdown starts, a SIGTERM
	// handler) went with the process: it is not listed running.
	feed(a, &decode.ThreadStart{ThreadID: 30, ThreadName: "SIGTERM handler", Time: ms(1600)})
	for _, th := range a.Snapshot(t0, Query{CallersOf: -1}).Threads {
		if th.State != ThreadEnded {
			t.Errorf("after the shutdown: %+v", th)
		}
	}
	// Told again later (the client finding the process gone): the first
	// telling is when it exited.
	feed(a, &decode.RuntimeShutdown{ThreadMoment: decode.ThreadMoment{Time: ms(4000)}})
	if s := a.Snapshot(t0, Query{CallersOf: -1}); !s.Process.Exited.Equal(t0.Add(1500 * time.Millisecond)) {
		t.Fatalf("exited %v after a second telling", s.Process.Exited)
	}
}

// Grouping folds the locks of one class taken at one place into a row.
func TestGroupedMonitors(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	poll(a, 1000,
		polled{id: 2, state: "blocked", lock: 0x10, class: "org.h2.Tx", owner: 1},
		polled{id: 3, state: "blocked", lock: 0x11, class: "org.h2.Tx", owner: 1},
		polled{id: 1, state: "running"},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1, GroupMonitors: true})
	if len(s.Monitors) != 1 || s.Monitors[0].Grouped != 2 || len(s.Monitors[0].Waiters) != 2 || s.Monitors[0].Enters != 2 {
		t.Fatalf("%+v", s.Monitors)
	}
}

// A poll cut by the thread bound keeps its first threads and counts the rest.
func TestPollIsBounded(t *testing.T) {
	a := New(Options{MaxThreads: 2})
	poll(a, 1000, polled{id: 1, state: "running"}, polled{id: 2, state: "running"}, polled{id: 3, state: "running"})
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if len(s.Threads) != 2 || s.NotTracked.Threads != 1 {
		t.Fatalf("%d threads, %d not tracked", len(s.Threads), s.NotTracked.Threads)
	}
}

// A deadlock's monitors keep what it cost once it is over: the time its
// threads were blocked counts in the totals and the maximum, while it lasts
// (so that it sorts first by time blocked) and after its threads are
// killed, never less than was shown while it lasted; and the deadlock is
// remembered, with when it was.
func TestDeadlockCostStaysAfterItEnds(t *testing.T) {
	for _, byPoll := range []bool{false, true} {
		a := New(Options{})
		feed(a, defs()...)
		if byPoll {
			poll(a, 0,
				polled{id: 2, state: "blocked", lock: 0x10, class: "Account", owner: 3},
				polled{id: 3, state: "blocked", lock: 0x11, class: "Account", owner: 2},
				polled{id: 1, state: "running"})
			poll(a, 15000,
				polled{id: 2, state: "blocked", lock: 0x10, class: "Account", owner: 3},
				polled{id: 3, state: "blocked", lock: 0x11, class: "Account", owner: 2},
				polled{id: 1, state: "running"})
			// Events after the poll: the snapshot counts the deadlock to them.
			feed(a, &decode.GCStart{ThreadMoment: decode.ThreadMoment{Time: ms(15400)}})
		} else {
			feed(a,
				&decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: 0x10, ThreadOwner: 3, Time: ms(0)},
				&decode.MonContendedEnter{ThreadIDRef: 3, ObjIDRef: 0x11, ThreadOwner: 2, Time: ms(0)},
				&decode.GCStart{ThreadMoment: decode.ThreadMoment{Time: ms(15000)}})
		}
		s := a.Snapshot(t0, Query{CallersOf: -1})
		if len(s.Deadlocks) != 1 {
			t.Fatalf("by poll %v: deadlocks %+v", byPoll, s.Deadlocks)
		}
		lasting := *monitorByObj(s, 0x10)
		if lasting.BlockedSum < 15*time.Second || lasting.BlockedMax < 15*time.Second {
			t.Fatalf("by poll %v: while it lasts %+v", byPoll, lasting)
		}
		feed(a,
			&decode.ThreadEnd{ThreadMoment: decode.ThreadMoment{ThreadIDRef: 2, Time: ms(15500)}},
			&decode.ThreadEnd{ThreadMoment: decode.ThreadMoment{ThreadIDRef: 3, Time: ms(15500)}})
		if byPoll {
			poll(a, 22000, polled{id: 1, state: "running"}) // past the wait for a report that never comes
		}
		s = a.Snapshot(t0, Query{CallersOf: -1})
		m := monitorByObj(s, 0x10)
		if len(s.Deadlocks) != 0 || m.BlockedSum < lasting.BlockedSum || m.BlockedMax < lasting.BlockedMax || m.Enters != 1 {
			t.Fatalf("by poll %v: after it ended %+v, while it lasted %+v (deadlocks %v)", byPoll, m, lasting, s.Deadlocks)
		}
		if len(s.RecentDeadlocks) != 1 || len(s.RecentDeadlocks[0].Threads) != 2 {
			t.Fatalf("by poll %v: recent deadlocks %+v", byPoll, s.RecentDeadlocks)
		}
	}
}

// Two overloads of a method show apart: by their signatures, or by their
// lines when those are the same.
func TestOverloadsShowApart(t *testing.T) {
	a := New(Options{})
	feed(a,
		&decode.ClassDef{ClassID: 1, Name: "com.acme.Ledger"},
		&decode.MethodDef{Name: "post", Signature: "(J)V", ClassIDRef: 1, MethodID: 1, StartLineNumber: 10},
		&decode.MethodDef{Name: "post", Signature: "(Ljava/lang/String;)V", ClassIDRef: 1, MethodID: 2, StartLineNumber: 20},
		&decode.MethodDef{Name: "get", ClassIDRef: 1, MethodID: 3, StartLineNumber: 30},
		&decode.MethodDef{Name: "get", ClassIDRef: 1, MethodID: 4, StartLineNumber: 40},
		&decode.AgMethodEntry{ThreadIDRef: 1, MethodIDRef: 1, BaseTime: 1, NumCalls: 1},
		&decode.AgMethodEntry{ThreadIDRef: 1, MethodIDRef: 2, BaseTime: 1, NumCalls: 1},
		&decode.AgMethodEntry{ThreadIDRef: 1, MethodIDRef: 3, BaseTime: 1, NumCalls: 1},
		&decode.AgMethodEntry{ThreadIDRef: 1, MethodIDRef: 4, BaseTime: 1, NumCalls: 1},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	for _, name := range []string{"com.acme.Ledger.post(J)V", "com.acme.Ledger.post(Ljava/lang/String;)V", "com.acme.Ledger.get:30", "com.acme.Ledger.get:40"} {
		if methodByName(s, name) == nil {
			var names []string
			for i := range s.Methods {
				names = append(names, s.MethodName(&s.Methods[i]))
			}
			t.Errorf("no %s among %v", name, names)
		}
	}
}

// Pauses that end after the collectors' totals were read count at once,
// their time with them: the count and the time of the headline agree,
// and the collectors' rows add up to them.
func TestGCPausesAheadOfTheTotals(t *testing.T) {
	a := New(Options{})
	feed(a,
		&decode.GCTotals{Time: ms(0), Collector: "G1 Young Generation", Count: 1, TotalTime: 30_000_000},
		&decode.Collection{Time: ms(100), Collector: "G1 Young Generation", Pause: 30_000_000, UsedAfter: -1},
		&decode.Collection{Time: ms(900), Collector: "G1 Young Generation", Pause: 9_000_000, UsedAfter: -1},
	)
	feed(a, &decode.Collection{Time: ms(950), Collector: "G1 Old Generation", Pause: 100_000_000, UsedAfter: -1})
	g := a.Snapshot(t0, Query{CallersOf: -1}).GC
	if g.Count != 4 || g.TotalTime != 169*time.Millisecond {
		t.Fatalf("count %d, time %v; want 4 collections, 169ms", g.Count, g.TotalTime)
	}
	// The collectors' rows count them too: they add up to the headline
	// (they said 1 collection, 30ms, under "4 collections, 169ms"), a
	// collector the totals have not named yet with a row of its own.
	want := []Collector{{Name: "G1 Young Generation", Count: 3, TotalTime: 69 * time.Millisecond}, {Name: "G1 Old Generation", Count: 1, TotalTime: 100 * time.Millisecond, SinceTotals: true}}
	if !slices.Equal(g.Collectors, want) {
		t.Fatalf("collectors %+v, want %+v", g.Collectors, want)
	}
	want[1].SinceTotals = false // named by the totals from then on
	feed(a, &decode.GCTotals{Time: ms(960), Collector: "G1 Old Generation", Count: 1, TotalTime: 100_000_000})
	// The next totals include them: counted once.
	feed(a, &decode.GCTotals{Time: ms(1000), Collector: "G1 Young Generation", Count: 3, TotalTime: 69_000_000})
	if g := a.Snapshot(t0, Query{CallersOf: -1}).GC; g.Count != 4 || g.TotalTime != 169*time.Millisecond || !slices.Equal(g.Collectors, want) {
		t.Fatalf("after the totals: count %d, time %v, collectors %+v", g.Count, g.TotalTime, g.Collectors)
	}
	// A collection whose collector the source does not name has a row too.
	feed(a, &decode.Collection{Time: ms(1100), Pause: 5_000_000, UsedAfter: -1})
	g = a.Snapshot(t0, Query{CallersOf: -1}).GC
	if n := len(g.Collectors); g.Count != 5 || n != 3 || g.Collectors[n-1] != (Collector{Name: UnnamedCollector, Count: 1, TotalTime: 5 * time.Millisecond, SinceTotals: true}) {
		t.Fatalf("an unnamed collection: count %d, collectors %+v", g.Count, g.Collectors)
	}
}

// A collection numbered by its collector is counted on top of the totals
// only when they leave it out, whatever its time: a pause that ended a
// moment before the totals were read, but reported with a later time
// (another clock, read a moment apart), is not counted twice; one the
// totals do not count yet is, even when it carries an earlier time.
func TestGCPausesNumberedAgainstTheTotals(t *testing.T) {
	a := New(Options{})
	feed(a,
		&decode.GCTotals{Time: ms(1000), Collector: "G1 Young Generation", Count: 20, TotalTime: 200_000_000},
		&decode.Collection{Time: ms(1002), Collector: "G1 Young Generation", Pause: 9_000_000, UsedAfter: -1, Sequence: 20},
	)
	if g := a.Snapshot(t0, Query{CallersOf: -1}).GC; g.Count != 20 || g.TotalTime != 200*time.Millisecond {
		t.Fatalf("a pause the totals count: count %d, time %v; want 20, 200ms", g.Count, g.TotalTime)
	}
	feed(a, &decode.Collection{Time: ms(990), Collector: "G1 Young Generation", Pause: 7_000_000, UsedAfter: -1, Sequence: 21})
	if g := a.Snapshot(t0, Query{CallersOf: -1}).GC; g.Count != 21 || g.TotalTime != 207*time.Millisecond {
		t.Fatalf("a pause the totals leave out: count %d, time %v; want 21, 207ms", g.Count, g.TotalTime)
	}
	feed(a, &decode.GCTotals{Time: ms(2000), Collector: "G1 Young Generation", Count: 21, TotalTime: 207_000_000})
	if g := a.Snapshot(t0, Query{CallersOf: -1}).GC; g.Count != 21 || g.TotalTime != 207*time.Millisecond {
		t.Fatalf("after the totals count it: count %d, time %v; want 21, 207ms", g.Count, g.TotalTime)
	}
}

// A restarted JVM is a new stream: its shutdown ends its threads and says
// when it exited, whatever the one before said.
func TestShutdownOfTheNextStream(t *testing.T) {
	a := New(Options{})
	a.Apply([]decode.Event{&decode.ThreadStart{ThreadID: 1, ThreadName: "main", Time: ms(0)},
		&decode.RuntimeShutdown{ThreadMoment: decode.ThreadMoment{Time: ms(1000)}}}, 1, decode.Clock{}, t0)
	a.Apply([]decode.Event{&decode.ThreadStart{ThreadID: 1, ThreadName: "main2", Time: ms(3000)}}, 2, decode.Clock{}, t0)
	if s := a.Snapshot(t0, Query{CallersOf: -1}); !s.Process.Exited.IsZero() {
		t.Fatalf("the restarted process shows as exited at %v", s.Process.Exited)
	}
	a.Apply([]decode.Event{&decode.RuntimeShutdown{ThreadMoment: decode.ThreadMoment{Time: ms(5000)}}}, 2, decode.Clock{}, t0)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if !s.Process.Exited.Equal(t0.Add(5 * time.Second)) {
		t.Errorf("exited %v, want 5s", s.Process.Exited)
	}
	for _, th := range s.Threads {
		if th.State != ThreadEnded {
			t.Errorf("%s is %s after the second shutdown", th.Name, th.State)
		}
	}
}

// Totals that count collections but not their time (rbkit's gc_stats):
// pauses after them add to the count, not to a total time.
func TestCountOnlyTotalsGetNoTime(t *testing.T) {
	a := New(Options{})
	feed(a, &decode.GCTotals{Time: ms(0), Collector: "minor GC", Count: 40},
		&decode.Collection{Time: ms(100), Collector: "minor GC", Pause: 5_000_000, UsedAfter: -1})
	if g := a.Snapshot(t0, Query{CallersOf: -1}).GC; g.Count != 41 || g.TotalTime != 0 {
		t.Fatalf("count %d, total %v; want 41 and no time", g.Count, g.TotalTime)
	}
}

// A new stream's heap polls are its own, whatever its pools are named,
// and pauses of the stream before do not count after the new totals.
func TestHeapAndPausesOfANewStream(t *testing.T) {
	a := New(Options{})
	// jvm sends one JVM's totals (count, total ms) at ms, then a pause
	// (ms) half a second later and a poll of its two heap pools (MiB used).
	jvm := func(stream, at int, collector, prefix string, count, total, pause, eden, old int64) {
		a.Apply([]decode.Event{
			&decode.GCTotals{Time: ms(at), Collector: collector, Count: count, TotalTime: decode.Ticks(total * 1e6)},
			&decode.Collection{Time: ms(at + 500), Collector: collector, Pause: decode.Ticks(pause * 1e6), UsedAfter: -1},
			&decode.MemoryPool{Time: ms(at + 600), Name: prefix + " Eden Space", Heap: 1, Used: eden << 20, Committed: 2 * eden << 20, Max: -1},
			&decode.MemoryPool{Time: ms(at + 600), Name: prefix + " Old Gen", Heap: 1, Used: old << 20, Committed: 2 * old << 20, Max: -1},
		}, stream, decode.Clock{}, t0)
	}
	jvm(1, 10_000, "PS Scavenge", "PS", 5, 50, 10, 10, 50)
	jvm(2, 0, "G1 Young Generation", "G1", 3, 30, 7, 1, 2)
	g := a.Snapshot(t0, Query{CallersOf: -1}).GC
	last := g.Heap[len(g.Heap)-1]
	if last.Used != 3<<20 || !last.At.Equal(t0.Add(600*time.Millisecond)) {
		t.Errorf("the new stream's heap %+v, want 3 MiB at 600ms", last)
	}
	if g.Count != 3+5+1 || g.TotalTime != 30*time.Millisecond+50*time.Millisecond+7*time.Millisecond {
		t.Errorf("count %d, total %v", g.Count, g.TotalTime)
	}
}

// A deadlock seen forming lasts from when its last thread blocked; one
// that was there at the first look formed before, unseen: its Since is
// when it was first seen, and it says so.
func TestDeadlockFormedBeforeWatching(t *testing.T) {
	a1 := polled{id: 2, state: "parked", lock: 0x20, class: rl, owner: 3}
	b1 := polled{id: 3, state: "blocked", lock: 0x10, class: "com.acme.Cache", owner: 2}
	running := func(id int64) polled { return polled{id: id, state: "running"} }

	a := New(Options{})
	feed(a, defs()...)
	poll(a, 1000, a1, b1)
	poll(a, 2000, a1, b1)
	d := a.Snapshot(t0, Query{CallersOf: -1}).Deadlocks
	if len(d) != 1 || !d[0].FirstSeen || !d[0].BeforeWatching || !d[0].Since.Equal(t0.Add(time.Second)) {
		t.Fatalf("there at the first look: %+v", d)
	}

	a = New(Options{})
	feed(a, defs()...)
	poll(a, 1000, running(2), b1)
	poll(a, 2000, a1, b1)
	d = a.Snapshot(t0, Query{CallersOf: -1}).Deadlocks
	if len(d) != 1 || d[0].FirstSeen || d[0].BeforeWatching || !d[0].Since.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("seen forming: %+v", d)
	}

	// A thread a later poll sees first, already blocked, started after the
	// poll before (which listed every thread): the deadlock formed since.
	a = New(Options{})
	feed(a, defs()...)
	poll(a, 1000, running(1), b1)
	poll(a, 2000, running(1), a1, b1)
	d = a.Snapshot(t0, Query{CallersOf: -1}).Deadlocks
	if len(d) != 1 || d[0].FirstSeen || d[0].BeforeWatching || !d[0].Since.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("its last thread new since the poll before: %+v", d)
	}
}

// A poll that comes after the JVM said it shut down (the agent's poller
// racing its shutdown hook) does not bring its threads back: the process
// is gone, and every thread of the stream stays ended.
func TestAPollAfterTheShutdownRevivesNoThread(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	poll(a, 1000, polled{id: 1, state: "running"}, polled{id: 2, state: "parked"})
	feed(a, &decode.RuntimeShutdown{ThreadMoment: decode.ThreadMoment{Time: ms(1500)}})
	poll(a, 1400, polled{id: 1, state: "running"}, polled{id: 2, state: "parked"}) // taken before, sent after
	poll(a, 1600, polled{id: 1, state: "running"})
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if s.Process.Exited.IsZero() || len(s.Threads) == 0 {
		t.Fatalf("exited %v, %d threads", s.Process.Exited, len(s.Threads))
	}
	for _, th := range s.Threads {
		if th.State != ThreadEnded {
			t.Errorf("thread %s is %s after the JVM exited", th.Name, th.State)
		}
	}
}

// A collection's heap reading that arrives after a later poll's (JFR
// delivers its events a second or two late) still takes its place in
// time: the heap samples are in time order.
func TestHeapSamplesInTimeOrder(t *testing.T) {
	a := New(Options{})
	feed(a,
		&decode.MemoryPool{Time: ms(0), Name: "G1 Eden Space", Heap: 1, Used: 10 << 20, Committed: 30 << 20, Max: -1},
		&decode.MemoryPool{Time: ms(1000), Name: "G1 Eden Space", Heap: 1, Used: 20 << 20, Committed: 30 << 20, Max: -1},
		&decode.Collection{Time: ms(700), Collector: "G1 Young Generation", Pause: 5_000_000, UsedBefore: 25 << 20, UsedAfter: 3 << 20, Committed: 30 << 20},
		&decode.MemoryPool{Time: ms(2000), Name: "G1 Eden Space", Heap: 1, Used: 9 << 20, Committed: 30 << 20, Max: -1},
	)
	var used []int64
	for _, h := range a.Snapshot(t0, Query{CallersOf: -1}).GC.Heap {
		used = append(used, h.Used>>20)
	}
	if !slices.Equal(used, []int64{10, 3, 20, 9}) {
		t.Fatalf("heap samples (MiB) %v, want those at 0, 0.7, 1 and 2 s", used)
	}
}

// proftop's JVM agent names a lock by its identity hash (31 bits), and
// one it could not identify by JFR's address for it, above them: such a
// lock's row says it is known by its address. Another source's object
// ids say nothing of the kind; a group's row is no lock.
func TestLocksKnownByTheirAddress(t *testing.T) {
	for _, agent := range []string{JVMAgentName, "another profiler"} {
		a := New(Options{})
		feed(a, &decode.AgentCreate{AgentName: agent})
		feed(a, defs()...)
		poll(a, 1000,
			polled{id: 2, state: "blocked", lock: 0x2d2e, class: "org.h2.Tx", owner: 1},
			polled{id: 3, state: "blocked", lock: 0x7f06380015a0, class: "org.h2.Tx", owner: 1},
			polled{id: 4, state: "blocked", lock: 0xf0925d40, class: "org.h2.Tx", owner: 1},
			polled{id: 1, state: "running"},
		)
		s := a.Snapshot(t0, Query{CallersOf: -1})
		jvm := agent == JVMAgentName
		if monitorByObj(s, 0x2d2e).ByAddress || monitorByObj(s, 0x7f06380015a0).ByAddress != jvm || monitorByObj(s, 0xf0925d40).ByAddress != jvm {
			t.Errorf("%s: %+v", agent, s.Monitors)
		}
		if g := a.Snapshot(t0, Query{CallersOf: -1, GroupMonitors: true}).Monitors; len(g) != 1 || g[0].ByAddress {
			t.Errorf("%s: the group %+v", agent, g)
		}
	}
}

// A full table of monitors lets the least used of its oldest idle ones go
// first: a lock used all along outlives a stream of locks used once each
// (a database's row locks), and what it let go is counted.
func TestMonitorsKeepTheBusyLocks(t *testing.T) {
	a := New(Options{MaxMonitors: 16})
	feed(a, defs()...)
	at := 0
	enter := func(obj int64) { // a poll sees thread 2 blocked on obj, the next running
		at += 2
		poll(a, at, polled{id: 1, state: "running"}, polled{id: 2, state: "blocked", lock: obj, class: "org.h2.Lock", owner: 1})
		poll(a, at+1, polled{id: 1, state: "running"}, polled{id: 2, state: "running"})
	}
	for range 30 {
		enter(0x1) // the lock of a table, used all along
	}
	for obj := int64(0x100); obj < 0x100+200; obj++ {
		enter(obj) // row locks, one use each
		if obj%20 == 0 {
			enter(0x1)
		}
	}
	for range 5 {
		enter(0x2000 + int64(at)) // and a last few, after the table's lock went idle
	}
	s := a.Snapshot(t0, Query{CallersOf: -1})
	busy := monitorByObj(s, 0x1)
	if busy.Enters != 40 {
		t.Fatalf("the busy lock: %d enters, want 40 (kept whole)", busy.Enters)
	}
	// Each lock let go counts once; one the polls' episodes made again,
	// its figures of before gone, counts though it is back.
	if n, f := len(s.Monitors), s.NotTracked.MonitorsForgotten; n > 16 || f < int64(1+200+5-n) || f > 205 {
		t.Fatalf("%d monitors, %d forgotten: want the 205 others, less those kept", n, f)
	}
	a.Reset()
	if s := a.Snapshot(t0, Query{CallersOf: -1}); s.NotTracked.MonitorsForgotten != 0 {
		t.Fatalf("after a reset: %d forgotten", s.NotTracked.MonitorsForgotten)
	}
}

// A recording read at once (a replay: trace time) has its threads' %CPU
// at the one snapshot taken at its end, measured over the last marks its
// trace time passed, not unknown for want of a snapshot before.
func TestReplayedThreadsHaveTheirCPUShare(t *testing.T) {
	a := New(Options{TraceTime: true})
	feed(a, defs()...)
	for s := range 7 { // a poll a second, thread 1 busy half of each
		poll(a, 1000*(s+1), polled{id: 1, state: "running", cpu: time.Duration(s+1) * 500 * time.Millisecond})
	}
	th := threadByID(a.Snapshot(t0, Query{CallersOf: -1}), 1)
	if p := float64(th.CPUPercent); math.IsNaN(p) || p < 49 || p > 51 {
		t.Fatalf("%%CPU %v, want 50", th.CPUPercent)
	}
}

// A mark of the threads' CPU is dated by the readings it holds: events
// come between polls (JFR's samples, a wait ended), and one a moment
// before the next poll must not date the last poll's readings a second
// later. Marked at it, %CPU read a third high on a replayed Tomcat (the
// readings covered more time than the span they were divided by).
func TestCPUShareIsOverTheReadingsSpan(t *testing.T) {
	for _, traceTime := range []bool{true, false} {
		a := New(Options{TraceTime: traceTime})
		feed(a, defs()...)
		for s := range 9 { // a poll a second, thread 1 busy half of each
			poll(a, 1000*(s+1), polled{id: 1, state: "running", cpu: time.Duration(s+1) * 500 * time.Millisecond})
			if s == 8 {
				break // the picture taken at the latest poll
			}
			// Something of thread 2 just before the next poll: the latest event.
			feed(a, &decode.ThreadCPU{ThreadIDRef: 2, Time: ms(1000*(s+1) + 990), CPUTime: -1})
			if !traceTime {
				a.Release(a.Snapshot(t0, Query{CallersOf: -1})) // the interface's refresh
			}
		}
		th := threadByID(a.Snapshot(t0, Query{CallersOf: -1}), 1)
		if p := float64(th.CPUPercent); math.IsNaN(p) || p < 49 || p > 51 {
			t.Fatalf("trace time %v: %%CPU %v, want 50", traceTime, th.CPUPercent)
		}
	}
}

// A thread seen blocked on one lock at three polls was blocked the whole
// time only if it did not block again in between: its count of blocks
// tells. A lock held a few milliseconds at a time (Tomcat's access log)
// read "BLOCKED for 1.07s" beside a longest contention of 97 ms.
func TestBlockedAgainBetweenPollsIsAnotherContention(t *testing.T) {
	for _, tc := range []struct {
		name   string
		counts []int64
		since  int // ms after t0
		waits  []int64
	}{
		{"the same block", []int64{5, 5, 5}, 1000, []int64{2, 2, 2}},
		{"blocked anew at each poll", []int64{5, 9, 12}, 3000, []int64{2, 2, 2}},
		{"not said", []int64{0, 0, 0}, 1000, []int64{0, 0, 0}},
		// A park's count is not used: one hold-up may park again and again.
		{"parked anew on a lock", []int64{5, 5, 5}, 1000, []int64{2, 3, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(Options{})
			feed(a, defs()...)
			state := "blocked"
			if tc.name == "parked anew on a lock" {
				state = "parked"
			}
			for i := range 3 {
				poll(a, 1000*(i+1), polled{id: 1, state: "running"},
					polled{id: 2, state: state, lock: 0x10, class: rl, owner: 1, blocked: tc.counts[i], waited: tc.waits[i]})
			}
			s := a.Snapshot(t0.Add(3*time.Second), Query{CallersOf: -1})
			th := threadByID(s, 2)
			if want := ms(tc.since); th.Since != int64(want) {
				t.Fatalf("since %v, want %v", time.Duration(th.Since-int64(ms(0))), time.Duration(int64(want)-int64(ms(0))))
			}
		})
	}
}

// The time watched begins at the first dated event to arrive: a wait
// told of later, dated by its start a minute before proftop attached,
// does not stretch it back (a profile's duration, the GC's share of the
// time watched).
func TestWatchingBeginsWithTheFirstEventToArrive(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	poll(a, 61_000, polled{id: 1, state: "running"})
	feed(a, &decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: 2, ObjIDRef: 0x10, Timeout: 60_000, Time: ms(1000)}})
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if want := t0.Add(61 * time.Second); !s.TreeSince().Equal(want) {
		t.Fatalf("watching began %v, want %v (the first event's)", s.TreeSince(), want)
	}
}

// The call tree since the start, and a profile of it, count from the
// latest reset, as every cumulative figure does: a profile exported after
// one began at the attach.
func TestTreeSinceTheReset(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	poll(a, 1000, polled{id: 1, state: "running"})
	poll(a, 5000, polled{id: 1, state: "running"})
	a.Reset()
	poll(a, 6000, polled{id: 1, state: "running"})
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if got := s.TreeSince(); !got.Equal(t0.Add(5 * time.Second)) {
		t.Fatalf("tree since %v, want the reset at %v", got.Sub(t0), 5*time.Second)
	}
}

// A source that reads a thread's CPU only with its events (a method's
// exit) stops reading when the thread goes quiet: its rate falls as the
// trace goes on, rather than staying at the last one measured.
func TestCPUShareFallsWhenReadingsStop(t *testing.T) {
	a := New(Options{TraceTime: true})
	feed(a, defs()...)
	feed(a, &decode.ThreadStart{ThreadID: 1, ThreadName: "busy", Time: ms(0)}, &decode.ThreadStart{ThreadID: 2, ThreadName: "other", Time: ms(0)})
	ticket := int32(0)
	for i := range 50 { // busy the whole of 5 s, read at each exit
		ticket++
		feed(a, &decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 1, Ticket: ticket, Time: ms(100 * i)},
			&decode.MethodExit{ThreadIDRef: 1, Ticket: ticket, Time: ms(100*i + 100), ThreadCPUTime: decode.Ticks(time.Duration(100*i+100) * time.Millisecond)})
	}
	for i := range 90 { // then quiet for 9 s, another thread's events going on
		feed(a, &decode.Sample{ThreadIDRef: 2, Time: ms(5000 + 100*i), Count: 1, Stack: stack("a.B.c")})
	}
	th := threadByID(a.Snapshot(t0, Query{CallersOf: -1}), 1)
	if p := float64(th.CPUPercent); math.IsNaN(p) || p > 1 {
		t.Fatalf("%%CPU %v after 9 s without a reading: want 0", th.CPUPercent)
	}
}
