package state

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func ms(n int) decode.Ticks {
	return decode.Clock{}.FromTime(t0.Add(time.Duration(n) * time.Millisecond))
}

func stack(frames ...string) decode.Stack {
	var s decode.Stack
	for i, f := range frames {
		s.Methods = append(s.Methods, f)
		s.Lines = append(s.Lines, int64(10+i))
	}
	return s
}

// feed applies events as one batch of stream 1.
func feed(a *Aggregator, evs ...decode.Event) {
	a.Apply(evs, 1, decode.Clock{}, t0)
}

func threadByID(s *Snapshot, id int64) *Thread {
	for i := range s.Threads {
		if s.Threads[i].ID == id && s.Threads[i].State != ThreadEnded {
			return &s.Threads[i]
		}
	}
	for i := range s.Threads {
		if s.Threads[i].ID == id {
			return &s.Threads[i]
		}
	}
	return nil
}

func methodByName(s *Snapshot, name string) *Method {
	for i := range s.Methods {
		if s.MethodName(&s.Methods[i]) == name {
			return &s.Methods[i]
		}
	}
	return nil
}

func monitorByObj(s *Snapshot, obj int64) *Monitor {
	for i := range s.Monitors {
		if s.Monitors[i].Object == obj {
			return &s.Monitors[i]
		}
	}
	return nil
}

func defs() []decode.Event {
	return []decode.Event{
		&decode.ClassDef{ClassID: 1, Name: "com.acme.Cache"},
		&decode.MethodDef{Name: "get", ClassIDRef: 1, MethodID: 10, StartLineNumber: 40},
		&decode.MethodDef{Name: "load", ClassIDRef: 1, MethodID: 11, StartLineNumber: 60},
		&decode.ThreadStart{ThreadID: 1, ThreadName: "main", GroupName: "main", Time: ms(0)},
		&decode.ThreadStart{ThreadID: 2, ThreadName: "worker-1", GroupName: "main", Time: ms(0)},
		&decode.ThreadStart{ThreadID: 3, ThreadName: "worker-2", GroupName: "main", Time: ms(0)},
	}
}

func TestMethodCallsPairByTicket(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a,
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 1, Time: ms(100)},
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 11, Ticket: 2, Time: ms(110)},
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 2, Time: ms(140), ThreadCPUTime: 5_000_000},
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: ms(200), ThreadCPUTime: 9_000_000},
		// Timestamps step back: the duration is clamped to 0.
		&decode.MethodEntry{ThreadIDRef: 2, MethodIDRef: 11, Ticket: 3, Time: ms(300)},
		&decode.MethodExit{ThreadIDRef: 2, Ticket: 3, Time: ms(298)},
		// An exit whose entry never came.
		&decode.MethodExit{ThreadIDRef: 2, Ticket: 99, Time: ms(310)},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	get, load := methodByName(s, "com.acme.Cache.get"), methodByName(s, "com.acme.Cache.load")
	if get == nil || load == nil {
		t.Fatalf("%+v", s.Methods)
	}
	if get.Calls != 1 || get.Total != 100*time.Millisecond || get.Self != 70*time.Millisecond || get.Line != 40 {
		t.Fatalf("get %+v", get)
	}
	if load.Calls != 2 || load.Total != 30*time.Millisecond || load.Self != 30*time.Millisecond || load.Min != 0 || load.Max != 30*time.Millisecond {
		t.Fatalf("load %+v", load)
	}
	if s.Unpaired != 1 {
		t.Fatalf("unpaired %d", s.Unpaired)
	}
	if p := s.Percent(get) + s.Percent(load); p < 99.9 || p > 100.1 {
		t.Fatalf("percentages add up to %f", p)
	}
	if th := threadByID(s, 1); th.CPU != 9*time.Millisecond || th.State != ThreadRunning {
		t.Fatalf("thread %+v", th)
	}
	// Callers, for the drill-in.
	s = a.Snapshot(t0, Query{CallersOf: load.Slot})
	if len(s.Callers) != 1 || s.Callers[0].Name != "com.acme.Cache.get" || s.Callers[0].Calls != 1 {
		t.Fatalf("callers %+v", s.Callers)
	}
}

// A recursive method's total time counts its outermost calls only: get
// calls itself twice over (100 ms in all, 60 ms of it inside the inner
// calls) and load once; the inner calls' time is inside the outer one's.
// Calls, self time, min and max count every call. While the outermost
// call is open, the inner calls done count their own time in the total,
// which never reads less than the self time.
func TestRecursiveCallsCountTheirTotalOnce(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a,
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 1, Time: ms(100)},
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 2, Time: ms(110)},
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 11, Ticket: 3, Time: ms(120)},
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 4, Time: ms(130)},
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 4, Time: ms(150)},
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 3, Time: ms(160)},
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 2, Time: ms(170)},
	)
	open := methodByName(a.Snapshot(t0, Query{CallersOf: -1}), "com.acme.Cache.get")
	if open.Calls != 2 || open.Self != 40*time.Millisecond || open.Total != open.Self {
		t.Fatalf("get, the outermost call open: %+v", open)
	}
	feed(a,
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: ms(200)},
		// The same method on another thread at once is no recursion.
		&decode.MethodEntry{ThreadIDRef: 2, MethodIDRef: 10, Ticket: 5, Time: ms(105)},
		&decode.MethodExit{ThreadIDRef: 2, Ticket: 5, Time: ms(115)},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	get, load := methodByName(s, "com.acme.Cache.get"), methodByName(s, "com.acme.Cache.load")
	if get.Calls != 4 || get.Total != 110*time.Millisecond || get.Self != 90*time.Millisecond ||
		get.Min != 10*time.Millisecond || get.Max != 100*time.Millisecond {
		t.Fatalf("get %+v", get)
	}
	if load.Calls != 1 || load.Total != 40*time.Millisecond || load.Self != 20*time.Millisecond {
		t.Fatalf("load %+v", load)
	}
}

func TestAggregatedReports(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a,
		&decode.AgMethodEntry{ThreadIDRef: 2, MethodIDRef: 10, BaseTime: 50_000_000, MinTime: 1_000_000, MaxTime: 20_000_000, BaseCPUTime: 30_000_000, NumCalls: 7},
		&decode.AgMethodEntry{ThreadIDRef: 3, MethodIDRef: 10, BaseTime: 10_000_000, MinTime: 500_000, MaxTime: 5_000_000, BaseCPUTime: -1, NumCalls: 3},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	get := methodByName(s, "com.acme.Cache.get")
	if get.Calls != 10 || get.Self != 60*time.Millisecond || get.Total != -1 || get.Min != 500*time.Microsecond || get.Max != 20*time.Millisecond || get.CPU != 30*time.Millisecond {
		t.Fatalf("%+v", get)
	}
	if th := threadByID(s, 2); th.CPU != 30*time.Millisecond {
		t.Fatalf("%+v", th)
	}
}

func TestMonitorsOwnersWaitersAndStacks(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a,
		&decode.ObjAlloc{ObjID: 0x77, ClassIDRef: 1},
		&decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: 0x77, ThreadOwner: 1, Time: ms(100), Stack: stack("com.acme.Cache.get", "com.acme.Api.handle", "java.lang.Thread.run", "a.b", "c.d")},
		&decode.MonContendedEnter{ThreadIDRef: 3, ObjIDRef: 0x77, ThreadOwner: 1, Time: ms(150), Stack: stack("com.acme.Cache.get", "x.y")},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	m := monitorByObj(s, 0x77)
	if m == nil || m.Class != "com.acme.Cache" || m.Owner != 1 || m.OwnerName != "main" || len(m.Waiters) != 2 || m.Enters != 2 {
		t.Fatalf("%+v", m)
	}
	w := m.Waiters[0]
	if w.Thread != 2 || w.ThreadName != "worker-1" || w.Waiting || len(w.Stack) != 5 || w.Stack[0] != (Frame{"com.acme.Cache.get", 10}) || !w.Since.Equal(t0.Add(100*time.Millisecond)) {
		t.Fatalf("%+v", w)
	}
	if th := threadByID(s, 2); th.State != ThreadBlocked || th.Monitor != 0x77 || th.Contentions != 1 {
		t.Fatalf("%+v", th)
	}
	feed(a,
		&decode.MonContendedEntered{ThreadIDRef: 2, ObjIDRef: 0x77, Time: ms(400)},
		&decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: 2, ObjIDRef: 0x77, Timeout: 500, Time: ms(450)}},
		&decode.MonContendedEntered{ThreadIDRef: 3, ObjIDRef: 0x77, Time: ms(460)},
	)
	s = a.Snapshot(t0, Query{CallersOf: -1, StackOf: 2})
	m = monitorByObj(s, 0x77)
	if m.Owner != 3 || len(m.Waiters) != 1 || !m.Waiters[0].Waiting || m.Waiters[0].Timeout != 500*time.Millisecond || m.Waits != 1 {
		t.Fatalf("%+v", m)
	}
	if m.BlockedMax != 310*time.Millisecond || m.BlockedSum != 610*time.Millisecond || m.BlockedAvg != 305*time.Millisecond {
		t.Fatalf("blocked max %v sum %v avg %v", m.BlockedMax, m.BlockedSum, m.BlockedAvg)
	}
	th := threadByID(s, 2)
	if th.State != ThreadTimedWaiting || th.Blocked != 300*time.Millisecond || len(th.Stack) == 0 {
		t.Fatalf("%+v", th)
	}
	feed(a, &decode.MonWaited{MonitorWait: decode.MonitorWait{ThreadIDRef: 2, ObjIDRef: 0x77, Timeout: 500, Time: ms(950)}})
	s = a.Snapshot(t0, Query{CallersOf: -1})
	if th := threadByID(s, 2); th.State != ThreadRunning || th.Waiting != 500*time.Millisecond {
		t.Fatalf("%+v", th)
	}
}

func TestDeadlockIsDetected(t *testing.T) {
	for _, n := range []int{2, 3} {
		a := New(Options{})
		evs := defs()
		evs = append(evs, &decode.ThreadStart{ThreadID: 4, ThreadName: "worker-3"})
		// Thread i owns monitor 100+i and blocks on the monitor of thread i+1.
		for i := 1; i <= n; i++ {
			next := i%n + 1
			evs = append(evs, &decode.MonContendedEnter{ThreadIDRef: int64(i), ObjIDRef: int64(100 + next), ThreadOwner: int64(next), Time: ms(10 * i), Stack: stack("a.b", "c.d")})
		}
		// A bystander blocked on one of them is not part of the cycle.
		evs = append(evs, &decode.MonContendedEnter{ThreadIDRef: 4, ObjIDRef: 101, ThreadOwner: 1, Time: ms(50)})
		feed(a, evs...)
		s := a.Snapshot(t0, Query{CallersOf: -1})
		if len(s.Deadlocks) != 1 || len(s.Deadlocks[0].Threads) != n || s.Deadlocks[0].Threads[0] != 1 {
			t.Fatalf("%d threads: %+v", n, s.Deadlocks)
		}
		// It formed when its last thread blocked, before the first
		// snapshot that saw it (a replay's snapshots are few).
		formed := t0.Add(time.Duration(10*n) * time.Millisecond)
		if !s.Deadlocks[0].Since.Equal(formed) {
			t.Errorf("%d threads: since %v, want %v", n, s.Deadlocks[0].Since, formed)
		}
		// Ending a thread of the cycle breaks it.
		feed(a, &decode.ThreadEnd{ThreadMoment: decode.ThreadMoment{ThreadIDRef: 1, Time: ms(900)}})
		s = a.Snapshot(t0, Query{CallersOf: -1})
		if len(s.Deadlocks) != 0 {
			t.Fatalf("after the end: %+v", s.Deadlocks)
		}
		if r := s.RecentDeadlocks; len(r) != 1 || !r[0].Since.Equal(formed) || !r[0].Until.Equal(t0.Add(50*time.Millisecond)) {
			t.Errorf("%d threads: recent deadlocks %+v, want %v to 50ms", n, r, formed)
		}
	}
}

func TestGCFigures(t *testing.T) {
	a := New(Options{Window: 10 * time.Second})
	pauses(a, 0)
	g := a.Snapshot(t0, Query{CallersOf: -1}).GC
	if g.Count != 5 || g.LastPause != 500*time.Millisecond || g.Max != 500*time.Millisecond || g.P50 != 30*time.Millisecond || g.Freed != 10 {
		t.Fatalf("%+v", g)
	}
	if len(g.Heap) != 5 || g.Heap[4].Used != 500 || len(g.Pauses) != 5 {
		t.Fatalf("%+v", g)
	}
	// 600 ms of pauses in the 4.5 s watched (from the first event, at 1 s,
	// to the last): not in the 10 s window, half of which nobody watched.
	if g.Percent < 13.2 || g.Percent > 13.4 {
		t.Fatalf("GC %.2f%% of the time watched", g.Percent)
	}
	// Watched since longer than the window: 600 ms of pauses in the 10 s
	// before the last event.
	b := New(Options{Window: 10 * time.Second})
	feed(b, &decode.ObjFree{Time: ms(1)})
	pauses(b, 5000)
	if g := b.Snapshot(t0, Query{CallersOf: -1}).GC; g.Percent < 5.9 || g.Percent > 6.1 {
		t.Fatalf("GC %.2f%% of the window", g.Percent)
	}
	// Watched since a reset half a second before the last event, taken as
	// a second (minWatched): the pause of 500 ms since is half of it.
	c := New(Options{Window: 10 * time.Second})
	pauses(c, 0)
	feed(c, &decode.ObjFree{Time: ms(5000)})
	c.Reset()
	feed(c, &decode.GCStart{ThreadMoment: decode.ThreadMoment{Time: ms(5500)}}, &decode.GCFinish{Time: ms(6000), UsedObjSpace: 100, TotalObjSpace: 1000})
	if g := c.Snapshot(t0, Query{CallersOf: -1}).GC; g.Count != 1 || g.Percent < 49.9 || g.Percent > 50.1 {
		t.Fatalf("GC %.2f%% of the second since the reset, %d collections", g.Percent, g.Count)
	}
}

// A pause counts only for its part inside the span watched, and one that
// ended before a reset, reported late, counts not at all: the share never
// passes 100%.
func TestGCShareOfPausesAcrossTheStart(t *testing.T) {
	a := New(Options{Window: 10 * time.Second})
	feed(a, &decode.Collection{Time: ms(3000), Collector: "G1 Young Generation", Pause: 2_500_000_000, UsedAfter: -1},
		&decode.MemoryPool{Time: ms(3200), Name: "G1 Eden Space", Heap: 1, Used: 1 << 20, Committed: 2 << 20, Max: -1})
	// Watched from 3 s to 3.2 s, taken as the second before 3.2 s: 800 ms of it paused.
	if g := a.Snapshot(t0, Query{CallersOf: -1}).GC; g.Percent < 79.9 || g.Percent > 80.1 {
		t.Errorf("a pause longer than the time watched: %.1f%%", g.Percent)
	}
	b := New(Options{Window: 10 * time.Second})
	feed(b, &decode.MemoryPool{Time: ms(0), Name: "G1 Eden Space", Heap: 1, Used: 1 << 20, Committed: 2 << 20, Max: -1},
		&decode.MemoryPool{Time: ms(5000), Name: "G1 Eden Space", Heap: 1, Used: 1 << 20, Committed: 2 << 20, Max: -1})
	b.Reset()
	feed(b, &decode.Collection{Time: ms(4200), Collector: "G1 Young Generation", Pause: 700_000_000, UsedAfter: -1},
		&decode.Collection{Time: ms(4900), Collector: "G1 Young Generation", Pause: 600_000_000, UsedAfter: -1},
		&decode.GCStart{ThreadMoment: decode.ThreadMoment{Time: ms(4950)}}, &decode.GCFinish{Time: ms(4990), UsedObjSpace: 1, TotalObjSpace: 2})
	if g := b.Snapshot(t0, Query{CallersOf: -1}).GC; g.Count != 0 || g.Percent != 0 {
		t.Errorf("collections of before the reset, reported after it: %d, %.1f%%", g.Count, g.Percent)
	}
}

// pauses feeds five collections, at 1 to 5 s after offset ms, of 10, 20,
// 30, 40 and 500 ms, each freeing two objects.
func pauses(a *Aggregator, offset int) {
	for i, p := range []int{10, 20, 30, 40, 500} {
		at := offset + 1000*(i+1)
		feed(a, &decode.GCStart{ThreadMoment: decode.ThreadMoment{Time: ms(at)}},
			&decode.ObjFree{Time: ms(at + 1)}, &decode.ObjFree{Time: ms(at + 2)},
			&decode.GCFinish{Time: ms(at + p), UsedObjSpace: int64(100 * (i + 1)), TotalObjSpace: 1000})
	}
}

// The recent view counts the last N seconds of wall time; cumulative all.
func TestRecentWindowAndCumulative(t *testing.T) {
	a := New(Options{Window: 3 * time.Second})
	a.Apply(defs(), 1, decode.Clock{}, t0)
	call := func(ticket int32, wall time.Duration) {
		a.Apply([]decode.Event{
			&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: ticket, Time: ms(int(ticket) * 10)},
			&decode.MethodExit{ThreadIDRef: 1, Ticket: ticket, Time: ms(int(ticket)*10 + int(ticket))},
		}, 1, decode.Clock{}, t0.Add(wall))
	}
	call(1, 0)
	call(2, 1500*time.Millisecond)
	call(3, 2500*time.Millisecond)
	recent := func(at time.Duration) *Method {
		return methodByName(a.Snapshot(t0.Add(at), Query{Recent: true, CallersOf: -1}), "com.acme.Cache.get")
	}
	if m := recent(2600 * time.Millisecond); m == nil || m.Calls != 3 || m.Max != 3*time.Millisecond || m.Min != time.Millisecond {
		t.Fatalf("%+v", m)
	}
	if m := recent(3500 * time.Millisecond); m == nil || m.Calls != 2 || m.Min != 2*time.Millisecond {
		t.Fatalf("after the first second expired: %+v", m)
	}
	if m := recent(10 * time.Second); m != nil {
		t.Fatalf("long after: %+v", m)
	}
	if m := methodByName(a.Snapshot(t0.Add(10*time.Second), Query{CallersOf: -1}), "com.acme.Cache.get"); m.Calls != 3 {
		t.Fatalf("cumulative %+v", m)
	}
	a.Reset()
	if s := a.Snapshot(t0.Add(10*time.Second), Query{CallersOf: -1}); len(s.Methods) != 0 {
		t.Fatalf("after reset %+v", s.Methods)
	}
}

// A new stream (a reconnection) keeps the statistics and ends the old threads.
func TestNewStreamKeepsStatistics(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a, &decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 1, Time: ms(1)}, &decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: ms(2)})
	// The new JVM numbers its methods differently.
	a.Apply([]decode.Event{
		&decode.ClassDef{ClassID: 7, Name: "com.acme.Cache"},
		&decode.MethodDef{Name: "get", ClassIDRef: 7, MethodID: 500, StartLineNumber: 40},
		&decode.ThreadStart{ThreadID: 1, ThreadName: "main-2"},
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 500, Ticket: 1, Time: ms(5)},
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: ms(7)},
	}, 2, decode.Clock{}, t0)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if m := methodByName(s, "com.acme.Cache.get"); m.Calls != 2 || len(s.Methods) != 1 {
		t.Fatalf("%+v", s.Methods)
	}
	ended, live := 0, 0
	for _, th := range s.Threads {
		if th.State == ThreadEnded {
			ended++
		} else {
			live++
		}
	}
	if ended != 3 || live != 1 {
		t.Fatalf("%d ended, %d live", ended, live)
	}
}

func TestEndedThreadsExpire(t *testing.T) {
	a := New(Options{EndedRetention: time.Minute, MaxEndedThreads: 5})
	var evs []decode.Event
	for i := range 20 {
		evs = append(evs, &decode.ThreadStart{ThreadID: int64(i), Time: ms(0)}, &decode.ThreadEnd{ThreadMoment: decode.ThreadMoment{ThreadIDRef: int64(i), Time: ms(i)}})
	}
	evs = append(evs, &decode.ThreadStart{ThreadID: 100, Time: ms(0)})
	feed(a, evs...)
	if s := a.Snapshot(t0, Query{CallersOf: -1}); len(s.Threads) != 6 {
		t.Fatalf("%d threads kept", len(s.Threads))
	}
	feed(a, &decode.ThreadStart{ThreadID: 101, Time: ms(120_000)}) // trace time moves on
	if s := a.Snapshot(t0.Add(2*time.Minute), Query{CallersOf: -1}); len(s.Threads) != 2 {
		t.Fatalf("%d threads kept after the retention", len(s.Threads))
	}
}

// Definitions that arrive after their first use still name the methods.
func TestLateDefinitionsNameTheMethods(t *testing.T) {
	a := New(Options{})
	feed(a,
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 1, Time: ms(1)},
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: ms(3)},
		&decode.MethodDef{Name: "get", ClassIDRef: 1, MethodID: 10, StartLineNumber: 40},
	)
	if m := methodByName(a.Snapshot(t0, Query{CallersOf: -1}), "class#1.get"); m == nil || m.Calls != 1 {
		t.Fatal("before the class is known")
	}
	feed(a, &decode.ClassDef{ClassID: 1, Name: "com.acme.Cache"})
	if m := methodByName(a.Snapshot(t0, Query{CallersOf: -1}), "com.acme.Cache.get"); m == nil || m.Calls != 1 {
		t.Fatalf("%+v", a.Snapshot(t0, Query{CallersOf: -1}).Methods)
	}
}

func TestStatechumFixture(t *testing.T) {
	f, err := os.Open("../../shared/fixtures/tptp/statechum-part3.trcxml")
	if err != nil {
		t.Skipf("the ../shared fixtures are absent: %v", err)
	}
	defer f.Close()
	d, err := decode.Open(f, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{})
	for {
		ev, err := d.Next()
		if err != nil {
			break
		}
		feed(a, decode.Clone(ev))
	}
	s := a.Snapshot(t0, Query{CallersOf: -1})
	calls := int64(0)
	for _, m := range s.Methods {
		calls += m.Calls
		if name := s.MethodName(&m); strings.Contains(name, "#") {
			t.Errorf("unnamed method %q", name)
		}
	}
	// TPTP's XML writes constructors "-init-": they read as the JVM names them.
	if methodByName(s, "sun.font.FontDesignMetrics.<init>") == nil {
		t.Error("the constructor FontDesignMetrics.-init- is not named <init>")
	}
	if calls != 1492 || s.Unpaired != 0 || s.Process.PID != 2662 || s.Process.Agent != "Java Profiling Agent" {
		t.Fatalf("%d calls, %d unpaired, %+v", calls, s.Unpaired, s.Process)
	}
	if len(s.Threads) != 6 {
		t.Fatalf("%d threads", len(s.Threads))
	}
}

// The simulator's deadlocks are found, and its monitors have classes.
func TestSimulatedServiceThroughTheAggregator(t *testing.T) {
	w := simulator.NewWorld(simulator.Config{Seed: 1, Start: t0, DeadlockEvery: 20 * time.Second, DeadlockFor: 10 * time.Second})
	a := New(Options{})
	batch := make([]decode.Event, 0, 1024)
	found := 0
	for i := 0; i < 1000; i++ {
		batch = batch[:0]
		for range 1024 {
			batch = append(batch, decode.Clone(w.Next()))
		}
		feed(a, batch...)
		if i%50 == 0 {
			s := a.Snapshot(t0, Query{CallersOf: -1})
			if len(s.Deadlocks) > 0 {
				found++
				d := s.Deadlocks[0]
				if d.Classes[0] != "com.acme.billing.Account" || len(d.Threads) != 2 {
					t.Fatalf("%+v", d)
				}
			}
			for _, m := range s.Monitors {
				if m.Class == "" {
					t.Fatalf("monitor %x has no class", m.Object)
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no deadlock seen")
	}
}

// The JVM reports no releases: an owner that has returned from the call
// that held the monitor is no longer shown as its owner.
func TestOwnerLeavesWithItsFrame(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a,
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 1, Time: ms(1)},
		&decode.MethodEntry{ThreadIDRef: 2, MethodIDRef: 11, Ticket: 2, Time: ms(2)},
		&decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: 5, ThreadOwner: 1, Time: ms(3)},
	)
	if m := monitorByObj(a.Snapshot(t0, Query{CallersOf: -1}), 5); m.Owner != 1 {
		t.Fatalf("%+v", m)
	}
	feed(a, &decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: ms(4)})
	if m := monitorByObj(a.Snapshot(t0, Query{CallersOf: -1}), 5); m.Owner != 0 {
		t.Fatalf("the owner returned, yet %+v", m)
	}
	feed(a, &decode.MonContendedEntered{ThreadIDRef: 2, ObjIDRef: 5, Time: ms(5)})
	if m := monitorByObj(a.Snapshot(t0, Query{CallersOf: -1}), 5); m.Owner != 2 || len(m.Waiters) != 0 {
		t.Fatalf("%+v", m)
	}
}

// Tables patched or refilled from a released snapshot (methods, threads,
// monitors, object classes) equal those built afresh.
func TestReusedSnapshotsEqualFreshOnes(t *testing.T) {
	w := simulator.NewWorld(simulator.Config{Seed: 5, Start: t0})
	reusing, fresh := New(Options{}), New(Options{})
	var prev *Snapshot
	at := t0
	for round := range 40 {
		var evs []decode.Event
		for range 5000 {
			evs = append(evs, decode.Clone(w.Next()))
		}
		if round == 20 {
			reusing.Reset()
			fresh.Reset()
		}
		reusing.Apply(evs, 1, decode.Clock{}, at)
		fresh.Apply(evs, 1, decode.Clock{}, at)
		at = at.Add(300 * time.Millisecond)
		q := Query{CallersOf: -1, Recent: round%7 == 3}
		got, want := reusing.Snapshot(at, q), fresh.Snapshot(at, q)
		if len(got.Methods) != len(want.Methods) || got.TotalSelf != want.TotalSelf {
			t.Fatalf("round %d: %d methods (%v) against %d (%v)", round, len(got.Methods), got.TotalSelf, len(want.Methods), want.TotalSelf)
		}
		for i := range want.Methods {
			if got.Methods[i] != want.Methods[i] {
				t.Fatalf("round %d, row %d: %+v against %+v", round, i, got.Methods[i], want.Methods[i])
			}
		}
		// Printed, not DeepEqual: an unknown CPU share is NaN, unequal to itself.
		if fmt.Sprintf("%+v", got.Threads) != fmt.Sprintf("%+v", want.Threads) {
			t.Fatalf("round %d: threads differ from a fresh snapshot's", round)
		}
		if !reflect.DeepEqual(got.Monitors, want.Monitors) {
			t.Fatalf("round %d: monitors differ from a fresh snapshot's", round)
		}
		if fmt.Sprintf("%+v", got.Objects) != fmt.Sprintf("%+v", want.Objects) {
			t.Fatalf("round %d: objects differ from a fresh snapshot's", round)
		}
		if round > 2 && (len(got.Threads) == 0 || len(got.Monitors) == 0 || len(got.Objects.Classes) == 0) {
			t.Fatalf("round %d: %d threads, %d monitors, %d classes: nothing reused", round, len(got.Threads), len(got.Monitors), len(got.Objects.Classes))
		}
		reusing.Release(prev)
		prev = got
	}
}

// Calls opened on a method id that turns out to be a method already known
// (merged slots) end on the surviving method, and patched tables stay right.
func TestCallsOpenAcrossAMergeEndOnTheSurvivor(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a,
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 1, Time: ms(1)},
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: ms(2)},
		&decode.MethodEntry{ThreadIDRef: 2, MethodIDRef: 20, Ticket: 2, Time: ms(3)},
		&decode.MethodEntry{ThreadIDRef: 3, MethodIDRef: 20, Ticket: 3, Time: ms(3)},
		// id 20 is the same method as id 10: its slot merges into 10's.
		&decode.MethodDef{Name: "get", ClassIDRef: 1, MethodID: 20, StartLineNumber: 40},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	a.Release(s)
	feed(a, &decode.MethodExit{ThreadIDRef: 2, Ticket: 2, Time: ms(5)})
	s = a.Snapshot(t0, Query{CallersOf: -1})
	a.Release(s)
	feed(a, &decode.MethodExit{ThreadIDRef: 3, Ticket: 3, Time: ms(6)})
	s = a.Snapshot(t0, Query{CallersOf: -1})
	if len(s.Methods) != 1 {
		t.Fatalf("%d rows: %+v", len(s.Methods), s.Methods)
	}
	if m := methodByName(s, "com.acme.Cache.get"); m == nil || m.Calls != 3 || s.Percent(m) < 99.9 {
		t.Fatalf("%+v (%.1f%%)", m, s.Percent(m))
	}
}

// A stream that names a class twice, differently, and defines its methods
// again under each name merges their slots back and forth; the merges
// must not form a cycle, which left the aggregator following it forever
// at the next call of the method.
func TestMergesBackAndForthDoNotLoop(t *testing.T) {
	a := New(Options{})
	done := make(chan *Snapshot, 1)
	go func() {
		feed(a,
			&decode.ClassDef{ClassID: 2, Name: "p.A"},
			&decode.MethodDef{Name: "m", ClassIDRef: 2, MethodID: 1}, // slot 0: p.A.m
			&decode.ClassDef{ClassID: 2, Name: "p.B"},
			&decode.MethodDef{Name: "m", ClassIDRef: 2, MethodID: 3}, // slot 1: p.B.m
			&decode.MethodDef{Name: "m", ClassIDRef: 2, MethodID: 1}, // id 1 is p.B.m now: slot 0 merges into 1
			&decode.ClassDef{ClassID: 2, Name: "p.A"},
			&decode.MethodDef{Name: "m", ClassIDRef: 2, MethodID: 3}, // p.A.m again: not the merged slot 0
			&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 3, Ticket: 1, Time: ms(1)},
			&decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: ms(2)},
			&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 1, Ticket: 2, Time: ms(3)},
			&decode.MethodExit{ThreadIDRef: 1, Ticket: 2, Time: ms(5)},
		)
		done <- a.Snapshot(t0, Query{CallersOf: -1})
	}()
	var s *Snapshot
	select {
	case s = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the aggregator did not come back: merged slots in a cycle")
	}
	var calls int64
	for i := range s.Methods {
		calls += s.Methods[i].Calls
	}
	if calls != 2 {
		t.Fatalf("%d calls in all, want 2: %+v", calls, s.Methods)
	}
}

// An id whose slot was merged into another's, defined again under a new
// name, is a method of that name: the merged slot is not renamed (which
// took another method's key from the index, and showed that method twice).
func TestMethodRedefinedAfterItsSlotMerged(t *testing.T) {
	a := New(Options{})
	evs := []decode.Event{&decode.ClassDef{ClassID: 1, Name: "p.A"}}
	for _, d := range []struct {
		id   int64
		name string
	}{{1, "m"}, {2, "m"}, {3, "k"}, {1, "k"}, {4, "m"}, {2, "z"}, {5, "m"}, {6, "z"}} {
		evs = append(evs, &decode.MethodDef{Name: d.name, ClassIDRef: 1, MethodID: d.id})
	}
	for i, id := range []int64{5, 4, 2, 6} {
		ticket := int32(i + 1)
		evs = append(evs, &decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: id, Ticket: ticket, Time: ms(2 * i)},
			&decode.MethodExit{ThreadIDRef: 1, Ticket: ticket, Time: ms(2*i + 1)})
	}
	feed(a, evs...)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	calls := map[string]int64{}
	rows := map[string]int{}
	for i := range s.Methods {
		name := s.MethodName(&s.Methods[i])
		calls[name] += s.Methods[i].Calls
		rows[name]++
	}
	if rows["p.A.m"] != 1 || calls["p.A.m"] != 2 || calls["p.A.z"] != 2 || calls["p.A.k"] != 0 {
		t.Fatalf("rows %v, calls %v; want one p.A.m of 2 calls, p.A.z of 2, p.A.k of none", rows, calls)
	}
}

// A contender naming the known owner does not move the depth at which the
// owner took the monitor: the owner returning from a deeper call still owns it.
func TestOwnerDepthSurvivesContenders(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a,
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 1, Time: ms(1)},
		&decode.MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 7, ThreadOwner: 3, Time: ms(2)},
		&decode.MonContendedEntered{ThreadIDRef: 1, ObjIDRef: 7, Time: ms(3)}, // thread 1 takes 7 at depth 1
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 11, Ticket: 2, Time: ms(4)},
		&decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: 7, ThreadOwner: 1, Time: ms(5)},
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 2, Time: ms(6)}, // back to depth 1: still inside the synchronized call
		&decode.MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 8, ThreadOwner: 2, Time: ms(7)},
	)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if m := monitorByObj(s, 7); m.Owner != 1 {
		t.Fatalf("owner of 7: %d", m.Owner)
	}
	if len(s.Deadlocks) != 1 {
		t.Fatalf("the deadlock 1→7→... is missed: %+v", s.Deadlocks)
	}
}

// A thread's first CPU reading is a baseline, not CPU spent by its first call.
func TestFirstCPUReadingIsABaseline(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a, &decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 1, Time: ms(1)})
	a.Snapshot(t0, Query{CallersOf: -1})
	feed(a, &decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: ms(2), ThreadCPUTime: decode.Ticks(time.Hour)})
	s := a.Snapshot(t0.Add(time.Second), Query{CallersOf: -1})
	if m := methodByName(s, "com.acme.Cache.get"); m.CPU != 0 {
		t.Fatalf("a 1 ms call charged %v of CPU", m.CPU)
	}
	if th := threadByID(s, 1); th.CPU != time.Hour || (th.CPUPercent.Known() && th.CPUPercent != 0) {
		t.Fatalf("thread %v CPU, %.0f%%", th.CPU, th.CPUPercent)
	}
	feed(a,
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 2, Time: ms(3)},
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 2, Time: ms(9), ThreadCPUTime: decode.Ticks(time.Hour + 5*time.Millisecond)},
	)
	s = a.Snapshot(t0.Add(2*time.Second), Query{CallersOf: -1})
	if m := methodByName(s, "com.acme.Cache.get"); m.CPU != 5*time.Millisecond {
		t.Fatalf("second call: %v", m.CPU)
	}
}

// A late methodDef's line reaches a patched table.
func TestLateLineReachesPatchedTables(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a, &decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 30, Ticket: 1, Time: ms(1)}, &decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: ms(2)})
	a.Release(a.Snapshot(t0, Query{CallersOf: -1}))
	feed(a, &decode.MethodDef{Name: "put", ClassIDRef: 1, MethodID: 30, StartLineNumber: 77})
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if m := methodByName(s, "com.acme.Cache.put"); m == nil || m.Line != 77 {
		t.Fatalf("%+v", m)
	}
}

// CPU reported in batches (JFR flushes once a second) gives a steady %CPU
// at a faster refresh, not one that flickers between 0 and double.
func TestCPUPercentIsSteady(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	var got []float64
	for i := 0; i < 16; i++ {
		at := t0.Add(time.Duration(i) * 500 * time.Millisecond)
		if i%2 == 0 { // half a second of CPU a second, read by a poll once a second
			a.Apply([]decode.Event{
				&decode.ThreadState{ThreadIDRef: 2, Time: decode.Clock{}.FromTime(at), State: decode.StateRunning, CPUTime: decode.Ticks(i / 2 * 500_000_000)},
				&decode.ThreadPoll{Time: decode.Clock{}.FromTime(at), Threads: 1},
			}, 1, decode.Clock{}, at)
		}
		th := threadByID(a.Snapshot(at, Query{CallersOf: -1}), 2)
		if i == 0 && th.CPUPercent.Known() {
			t.Fatalf("%%CPU %v from a single reading: it should be unknown", th.CPUPercent)
		}
		if i >= 8 {
			got = append(got, float64(th.CPUPercent))
		}
	}
	for _, p := range got {
		if p < 35 || p > 70 {
			t.Fatalf("%%CPU %v, want about 50 each time", got)
		}
	}
}

// A profiler that learns of contentions once they are over (the JVM agent,
// from JFR) may report one after it has reported the thread blocked now:
// the late one counts in the statistics and the present state stands, so a
// deadlock is not broken by news of an earlier, short contention.
func TestLateContentionLeavesThePresentAlone(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	feed(a,
		// Threads 1 and 2 deadlock from 1000 ms.
		&decode.MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 102, ThreadOwner: 2, Time: ms(1000), Stack: stack("a.deadlock")},
		&decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: 101, ThreadOwner: 1, Time: ms(1000)},
		// Then news of thread 1's contention on 105 from 200 to 500 ms, and
		// of a wait on 106 from 600 to 700 ms.
		&decode.MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 105, ThreadOwner: 3, Time: ms(200), Stack: stack("a.earlier")},
		&decode.MonContendedEntered{ThreadIDRef: 1, ObjIDRef: 105, Time: ms(500)},
		&decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: 1, ObjIDRef: 106, Time: ms(600)}},
		&decode.MonWaited{MonitorWait: decode.MonitorWait{ThreadIDRef: 1, ObjIDRef: 106, Time: ms(700)}},
	)
	s := a.Snapshot(t0.Add(2*time.Second), Query{CallersOf: -1, StackOf: 1})
	if len(s.Deadlocks) != 1 {
		t.Fatalf("deadlocks %+v", s.Deadlocks)
	}
	th := threadByID(s, 1)
	if th.State != ThreadBlocked || th.Contentions != 2 || th.Waiting != 100*time.Millisecond || th.Blocked != 300*time.Millisecond {
		t.Fatalf("thread 1: state %v, %d contentions, blocked %v, waiting %v", th.State, th.Contentions, th.Blocked, th.Waiting)
	}
	if len(th.Stack) == 0 || th.Stack[0].Method != "a.deadlock" {
		t.Fatalf("the present stack was replaced: %+v", th.Stack)
	}
	m := monitorByObj(s, 105)
	if m == nil || m.Enters != 1 || m.BlockedMax != 300*time.Millisecond || len(m.Waiters) != 0 || m.Owner != 0 {
		t.Fatalf("monitor 105: %+v", m)
	}
	if w := monitorByObj(s, 106); w == nil || w.Waits != 1 || len(w.Waiters) != 0 {
		t.Fatalf("monitor 106: %+v", w)
	}
	// A late contention whose end falls just after the present began (the
	// profiler read its clock before the thread states) is still late.
	feed(a,
		&decode.MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 105, Time: ms(990)},
		&decode.MonContendedEntered{ThreadIDRef: 1, ObjIDRef: 105, Time: ms(1003)},
	)
	s = a.Snapshot(t0.Add(2*time.Second), Query{CallersOf: -1})
	if th := threadByID(s, 1); th.State != ThreadBlocked || len(s.Deadlocks) != 1 || monitorByObj(s, 105).BlockedMax != 300*time.Millisecond {
		t.Fatalf("after a late contention ending after the present began: %+v, deadlocks %+v", th, s.Deadlocks)
	}
	// When the present contention ends, the thread runs, and the next
	// contention is the present again.
	feed(a,
		&decode.MonContendedEntered{ThreadIDRef: 1, ObjIDRef: 102, Time: ms(3000)},
		&decode.MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 105, Time: ms(3100)},
	)
	s = a.Snapshot(t0.Add(4*time.Second), Query{CallersOf: -1})
	if th := threadByID(s, 1); th.State != ThreadBlocked || len(s.Deadlocks) != 0 || len(monitorByObj(s, 105).Waiters) != 1 {
		t.Fatalf("after: %+v, deadlocks %+v", th, s.Deadlocks)
	}
}

// A thread that ended shows no %CPU: the rate of its last seconds alive
// stayed on its row (46% on a JVM that had exited).
func TestEndedThreadsHaveNoCPUPercent(t *testing.T) {
	a := New(Options{})
	feed(a, defs()...)
	var at time.Time
	for i := range 6 {
		at = t0.Add(time.Duration(i) * time.Second)
		a.Apply([]decode.Event{
			&decode.ThreadState{ThreadIDRef: 2, Time: decode.Clock{}.FromTime(at), State: decode.StateRunning, CPUTime: decode.Ticks(i * 500_000_000)},
			&decode.ThreadPoll{Time: decode.Clock{}.FromTime(at), Threads: 1},
		}, 1, decode.Clock{}, at)
		a.Snapshot(at, Query{CallersOf: -1})
	}
	if th := threadByID(a.Snapshot(at, Query{CallersOf: -1}), 2); !th.CPUPercent.Known() {
		t.Fatalf("running: %%CPU unknown")
	}
	at = at.Add(100 * time.Millisecond)
	a.Apply([]decode.Event{&decode.RuntimeShutdown{ThreadMoment: decode.ThreadMoment{Time: decode.Clock{}.FromTime(at)}}}, 1, decode.Clock{}, at)
	if th := threadByID(a.Snapshot(at, Query{CallersOf: -1}), 2); th.State != ThreadEnded || th.CPUPercent.Known() {
		t.Fatalf("after the process exited: %v, %%CPU %v", th.State, th.CPUPercent)
	}
}
