package topk

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The heap keeps exactly the first k of what it is offered, in order,
// whatever k against the number offered.
func TestHeapKeepsTheFirstK(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	less := func(a, b int) bool { return a < b }
	var h Heap[int]
	for round := range 500 {
		n, k := r.IntN(200), r.IntN(40)
		items := make([]int, n)
		for i := range items {
			items[i] = r.IntN(1000)*1000 + i // distinct
		}
		h.Reset(nil, k, less)
		for _, x := range items {
			h.Offer(x)
		}
		want := slices.Sorted(slices.Values(items))[:min(k, n)]
		if got := h.Sorted(); !slices.Equal(got, want) {
			t.Fatalf("round %d: %v, want %v", round, got, want)
		}
	}
}
