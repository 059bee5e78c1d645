package state

import (
	"math/bits"
	"slices"
)

// sortSlots puts distinct slots, each below n, in ascending order, using
// scratch (returned, to keep) as a bitset of n bits. A window bucket packs
// its methods in slot order, and a wide window touches 100,000 of them a
// second: marking them in a bitset and reading its words in order costs a
// pass over each, where a sort costs a dozen. A few slots, or a few
// among many (a bitset mostly empty), are sorted.
func sortSlots(slots []int32, n int, scratch []uint64) []uint64 {
	words := (n + 63) / 64
	if len(slots) < 256 || len(slots) < words/8 {
		slices.Sort(slots)
		return scratch
	}
	if len(scratch) < words {
		scratch = make([]uint64, words)
	}
	set := scratch[:words]
	for _, s := range slots {
		set[s>>6] |= 1 << (s & 63)
	}
	out := slots[:0]
	for w, word := range set {
		for word != 0 {
			out = append(out, int32(w*64+bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	clear(set)
	return scratch
}
