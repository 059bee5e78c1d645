package state

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSelectOldestAgreesWithASort checks that selectOldest puts exactly
// the k first candidates of a sort in c[:k], for every k, over random
// candidates, candidates in order and in reverse, and many seen at the
// same moment.
func TestSelectOldestAgreesWithASort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 300 {
		n := r.IntN(200)
		c := make([]idleMonitor, n)
		objs := r.Perm(n * 3)
		for i := range c {
			c[i] = idleMonitor{seen: int64(r.IntN(1 + round%40)), obj: int64(objs[i])}
		}
		switch round % 4 {
		case 1:
			slices.SortFunc(c, func(a, b idleMonitor) int { return map[bool]int{true: -1, false: 1}[a.before(&b)] })
		case 2:
			slices.SortFunc(c, func(a, b idleMonitor) int { return map[bool]int{true: 1, false: -1}[a.before(&b)] })
		}
		want := slices.Clone(c)
		slices.SortFunc(want, func(a, b idleMonitor) int { return map[bool]int{true: -1, false: 1}[a.before(&b)] })
		for k := 0; k <= n; k++ {
			got := slices.Clone(c)
			selectOldest(got, k)
			first := got[:k]
			slices.SortFunc(first, func(a, b idleMonitor) int { return map[bool]int{true: -1, false: 1}[a.before(&b)] })
			if !slices.Equal(first, want[:k]) {
				t.Fatalf("round %d, %d candidates, k %d: %v, want %v", round, n, k, first, want[:k])
			}
		}
	}
}
