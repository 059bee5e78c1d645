package state

// pairTable maps a pair of int32s (a call tree node and a method slot) to
// an int32 (the child node): one flat array, open addressing with linear
// probing, at most half full. A call tree of 200,000 nodes looked up once
// an event is a cache miss a lookup whatever the table; the runtime's map
// adds two more at that size (its directory and its control word before
// the slot), which made finding a child a quarter of a wide replay. Pairs
// are never removed: the tree's nodes live as long as the tree.
type pairTable struct {
	entries []pairEntry // a power of two long, or empty
	used    int
	shift   uint // 64 - log2(len(entries))
}

// pairEntry is one pair and its value; value+1 is kept so that the zero
// entry is an empty one.
type pairEntry struct {
	a, b  int32
	value int32 // the value + 1; 0: empty
}

// pairTableMin is the table's first size.
const pairTableMin = 64

// home is where the pair's probe starts: Fibonacci hashing of the pair as
// one 64-bit key, its top bits (the best mixed).
func (t *pairTable) home(a, b int32) uint64 {
	k := uint64(uint32(a))<<32 | uint64(uint32(b))
	return (k * 0x9E3779B97F4A7C15) >> t.shift
}

// get returns the pair's value.
func (t *pairTable) get(a, b int32) (int32, bool) {
	if len(t.entries) == 0 {
		return 0, false
	}
	mask := uint64(len(t.entries) - 1)
	for i := t.home(a, b); ; i = (i + 1) & mask {
		e := &t.entries[i]
		if e.value == 0 {
			return 0, false
		}
		if e.a == a && e.b == b {
			return e.value - 1, true
		}
	}
}

// peek reads the entry where the pair's probe starts, to bring it into
// the cache (warm.go): what it returns means nothing.
func (t *pairTable) peek(a, b int32) int64 {
	if len(t.entries) == 0 {
		return 0
	}
	return int64(t.entries[t.home(a, b)].value)
}

// set maps the pair to value, which must be at least 0.
func (t *pairTable) set(a, b, value int32) {
	if 2*(t.used+1) > len(t.entries) {
		t.grow()
	}
	mask := uint64(len(t.entries) - 1)
	for i := t.home(a, b); ; i = (i + 1) & mask {
		e := &t.entries[i]
		if e.value == 0 {
			*e = pairEntry{a: a, b: b, value: value + 1}
			t.used++
			return
		}
		if e.a == a && e.b == b {
			e.value = value + 1
			return
		}
	}
}

// len is how many pairs the table holds.
func (t *pairTable) len() int { return t.used }

// grow doubles the table and places every pair again.
func (t *pairTable) grow() {
	old := t.entries
	n := max(2*len(old), pairTableMin)
	t.entries, t.used = make([]pairEntry, n), 0
	t.shift = 64
	for m := n; m > 1; m >>= 1 {
		t.shift--
	}
	for _, e := range old {
		if e.value != 0 {
			t.set(e.a, e.b, e.value-1)
		}
	}
}
