package state

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// threadRowFaults compares the thread rows of the snapshot just taken
// with rows made anew from every thread: a table brought up to date
// (threadrows.go) must not differ from one.
func threadRowFaults(a *Aggregator, s *Snapshot, q Query) error {
	tt := &a.threads
	if len(s.Threads) != len(tt.all) {
		return fmt.Errorf("%d rows for %d threads", len(s.Threads), len(tt.all))
	}
	now := a.latest
	if now == 0 {
		now = s.Taken.UnixNano()
	}
	fresh := make([]Thread, len(tt.all))
	for i, t := range tt.all {
		tt.fillRow(&fresh[i], t, now, tt.readingsAt(now)-tt.prevAt, q.StackOf, q.AllStacks, &a.methods, threadNames{a.ownerName, a.mountedName})
	}
	for i := range fresh {
		got, want := s.Threads[i], fresh[i]
		if math.IsNaN(float64(got.CPUPercent)) && math.IsNaN(float64(want.CPUPercent)) {
			got.CPUPercent, want.CPUPercent = 0, 0 // unknown in both: NaN is equal to nothing
		}
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("row %d (thread %d) brought up to date:\n%+v\nmade anew:\n%+v", i, fresh[i].ID, s.Threads[i], fresh[i])
		}
	}
	return nil
}

// TestThreadRowsBroughtUpToDate plays random streams of a few threads
// (calls, contention, waits, samples, CPU readings, polls, starts, ends,
// methods named late, alike and again, classes named twice, resets, new
// streams), takes snapshots between runs of events as the interface does
// (now and then of a thread's stack, or of every stack), releases them in
// turn, and checks that every table of thread rows equals rows made anew
// and that the method table's indexes hold (methodIndexFaults).
func TestThreadRowsBroughtUpToDate(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		a := New(Options{MaxThreads: 12, MaxEndedThreads: 3, TraceTime: true})
		st := decode.Stack{Methods: []string{"a.B.c", "a.B.d"}, Lines: []int64{1, 2}}
		now := decode.Ticks(1_000_000_000)
		ticket := int32(0)
		open := map[int64][]int32{}
		var held []*Snapshot
		at := t0
		for round := range 60 {
			var evs []decode.Event
			for range 1 + r.IntN(30) {
				th := int64(1 + r.IntN(10))
				now += decode.Ticks(r.IntN(400_000_000))
				switch k := r.IntN(16); k {
				case 0:
					evs = append(evs, &decode.ThreadStart{ThreadID: th, ThreadName: fmt.Sprintf("w%d-%d", th, round), Time: now})
				case 1:
					evs = append(evs, &decode.ThreadEnd{ThreadMoment: decode.ThreadMoment{ThreadIDRef: th, Time: now}})
				case 2, 3, 4:
					ticket++
					open[th] = append(open[th], ticket)
					evs = append(evs, &decode.MethodEntry{ThreadIDRef: th, MethodIDRef: int64(1 + r.IntN(6)), Ticket: ticket, Time: now})
				case 5, 6:
					if n := len(open[th]); n > 0 {
						evs = append(evs, &decode.MethodExit{ThreadIDRef: th, Ticket: open[th][n-1], Time: now, ThreadCPUTime: now / 3})
						open[th] = open[th][:n-1]
					}
				case 7:
					evs = append(evs, &decode.MonContendedEnter{ThreadIDRef: th, ObjIDRef: int64(10 + r.IntN(3)), ThreadOwner: int64(1 + r.IntN(10)), Time: now, Stack: st})
				case 8:
					evs = append(evs, &decode.MonContendedEntered{ThreadIDRef: th, ObjIDRef: int64(10 + r.IntN(3)), Time: now, Stack: st})
				case 9:
					evs = append(evs, &decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: th, ObjIDRef: int64(20 + r.IntN(3)), Timeout: 50, Time: now, Stack: st}})
				case 10:
					evs = append(evs, &decode.MonWaited{MonitorWait: decode.MonitorWait{ThreadIDRef: th, ObjIDRef: int64(20 + r.IntN(3)), Time: now}})
				case 11:
					evs = append(evs, &decode.Sample{ThreadIDRef: th, Time: now, Count: 1, Weight: decode.Ticks(r.IntN(2)) * 100, Stack: st})
				case 12:
					evs = append(evs, &decode.ThreadCPU{ThreadIDRef: th, Time: now, CPUTime: now / 2})
				case 13:
					if r.IntN(4) == 0 { // a poll: the stream becomes a polled one
						states := []string{"blocked", "waiting", "runnable", "parked"}
						evs = append(evs, &decode.ThreadState{ThreadIDRef: th, Time: now, State: states[r.IntN(len(states))],
							LockObjIDRef: int64(10 + r.IntN(3)), LockOwner: int64(r.IntN(11)), Stack: st, CPUTime: decode.Ticks(r.IntN(3)-1) * now / 4},
							&decode.ThreadPoll{Time: now, Threads: 1})
					}
				case 14:
					// Ids named alike, and named again: their slots merge.
					evs = append(evs, &decode.MethodDef{Name: fmt.Sprintf("m%d", r.IntN(4)), ClassIDRef: int64(1 + r.IntN(3)), MethodID: int64(1 + r.IntN(6))})
				case 15:
					c := int64(1 + r.IntN(3))
					evs = append(evs, &decode.ClassDef{ClassID: c, Name: fmt.Sprintf("p.C%d-%d", c, r.IntN(3))})
				}
			}
			stream := 1
			if r.IntN(40) == 0 {
				stream = 2 // a new stream
			}
			if r.IntN(50) == 0 {
				a.Reset()
			}
			a.Apply(evs, stream, decode.Clock{}, at)
			at = at.Add(time.Duration(r.IntN(1500)) * time.Millisecond)
			q := Query{Recent: true, CallersOf: -1}
			switch r.IntN(6) {
			case 0:
				q.StackOf = int64(1 + r.IntN(10))
			case 1:
				q.AllStacks = true
			}
			s := a.Snapshot(at, q)
			if err := threadRowFaults(a, s, q); err != nil {
				t.Fatalf("seed %d, round %d: %v", seed, round, err)
			}
			if err := methodIndexFaults(&a.methods); err != nil {
				t.Fatalf("seed %d, round %d: %v", seed, round, err)
			}
			// Released one or two snapshots late, in either order, as
			// the interface and the recorder do.
			held = append(held, s)
			for len(held) > 1+r.IntN(2) {
				i := r.IntN(len(held))
				a.Release(held[i])
				held = append(held[:i], held[i+1:]...)
			}
		}
	}
}
