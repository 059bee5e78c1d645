package state

import (
	"math/rand/v2"
	"testing"
)

// TestThreadIndexAgreesWithAMap files, replaces and removes threads under
// random ids (small ones, large ones, negative ones, and ids filed in the
// map before the dense part grew past them) and checks every answer
// against a map's.
func TestThreadIndexAgreesWithAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var x idIndex[*thread]
	want := map[int64]*thread{}
	for i := range 100_000 {
		var id int64
		switch r.IntN(4) {
		case 0:
			id = int64(r.IntN(2000))
		case 1:
			id = int64(r.IntN(20_000))
		case 2:
			id = -int64(r.IntN(100))
		default:
			id = r.Int64()
		}
		switch r.IntN(5) {
		case 0:
			x.remove(id)
			delete(want, id)
		case 1, 2:
			th := &thread{id: id}
			known := len(want)
			if r.IntN(3) == 0 {
				known = r.IntN(10) // threads expired since: the bound shrinks
			}
			x.set(id, th, known)
			want[id] = th
		}
		if got := x.get(id); got != want[id] {
			t.Fatalf("step %d: get(%d) = %p, want %p", i, id, got, want[id])
		}
	}
	seen := 0
	x.each(func(th *thread) {
		seen++
		if want[th.id] != th {
			t.Fatalf("each gave thread %d, not filed", th.id)
		}
	})
	if seen != len(want) {
		t.Fatalf("each gave %d threads, want %d", seen, len(want))
	}
	if bound := 4 * len(want); len(x.dense) > max(denseFloor, bound) {
		t.Fatalf("%d dense ids for %d threads", len(x.dense), len(want))
	}
	x.reset()
	for id := range want {
		if x.get(id) != nil {
			t.Fatalf("thread %d found after reset", id)
		}
	}
}
