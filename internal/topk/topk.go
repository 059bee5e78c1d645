// Package topk finds the first k of many items in an order without
// sorting them all: a table of 100,000 rows shows twenty.
package topk

import "slices"

// Heap keeps the first K items offered under Before: a bounded max-heap,
// the worst of them on top, so that an item that comes after it costs one
// comparison.
type Heap[T any] struct {
	items  []T
	k      int
	before func(a, b T) bool
}

// Reset empties the heap into buf's storage, to keep the first k under
// before.
func (h *Heap[T]) Reset(buf []T, k int, before func(a, b T) bool) {
	h.items, h.k, h.before = buf[:0], k, before
}

// Offer considers x.
func (h *Heap[T]) Offer(x T) {
	items, before := h.items, h.before
	switch {
	case len(items) < h.k:
		items = append(items, x)
		for i := len(items) - 1; i > 0; {
			p := (i - 1) / 2
			if !before(items[p], items[i]) { // the parent comes after: in place
				break
			}
			items[p], items[i] = items[i], items[p]
			i = p
		}
		h.items = items
	case len(items) > 0 && before(x, items[0]):
		items[0] = x
		for i := 0; ; {
			l, r, worst := 2*i+1, 2*i+2, i
			if l < len(items) && before(items[worst], items[l]) {
				worst = l
			}
			if r < len(items) && before(items[worst], items[r]) {
				worst = r
			}
			if worst == i {
				break
			}
			items[i], items[worst] = items[worst], items[i]
			i = worst
		}
	}
}

// Sorted returns the items kept, in order (the heap's storage: the heap is
// spent).
func (h *Heap[T]) Sorted() []T {
	slices.SortFunc(h.items, func(a, b T) int {
		if h.before(a, b) {
			return -1
		}
		return 1
	})
	return h.items
}
