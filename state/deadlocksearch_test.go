package state

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// deadlocksByMaps is the search written plainly, with maps: the wait-for
// graph's edges, then a walk from each blocked thread in id order.
func deadlocksByMaps(monitors []*monitor) [][]int64 {
	next := map[*thread]*monitor{}
	for _, m := range monitors {
		o := m.currentOwner()
		if o == nil {
			continue
		}
		for _, w := range m.waiters {
			if _, seen := next[w.t]; !w.waiting && w.t != o && !seen {
				next[w.t] = m
			}
		}
	}
	var starts []*thread
	for t := range next {
		starts = append(starts, t)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i].id < starts[j].id })
	var out [][]int64
	done := map[*thread]bool{}
	for _, start := range starts {
		pos := map[*thread]int{}
		var path []*thread
		for t := start; t != nil && !done[t]; {
			if i, ok := pos[t]; ok {
				var ids []int64
				for _, c := range path[i:] {
					ids = append(ids, c.id)
				}
				low := slices.Index(ids, slices.Min(ids))
				out = append(out, append(ids[low:], ids[:low]...))
				break
			}
			pos[t] = len(path)
			path = append(path, t)
			m, ok := next[t]
			if !ok {
				break
			}
			t = m.currentOwner()
		}
		for _, t := range path {
			done[t] = true
		}
	}
	return out
}

// The search finds exactly the cycles the plain search finds, over random
// wait-for graphs: chains, cycles, threads waiting (not blocked), owners
// ended, searches one after another on the same threads.
func TestDeadlockSearchAgreesWithThePlainSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cycles := 0
	for round := range 2000 {
		threads := make([]*thread, 2+r.IntN(30))
		for i := range threads {
			threads[i] = &thread{id: int64(100 - i), state: ThreadBlocked}
		}
		mt := &monitorTable{byObj: map[int64]*monitor{}}
		var all []*monitor
		for i := range 1 + r.IntN(20) {
			m := &monitor{obj: int64(i + 1)}
			if r.IntN(5) > 0 {
				m.owner = threads[r.IntN(len(threads))]
			}
			for range r.IntN(4) {
				mt.addWaiter(m, waiter{t: threads[r.IntN(len(threads))], waiting: r.IntN(6) == 0, since: int64(1 + r.IntN(9))})
			}
			mt.byObj[m.obj] = m
			all = append(all, m)
		}
		if r.IntN(4) == 0 {
			threads[r.IntN(len(threads))].state = ThreadEnded
		}
		// A thread blocks on one monitor: where the random graph has it on
		// several, both searches take the one met first, in object order.
		for _, m := range all {
			seen := map[*thread]bool{}
			m.waiters = slices.DeleteFunc(m.waiters, func(w waiter) bool { d := seen[w.t]; seen[w.t] = true; return d })
		}
		var blockedOn = map[*thread]bool{}
		for _, m := range all {
			m.waiters = slices.DeleteFunc(m.waiters, func(w waiter) bool {
				if w.waiting {
					return false
				}
				d := blockedOn[w.t]
				blockedOn[w.t] = true
				return d
			})
		}
		want := deadlocksByMaps(all)
		cycles += len(want)
		for range 2 { // the second search finds the threads marked by the first
			var got [][]int64
			for _, d := range mt.deadlocks(nil) {
				got = append(got, d.Threads)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("round %d: %v, the plain search %v", round, got, want)
			}
		}
	}
	if cycles < 100 {
		t.Fatalf("only %d cycles in the graphs", cycles)
	}
}

// TestDeadlockSearchFollowsTheBusyMonitors checks that the search, which
// looks only at the monitors given waiters since the last search, finds a
// deadlock whose monitors had waiters before, lost them (a search between
// dropped them from its list), then got them again.
func TestDeadlockSearchFollowsTheBusyMonitors(t *testing.T) {
	mt := &monitorTable{}
	mt.init(100, 10)
	a, b := &thread{id: 1, state: ThreadBlocked}, &thread{id: 2, state: ThreadBlocked}
	mt.contend(10, a, b, 1) // a waits for b's monitor 10
	mt.contend(20, b, a, 1) // b waits for a's monitor 20
	if got := mt.deadlocks(nil); len(got) != 1 {
		t.Fatalf("%d deadlocks, want 1", len(got))
	}
	mt.entered(10, a, 2, 1)
	mt.entered(20, b, 2, 1)
	if got := mt.deadlocks(nil); len(got) != 0 || len(mt.busy) != 0 {
		t.Fatalf("%d deadlocks and %d monitors listed once no one waits", len(got), len(mt.busy))
	}
	mt.contend(10, b, a, 3) // now the other way round
	mt.contend(20, a, b, 3)
	got := mt.deadlocks(nil)
	if len(got) != 1 || fmt.Sprint(got[0].Threads) != "[1 2]" {
		t.Fatalf("deadlocks %+v, want one of threads 1 and 2", got)
	}
}

// TestMonitorExpiryIsTheSameEveryTime checks that a full table drops the
// idle monitors seen longest ago, in the order the events saw them, never
// one with a waiter, whatever the map's order: a replay shows the same
// monitors every time.
func TestMonitorExpiryIsTheSameEveryTime(t *testing.T) {
	for round := range 20 {
		mt := &monitorTable{}
		mt.init(100, 10)
		waiter := &thread{id: 1, state: ThreadBlocked}
		for obj := int64(1); obj <= 12; obj++ {
			mt.get(obj, (obj-1)/4) // seen at 0, 0, 0, 0, 1, 1, ...
		}
		mt.contend(2, waiter, nil, 0) // busy: stays, old as it is
		mt.expire(7)
		var kept []int64
		for obj := range mt.byObj {
			kept = append(kept, obj)
		}
		slices.Sort(kept)
		if fmt.Sprint(kept) != "[2 7 8 9 10 11 12]" {
			t.Fatalf("round %d: kept %v", round, kept)
		}
	}
}
