package decode

import (
	"encoding/binary"
	"unsafe"
)

// Batch holds events that own their memory, so that a decoding goroutine can
// hand many events to another goroutine at once instead of one channel send
// per event. Storage is recycled by Reset: a Batch reused in a loop
// allocates nothing once it has grown to its working size.
type Batch struct {
	events  []Event
	arenas  [numKinds]arena
	methods []string
	lines   []int64
	attrs   []Attr
}

// Add copies ev into the batch.
func (b *Batch) Add(ev Event) {
	k := ev.Kind()
	sp := specOf(k)
	if b.arenas[k] == nil {
		b.arenas[k] = sp.arenaF()
	}
	c := b.arenas[k].add(ev)
	if sp.stack >= 0 {
		st := fieldAt[Stack](sp.base(c), sp.fields[sp.stack].off)
		if len(st.Methods) == 0 && len(st.Lines) == 0 {
			st.Methods, st.Lines = nil, nil // as a decoder places an empty stack
		} else {
			m, l := len(b.methods), len(b.lines)
			b.methods = append(b.methods, st.Methods...)
			b.lines = append(b.lines, st.Lines...)
			st.Methods = b.methods[m:len(b.methods):len(b.methods)]
			st.Lines = b.lines[l:len(b.lines):len(b.lines)]
		}
	}
	if u, ok := c.(*Unknown); ok && len(u.Attrs) > 0 {
		a := len(b.attrs)
		b.attrs = append(b.attrs, u.Attrs...)
		u.Attrs = b.attrs[a:len(b.attrs):len(b.attrs)]
	}
	b.events = append(b.events, c)
}

// place adds an event of a kind without a stack or unknown attributes
// and returns its struct, for a decoder to fill in place: every attribute
// of it, since the storage may hold an event of an earlier fill.
func (b *Batch) place(sp *kindSpec) unsafe.Pointer {
	if b.arenas[sp.kind] == nil {
		b.arenas[sp.kind] = sp.arenaF()
	}
	ev, p := b.arenas[sp.kind].place()
	b.events = append(b.events, ev)
	return p
}

// appendLines stores the lines of a stack, 8 bytes each in the machine's
// byte order, and returns them: nil for none, as Add keeps an empty stack.
func (b *Batch) appendLines(raw []byte) []int64 {
	if len(raw) < 8 {
		return nil
	}
	first := len(b.lines)
	for i := 0; i+8 <= len(raw); i += 8 {
		b.lines = append(b.lines, int64(binary.NativeEndian.Uint64(raw[i:])))
	}
	return b.lines[first:len(b.lines):len(b.lines)]
}

// Events returns the events in the order they were added. They stay valid
// until Reset.
func (b *Batch) Events() []Event { return b.events }

// Len is the number of events.
func (b *Batch) Len() int { return len(b.events) }

// Reset empties the batch, keeping its storage for reuse.
func (b *Batch) Reset() {
	clear(b.events)
	b.events = b.events[:0]
	for _, a := range b.arenas {
		if a != nil {
			a.reset()
		}
	}
	b.methods = b.methods[:0]
	b.lines = b.lines[:0]
	b.attrs = b.attrs[:0]
}

// arena stores events of one kind in chunks, so that pointers handed out
// stay valid while the arena grows. The first chunks are small (16, 32,
// ... up to arenaChunk events): a batch holding a few events of a kind
// costs a few slots, not a chunk of 256 — a process watching a hundred
// JVMs holds a dozen batches for each. Chunks a burst needed (the
// definitions at the start of a stream) are let go once trimEvery fills
// in a row have not needed them.
type arena interface {
	add(Event) Event
	// place takes the next free place, for a decoder that fills it in
	// place: the event and the address of its struct.
	place() (Event, unsafe.Pointer)
	reset()
}

const (
	firstChunk = 16
	arenaChunk = 256
	trimEvery  = 16
	// growingChunks is how many chunks double before they are arenaChunk
	// long: 16, 32, 64, 128.
	growingChunks = 4
)

type arenaOf[T any, PT interface {
	*T
	Event
}] struct {
	chunks [][]T
	c, i   int // the chunk being filled, and its next free slot
	peak   int // the most chunks a fill used since the last trim
	fills  int // resets since the last trim
}

func (a *arenaOf[T, PT]) add(ev Event) Event {
	kept, p := a.place()
	*(*T)(p) = *ev.(PT)
	return kept
}

func (a *arenaOf[T, PT]) place() (Event, unsafe.Pointer) {
	if a.c == len(a.chunks) {
		size := arenaChunk
		if a.c < growingChunks {
			size = firstChunk << a.c // not shifted further: 16<<59 is negative
		}
		a.chunks = append(a.chunks, make([]T, size))
	}
	p := &a.chunks[a.c][a.i]
	if a.i++; a.i == len(a.chunks[a.c]) {
		a.c, a.i = a.c+1, 0
	}
	return PT(p), unsafe.Pointer(p)
}

func (a *arenaOf[T, PT]) reset() {
	used := a.c
	if a.i > 0 {
		used++
	}
	a.peak = max(a.peak, used)
	if a.fills++; a.fills == trimEvery {
		clear(a.chunks[a.peak:])
		a.chunks = a.chunks[:a.peak]
		a.peak, a.fills = 0, 0
	}
	a.c, a.i = 0, 0
}
