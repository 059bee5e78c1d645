package decode

import (
	"reflect"
	"unsafe"
)

// flatLayout is the binary decoder's shortcut for the commonest message:
// a kind without a stack whose strings are all empty, in the machine's
// byte order. Such a body has exactly minBody bytes, every attribute sits
// at a known place, and decoding it is a handful of word moves and a check
// of the NULs; no loop over the kind's runs, no scan, no lookup. A method
// entry or exit, most of a trace, is one.
type flatLayout struct {
	size    int         // the body's length, or the bytes before the stack
	moves   []flatMove  // the fixed-size attributes
	strings []flatEmpty // the strings, each a lone NUL
	// stack: the kind ends with a stack, at stackOff in the struct. Only
	// a BinaryDecoder appending to a Batch reads such a kind this way
	// (when the stack is one seen before, see placeStack).
	stack    bool
	stackOff uintptr
	// timeWire is where the "time" attribute sits in the body, -1 for a
	// kind without one: the decoder checks it before it places the
	// message in a batch, where an impossible time could not be taken back.
	timeWire int
}

// flatMove copies one fixed-size attribute from the body to the struct.
type flatMove struct {
	off  uintptr // in the struct
	wire int     // in the body
	size int     // 8, 4 or 1
}

// flatEmpty is a string attribute: its NUL in the body and its place in
// the struct.
type flatEmpty struct {
	off  uintptr
	wire int
}

// allTagged says every field of an event struct is an attribute: a flat
// layout writes every one of them, so that a struct that held another
// event before (a Batch's storage) keeps nothing of it.
func allTagged(t reflect.Type) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			if !allTagged(sf.Type) {
				return false
			}
			continue
		}
		if _, ok := sf.Tag.Lookup("tptp"); !ok {
			return false
		}
	}
	return true
}

// newFlatLayout returns the shortcut for a kind, or nil for a kind
// without attributes or with a stack that is not its last.
func newFlatLayout(fields []field) *flatLayout {
	fl := &flatLayout{timeWire: -1}
	for i, f := range fields {
		if f.name == "time" && f.typ == fieldTicks {
			fl.timeWire = fl.size
		}
		switch f.typ {
		case fieldStack:
			if i != len(fields)-1 {
				return nil
			}
			fl.stack, fl.stackOff = true, f.off
			return fl
		case fieldString:
			fl.strings = append(fl.strings, flatEmpty{off: f.off, wire: fl.size})
		default:
			fl.moves = append(fl.moves, flatMove{off: f.off, wire: fl.size, size: f.typ.wireSize()})
		}
		fl.size += f.typ.wireSize()
	}
	if fl.size == 0 {
		return nil
	}
	return fl
}

// decode fills the struct at p from body, if the body is what the layout
// describes (fits).
func (fl *flatLayout) decode(p unsafe.Pointer, body []byte) bool {
	if fl.stack || !fl.fits(body) {
		return false
	}
	fl.fill(p, body)
	return true
}

// fits says whether body is a message the layout reads: fl.size bytes
// (and then the stack, for a kind with one), the strings empty. A body of that size with a string that is not empty
// cannot be well formed either (it leaves no room for the NULs of the
// strings after it); the general decoder reads it and names the error.
func (fl *flatLayout) fits(body []byte) bool {
	if len(body) != fl.size && !(fl.stack && len(body) > fl.size) {
		return false
	}
	for _, s := range fl.strings {
		if body[s.wire] != 0 {
			return false
		}
	}
	return true
}

// fill writes every attribute of the struct at p but the stack from
// body, which fits, in the machine's byte order.
func (fl *flatLayout) fill(p unsafe.Pointer, body []byte) {
	src := unsafe.Pointer(unsafe.SliceData(body))
	for _, m := range fl.moves {
		to, from := unsafe.Add(p, m.off), unsafe.Add(src, m.wire)
		switch m.size {
		case 8:
			*(*[8]byte)(to) = *(*[8]byte)(from)
		case 4:
			*(*[4]byte)(to) = *(*[4]byte)(from)
		default:
			*(*byte)(to) = *(*byte)(from)
		}
	}
	for _, s := range fl.strings {
		*fieldAt[string](p, s.off) = ""
	}
}
