package simulator

import (
	"io"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

var testStart = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// take returns n events, cloned.
func take(w *World, n int) []decode.Event {
	out := make([]decode.Event, n)
	for i := range out {
		out[i] = decode.Clone(w.Next())
	}
	return out
}

func TestWorldIsDeterministicForASeed(t *testing.T) {
	a := take(NewWorld(Config{Seed: 7, Start: testStart}), 50_000)
	b := take(NewWorld(Config{Seed: 7, Start: testStart}), 50_000)
	c := take(NewWorld(Config{Seed: 8, Start: testStart}), 50_000)
	same := func(x, y []decode.Event) bool {
		var bx, by []byte
		for i := range x {
			bx = decode.AppendJSON(bx[:0], x[i], decode.Clock{}, nil)
			by = decode.AppendJSON(by[:0], y[i], decode.Clock{}, nil)
			if string(bx) != string(by) {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Fatal("the same seed gave different streams")
	}
	if same(a, c) {
		t.Fatal("different seeds gave the same stream")
	}
}

// The stream is consistent the way a real profiler's is: definitions before
// use, monitor events that pair up with a consistent owner, stacks of 5 to
// 20 frames, GC cycles with heap figures, and a deadlock now and then.
func TestWorldIsConsistent(t *testing.T) {
	w := NewWorld(Config{Seed: 1, Start: testStart, DeadlockEvery: 20 * time.Second, DeadlockFor: 5 * time.Second})
	methods, classes := map[int64]bool{}, map[int64]bool{}
	alive := map[int64]bool{}
	blockedOn := map[int64]int64{} // thread -> monitor it contends for
	owner := map[int64]int64{}     // monitor -> owner named by the latest contended enter
	waitingOn := map[int64]int64{}
	var last decode.Ticks
	counts := map[decode.Kind]int{}
	deadlocks := 0
	names := map[string]bool{}
	for i := range 3_000_000 {
		ev := w.Next()
		counts[ev.Kind()]++
		var tm decode.Ticks
		switch e := ev.(type) {
		case *decode.ClassDef:
			classes[e.ClassID] = true
		case *decode.MethodDef:
			if !classes[e.ClassIDRef] {
				t.Fatalf("event %d: methodDef %s before its class %d", i, e.Name, e.ClassIDRef)
			}
			methods[e.MethodID] = true
		case *decode.ThreadStart:
			alive[e.ThreadID] = true
			names[e.ThreadName] = true
			tm = e.Time
		case *decode.ThreadEnd:
			if !alive[e.ThreadIDRef] {
				t.Fatalf("event %d: thread %d ends twice", i, e.ThreadIDRef)
			}
			delete(alive, e.ThreadIDRef)
			delete(blockedOn, e.ThreadIDRef)
			delete(waitingOn, e.ThreadIDRef)
			tm = e.Time
		case *decode.MethodEntry:
			if !methods[e.MethodIDRef] || !alive[e.ThreadIDRef] {
				t.Fatalf("event %d: methodEntry of method %d (defined %v) on thread %d (alive %v)", i, e.MethodIDRef, methods[e.MethodIDRef], e.ThreadIDRef, alive[e.ThreadIDRef])
			}
			tm = e.Time
		case *decode.MethodExit:
			tm = e.Time
		case *decode.MonContendedEnter:
			if !alive[e.ThreadOwner] || e.ThreadOwner == e.ThreadIDRef {
				t.Fatalf("event %d: thread %d blocks on a monitor owned by %d (alive %v)", i, e.ThreadIDRef, e.ThreadOwner, alive[e.ThreadOwner])
			}
			if d := e.Stack.Depth(); d < 5 || d > 20 || len(e.Stack.Lines) != d {
				t.Fatalf("event %d: stack of %d frames", i, d)
			}
			blockedOn[e.ThreadIDRef] = e.ObjIDRef
			owner[e.ObjIDRef] = e.ThreadOwner
			// A deadlock: the owner is blocked on a monitor this thread owns.
			if o, ok := blockedOn[e.ThreadOwner]; ok && owner[o] == e.ThreadIDRef {
				deadlocks++
			}
			tm = e.Time
		case *decode.MonContendedEntered:
			if blockedOn[e.ThreadIDRef] != e.ObjIDRef {
				t.Fatalf("event %d: thread %d entered %x without contending for it", i, e.ThreadIDRef, e.ObjIDRef)
			}
			delete(blockedOn, e.ThreadIDRef)
			owner[e.ObjIDRef] = e.ThreadIDRef
			tm = e.Time
		case *decode.MonWait:
			waitingOn[e.ThreadIDRef] = e.ObjIDRef
			tm = e.Time
		case *decode.MonWaited:
			if waitingOn[e.ThreadIDRef] != e.ObjIDRef {
				t.Fatalf("event %d: monWaited without monWait", i)
			}
			delete(waitingOn, e.ThreadIDRef)
			tm = e.Time
		case *decode.GCFinish:
			if e.UsedObjSpace <= 0 || e.UsedObjSpace >= e.TotalObjSpace {
				t.Fatalf("event %d: heap %d of %d", i, e.UsedObjSpace, e.TotalObjSpace)
			}
			tm = e.Time
		}
		if tm != 0 {
			if tm < last {
				t.Fatalf("event %d: time goes back from %d to %d", i, last, tm)
			}
			last = tm
		}
	}
	for _, k := range []decode.Kind{decode.KindThreadStart, decode.KindThreadEnd, decode.KindMethodEntry, decode.KindMethodExit,
		decode.KindMonContendedEnter, decode.KindMonContendedEntered, decode.KindMonWait, decode.KindMonWaited,
		decode.KindGCStart, decode.KindGCFinish, decode.KindObjFree, decode.KindObjAlloc} {
		if counts[k] == 0 {
			t.Errorf("no %s in 3M events", k)
		}
	}
	if deadlocks == 0 {
		t.Errorf("no deadlock in %v of virtual time", decode.Clock{}.Time(last).Sub(testStart))
	}
	if len(names) < 40 {
		t.Errorf("only %d thread names", len(names))
	}
	t.Logf("%v of virtual time, %d deadlocks, %d threads named; %v", decode.Clock{}.Time(last).Sub(testStart), deadlocks, len(names), counts)
}

func TestAggregatedModeReportsAgMethodEntry(t *testing.T) {
	w := NewWorld(Config{Seed: 3, Start: testStart, Aggregated: true})
	counts := map[decode.Kind]int{}
	calls := int64(0)
	for range 200_000 {
		ev := w.Next()
		counts[ev.Kind()]++
		if a, ok := ev.(*decode.AgMethodEntry); ok {
			calls += a.NumCalls
			if a.MinTime > a.MaxTime || a.NumCalls <= 0 || a.ThreadIDRef == 0 {
				t.Fatalf("%+v", a)
			}
		}
	}
	if counts[decode.KindMethodEntry] != 0 || counts[decode.KindAgMethodEntry] == 0 || calls == 0 {
		t.Fatalf("%v", counts)
	}
}

func TestWorldDoesNotAllocatePerEvent(t *testing.T) {
	w := NewWorld(Config{Seed: 2, Start: testStart})
	for range 500_000 {
		w.Next()
	}
	if a := testing.AllocsPerRun(100_000, func() { w.Next() }); a > 0.001 {
		t.Fatalf("%.4f allocations per event", a)
	}
}

// BenchmarkWorld: the generator must not be the bottleneck of the
// end-to-end benchmark (target 3 M events/s through the client).
func BenchmarkWorld(b *testing.B) {
	w := NewWorld(Config{Seed: 2, Start: testStart})
	b.ReportAllocs()
	for b.Loop() {
		w.Next()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkWorldEncoded is what the simulator does per event at saturation:
// generate and encode (binary).
func BenchmarkWorldEncoded(b *testing.B) {
	w := NewWorld(Config{Seed: 2, Start: testStart})
	enc := decode.NewEncoder(io.Discard, decode.EncoderOptions{})
	b.ReportAllocs()
	for b.Loop() {
		enc.Encode(w.Next())
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// A thread's CPU time grows only while it runs: blocked on a monitor or in
// Object.wait it accrues none, however long the contention (a deadlock's
// bystanders wait seconds). The simulator charges at most a fifth of the
// time a frame ran, so five times a thread's CPU time never exceeds the
// time it spent off monitors since it started.
func TestThreadsAccrueNoCPUWhileBlockedOrWaiting(t *testing.T) {
	w := NewWorld(Config{Seed: 4, Start: testStart, DeadlockEvery: 10 * time.Second, DeadlockFor: 5 * time.Second})
	started := map[int64]decode.Ticks{}
	stalled := map[int64]decode.Ticks{}   // time blocked or waiting so far
	stalledAt := map[int64]decode.Ticks{} // since when, while it lasts
	stall := func(id int64, at decode.Ticks) {
		if _, on := stalledAt[id]; !on {
			stalledAt[id] = at
		}
	}
	resume := func(id int64, at decode.Ticks) {
		if since, on := stalledAt[id]; on {
			stalled[id] += at - since
			delete(stalledAt, id)
		}
	}
	checked := 0
	for range 2_000_000 {
		switch e := w.Next().(type) {
		case *decode.ThreadStart:
			started[e.ThreadID] = e.Time
		case *decode.MonContendedEnter:
			stall(e.ThreadIDRef, e.Time)
		case *decode.MonWait:
			stall(e.ThreadIDRef, e.Time)
		case *decode.MonContendedEntered:
			resume(e.ThreadIDRef, e.Time)
		case *decode.MonWaited:
			// Woken, it may block at once to get the monitor back: the
			// contended enter comes at the same moment.
			resume(e.ThreadIDRef, e.Time)
		case *decode.MethodExit:
			ran := e.Time - started[e.ThreadIDRef] - stalled[e.ThreadIDRef]
			if 5*e.ThreadCPUTime > ran {
				t.Fatalf("thread %d: %v of CPU after running %v (%v blocked or waiting)", e.ThreadIDRef,
					time.Duration(e.ThreadCPUTime), time.Duration(ran), time.Duration(stalled[e.ThreadIDRef]))
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no method exit")
	}
}
