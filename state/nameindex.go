package state

import (
	"hash/maphash"
	"unsafe"
)

// nameIndex finds a method's slot by a name the slot holds (its key, or
// its display name): open addressing with linear probing, at most half
// full, each entry a slot and 32 bits of its name's hash. The name is
// not stored: the table asks the method table for a slot's name (nameOf)
// when a hash matches. A wide picture defines 100,000 methods in its
// first moments; the runtime's map hashed every key again each time it
// doubled, reading 100,000 strings scattered over the heap, which made
// defining a method a sixth of a wide replay. Here growing reads only
// the entries.
//
// An entry whose slot has changed names since it was filed is found by
// neither name (the old one's hash matches, the name read does not; the
// new one's hash leads elsewhere): it stays until the table is made
// anew, as the runtime's map kept such entries too.
type nameIndex struct {
	entries []nameEntry // a power of two long, or empty
	used    int
	seed    maphash.Seed
}

type nameEntry struct {
	hash uint32
	slot int32 // slot + 1; 0: empty
}

// nameOf gives the name a slot is filed under.
type nameOf func(slot int32) string

const nameIndexMin = 64

func (x *nameIndex) hashString(s string) uint32 {
	x.seeded()
	return uint32(maphash.String(x.seed, s))
}

// seeded gives the index its seed before its first hash: the zero Seed
// is not one maphash accepts.
func (x *nameIndex) seeded() {
	if x.seed == (maphash.Seed{}) {
		x.seed = maphash.MakeSeed()
	}
}

// find returns the position of the entry filed under name, or of the
// empty entry that ends its probe, and whether it was found.
func (x *nameIndex) find(h uint32, name string, of nameOf) (int, bool) {
	mask := len(x.entries) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		e := x.entries[i]
		if e.slot == 0 {
			return i, false
		}
		if e.hash == h && of(e.slot-1) == name {
			return i, true
		}
	}
}

// get returns the slot filed under name.
func (x *nameIndex) get(name string, of nameOf) (int32, bool) {
	if x.used == 0 {
		return 0, false
	}
	i, ok := x.find(x.hashString(name), name, of)
	return x.entries[i].slot - 1, ok
}

// getBytes is get for a name being built, without making it a string:
// the bytes are looked at as one, not copied (nothing keeps them, and
// name does not change meanwhile).
func (x *nameIndex) getBytes(name []byte, of nameOf) (int32, bool) {
	return x.get(unsafe.String(unsafe.SliceData(name), len(name)), of)
}

// set files slot under name, in place of the slot filed under it before.
// The slot's own name may still be an older one (of reads the others').
func (x *nameIndex) set(name string, slot int32, of nameOf) {
	if 2*(x.used+1) > len(x.entries) {
		x.grow()
	}
	h := x.hashString(name)
	i, ok := x.find(h, name, of)
	if !ok {
		x.used++
	}
	x.entries[i] = nameEntry{hash: h, slot: slot + 1}
}

// remove takes out the entry filed under name, if there is one: the
// entries after it in its run move back, so that no probe stops short.
func (x *nameIndex) remove(name string, of nameOf) {
	if x.used == 0 {
		return
	}
	i, ok := x.find(x.hashString(name), name, of)
	if !ok {
		return
	}
	mask := len(x.entries) - 1
	for j := (i + 1) & mask; x.entries[j].slot != 0; j = (j + 1) & mask {
		// The entry at j may fill the hole at i unless its home lies
		// after i and up to j, cyclically: its probe would miss it.
		home := int(x.entries[j].hash) & mask
		if (j-home)&mask >= (j-i)&mask {
			x.entries[i] = x.entries[j]
			i = j
		}
	}
	x.entries[i] = nameEntry{}
	x.used--
}

// grow doubles the table, placing the entries by their hashes alone.
func (x *nameIndex) grow() {
	old := x.entries
	x.entries = make([]nameEntry, max(2*len(old), nameIndexMin))
	mask := len(x.entries) - 1
	for _, e := range old {
		if e.slot == 0 {
			continue
		}
		i := int(e.hash) & mask
		for x.entries[i].slot != 0 {
			i = (i + 1) & mask
		}
		x.entries[i] = e
	}
}
