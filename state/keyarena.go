package state

import "unsafe"

// keyArena holds the bytes of defined methods' keys (and so their display
// names, which are their keys' first bytes) in chunks of keyChunk bytes,
// instead of one allocation each. A wide picture defines 100,000 methods
// amid the events of its definitions: their keys, about 50 bytes each,
// would take 64 bytes each and stay scattered among spans of the same
// size that the events leave mostly empty, and the process could not
// give those spans back. A chunk's bytes are never changed once handed
// out; a key kept here is a method's for good (keyed under it, it is
// never renamed: its class is known), so nothing in a chunk goes unused.
type keyArena struct {
	chunk []byte
}

const keyChunk = 64 << 10

// keep returns a string of b's bytes, copied into the arena.
func (a *keyArena) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(a.chunk)-len(a.chunk) < len(b) {
		if len(b) > keyChunk/16 {
			return string(b) // a long one on its own: a chunk wastes at most 1/16 of itself
		}
		a.chunk = make([]byte, 0, keyChunk)
	}
	start := len(a.chunk)
	a.chunk = append(a.chunk, b...)
	return unsafe.String(&a.chunk[start], len(b))
}
