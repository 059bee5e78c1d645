package state

// pairTable finds an item by a pair of int32s it holds (a call tree node
// by its parent and method slot): one flat array of item numbers, open
// addressing with linear probing, at most half full. The pair is not
// stored: the table asks the owner for an item's pair (keyOf), which
// makes an entry 4 bytes instead of 12 (6 MB less for a tree of 200,000
// nodes), for a second read of the item, in the cache already when the
// events' memory is read ahead (warm.go). A tree of 200,000 nodes looked
// up once an event is a cache miss a lookup whatever the table; the
// runtime's map adds two more at that size (its directory and its
// control word before the slot), which made finding a child a quarter of
// a wide replay. Items are never removed: the tree's nodes live as long
// as the tree.
type pairTable struct {
	entries []int32 // item + 1; 0: empty. A power of two long, or empty.
	used    int
	shift   uint // 64 - log2(len(entries))
}

// keyOf gives the pair an item is filed under.
type keyOf func(item int32) (a, b int32)

// pairTableMin is the table's first size.
const pairTableMin = 64

// home is where the pair's probe starts: Fibonacci hashing of the pair as
// one 64-bit key, its top bits (the best mixed).
func (t *pairTable) home(a, b int32) uint64 {
	k := uint64(uint32(a))<<32 | uint64(uint32(b))
	return (k * 0x9E3779B97F4A7C15) >> t.shift
}

// get returns the item filed under the pair.
func (t *pairTable) get(a, b int32, key keyOf) (int32, bool) {
	if len(t.entries) == 0 {
		return 0, false
	}
	mask := uint64(len(t.entries) - 1)
	for i := t.home(a, b); ; i = (i + 1) & mask {
		e := t.entries[i]
		if e == 0 {
			return 0, false
		}
		if ka, kb := key(e - 1); ka == a && kb == b {
			return e - 1, true
		}
	}
}

// peek reads the entry where the pair's probe starts, to bring it into
// the cache (warm.go); the item it names, or -1.
func (t *pairTable) peek(a, b int32) int32 {
	if len(t.entries) == 0 {
		return -1
	}
	return t.entries[t.home(a, b)] - 1
}

// add files item, whose pair key gives and which is not filed yet.
func (t *pairTable) add(item int32, key keyOf) {
	if 2*(t.used+1) > len(t.entries) {
		t.grow(key)
	}
	t.place(item, key)
	t.used++
}

func (t *pairTable) place(item int32, key keyOf) {
	mask := uint64(len(t.entries) - 1)
	a, b := key(item)
	for i := t.home(a, b); ; i = (i + 1) & mask {
		if t.entries[i] == 0 {
			t.entries[i] = item + 1
			return
		}
	}
}

// grow doubles the table and places every item again.
func (t *pairTable) grow(key keyOf) {
	old := t.entries
	n := max(2*len(old), pairTableMin)
	t.entries = make([]int32, n)
	t.shift = 64
	for m := n; m > 1; m >>= 1 {
		t.shift--
	}
	for _, e := range old {
		if e != 0 {
			t.place(e-1, key)
		}
	}
}
