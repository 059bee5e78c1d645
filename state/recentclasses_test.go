package state

import (
	"math/rand/v2"
	"testing"
)

// recentClasses answers as a map of the latest size objects given a
// class would (an object given again keeps its place, with its new
// class), and
// keeps finding every object it holds as others come and go: the shifting
// back of a removal never cuts a probe run.
func TestRecentClassesKeepsTheLatest(t *testing.T) {
	for _, size := range []int{1, 2, 7, 64, 1000} {
		rng := rand.New(rand.NewPCG(uint64(size), 9))
		var r recentClasses
		r.init(size)
		var order []int64 // the objects given, latest last, each once
		want := map[int64]int64{}
		for step := range 20 * size {
			obj := rng.Int64N(int64(3 * size)) // often given again
			if step%5 == 0 {
				obj = int64(step) << 20 // some spread far apart
			}
			class := rng.Int64N(100)
			r.put(obj, class)
			if _, held := want[obj]; !held {
				order = append(order, obj)
			}
			want[obj] = class
			if len(order) > size {
				delete(want, order[0])
				order = order[1:]
			}
			if step%7 == 0 || step == 20*size-1 {
				for o, c := range want {
					if got, ok := r.get(o); !ok || got != c {
						t.Fatalf("size %d, step %d: object %d has %d, %v; want %d", size, step, o, got, ok, c)
					}
				}
				for range 10 {
					o := rng.Int64N(int64(3 * size))
					if _, held := want[o]; !held {
						if c, ok := r.get(o); ok {
							t.Fatalf("size %d, step %d: object %d gone, still has %d", size, step, o, c)
						}
					}
				}
			}
		}
	}
}
