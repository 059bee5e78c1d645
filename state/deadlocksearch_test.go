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
				m.waiters = append(m.waiters, waiter{t: threads[r.IntN(len(threads))], waiting: r.IntN(6) == 0, since: int64(1 + r.IntN(9))})
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
