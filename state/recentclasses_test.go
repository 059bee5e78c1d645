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

// ids a peer chose to fall in one slot of an unseeded index (mix is
// invertible) fall apart in a seeded one: their lookups stay short, and
// their count exact.
func TestCraftedIDsDoNotPileUp(t *testing.T) {
	// The ids whose unseeded hash has its low 16 bits zero: one slot of an
	// index of up to 65,536, had the hash no seed.
	var crafted []int64
	for x := uint64(0); len(crafted) < 4096; x++ {
		crafted = append(crafted, int64(unmix(x<<16)))
	}
	for _, id := range crafted[:8] {
		if mix(uint64(id))&0xffff != 0 {
			t.Fatalf("unmix is not mix's inverse at %d", id)
		}
	}
	var r recentClasses
	r.init(len(crafted))
	for i, id := range crafted {
		r.put(id, int64(i))
	}
	longest, run := 0, 0
	for _, p := range r.index {
		if p == 0 {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	if longest > 64 {
		t.Errorf("a probe run of %d slots for %d ids in %d slots", longest, len(crafted), len(r.index))
	}
	for i, id := range crafted {
		if c, ok := r.get(id); !ok || c != int64(i) {
			t.Fatalf("id %d: %d, %v", id, c, ok)
		}
	}
	var u untracked
	for _, id := range crafted {
		u.addID(id)
	}
	if got := u.count(); got != int64(len(crafted)) {
		t.Errorf("counted %d of %d", got, len(crafted))
	}
}

// unmix inverts mix: splitmix64's finalizer is a bijection.
func unmix(x uint64) uint64 {
	x ^= x>>31 ^ x>>62
	x *= 0x319642b2d24d8ec3 // the inverse of 0x94d049bb133111eb
	x ^= x>>27 ^ x>>54
	x *= 0x96de1b173f119089 // the inverse of 0xbf58476d1ce4e5b9
	x ^= x>>30 ^ x>>60
	return x
}

// Reset forgets every object and keeps the memory; a size of 0 holds one
// object; however many come, the ring and the index stay within the size.
func TestRecentClassesResetAndBounds(t *testing.T) {
	var r recentClasses
	r.init(0)
	r.put(1, 10)
	r.put(2, 20)
	if _, ok := r.get(1); ok {
		t.Error("a ring of one kept two objects")
	}
	if c, ok := r.get(2); !ok || c != 20 {
		t.Errorf("the latest: %d, %v", c, ok)
	}
	r.init(1000)
	for i := range 100_000 {
		r.put(int64(i)*7919, int64(i))
	}
	if len(r.ring) != 1000 || cap(r.ring) > 2000 || len(r.index) > 4096 {
		t.Errorf("ring %d (cap %d), index %d for 1,000 objects", len(r.ring), cap(r.ring), len(r.index))
	}
	slots := len(r.index)
	r.reset()
	if _, ok := r.get(99_999 * 7919); ok || len(r.ring) != 0 || len(r.index) != slots {
		t.Errorf("after reset: ring %d, index %d (was %d)", len(r.ring), len(r.index), slots)
	}
	r.put(5, 50)
	if c, ok := r.get(5); !ok || c != 50 {
		t.Errorf("after reset, put then get: %d, %v", c, ok)
	}
}
