package decode

import (
	"hash/maphash"
)

// stackTable remembers whole stacks by the wire bytes of their frame names,
// so that a stack seen before costs one lookup (one hash of its bytes)
// instead of one interning lookup per frame. A JVM reports the same few
// thousand stacks over and over; a contention site, say, always blocks in
// the same calls.
//
// A stack is remembered only on its second sighting: a stream of stacks
// that never repeat (deep, varied sampling stacks) then costs one hash per
// stack more than per-frame interning, and allocates nothing for them.
type stackTable struct {
	m     map[string][]string
	bytes int // key and name bytes held, bounded by maxStackTableBytes
	seed  maphash.Seed
	seen  []uint64 // hashes of stacks seen once, by their low bits
	// scan is set once a message had bytes after its stack: the names'
	// end is then found by scanning (see BinaryDecoder.knownStack).
	scan bool
}

const (
	// The table is emptied when it holds this many stacks or bytes, so that
	// a stream of ever-new stacks cannot grow it without bound.
	maxStackTableEntries = 1 << 14
	maxStackTableBytes   = 8 << 20
	// seenSlots remembers this many stacks seen once (a power of two).
	seenSlots = 1 << 12
)

func newStackTable() *stackTable {
	return &stackTable{m: make(map[string][]string, 256), seed: maphash.MakeSeed(), seen: make([]uint64, seenSlots)}
}

// lookup returns the names of the stack whose names are encoded as key.
// The slice is shared: copy it, do not modify it.
func (t *stackTable) lookup(key []byte) ([]string, bool) {
	names, ok := t.m[string(key)]
	return names, ok
}

// add remembers a stack just decoded the slow way, if it was seen before.
func (t *stackTable) add(key []byte, names []string) {
	h := maphash.Bytes(t.seed, key) | 1 // 0 marks an empty slot
	slot := &t.seen[h&(seenSlots-1)]
	if *slot != h {
		*slot = h
		return
	}
	*slot = 0
	size := len(key) + 16*len(names)
	if len(t.m) >= maxStackTableEntries || t.bytes+size > maxStackTableBytes {
		t.reset()
	}
	t.m[string(key)] = append([]string(nil), names...)
	t.bytes += size
}

// reset forgets every stack; the names of a stack depend on the charset,
// so a change of charset calls it too.
func (t *stackTable) reset() {
	clear(t.m)
	clear(t.seen)
	t.bytes = 0
}
