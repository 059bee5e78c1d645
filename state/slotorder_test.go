package state

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortSlotsOrdersThemAsASortDoes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var scratch []uint64
	for _, tc := range []struct{ n, k int }{
		{10, 0}, {10, 3}, {1000, 10}, {1000, 300}, {1000, 1000}, {100_000, 100_000}, {100_000, 5000}, {100_000, 30_000}, {64, 64}, {65, 65},
	} {
		for round := range 3 {
			slots := make([]int32, 0, tc.k)
			for _, s := range r.Perm(tc.n)[:tc.k] {
				slots = append(slots, int32(s))
			}
			if round == 1 && tc.k > 1 { // a sorted run split in two, as a second that began mid-way leaves it
				slices.Sort(slots)
				slots = append(slots[tc.k/2:], slots[:tc.k/2]...)
			}
			want := slices.Clone(slots)
			slices.Sort(want)
			scratch = sortSlots(slots, tc.n, scratch)
			if !slices.Equal(slots, want) {
				t.Fatalf("n %d, %d slots, round %d: not in order", tc.n, tc.k, round)
			}
			for i, w := range scratch {
				if w != 0 {
					t.Fatalf("scratch word %d left set", i)
				}
			}
		}
	}
}
