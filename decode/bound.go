package decode

import (
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// DefaultMaxString is the default bound on a string of an event (a name:
// of a thread, a method, a class, a lock, a series, a stack frame): 4 KiB.
// A peer can send names of megabytes; kept whole, a thousand of them would
// take a gigabyte wherever the picture keeps them.
const DefaultMaxString = 4 << 10

// maxString is the bound on an event's strings; 0 for none.
func (o Options) maxString() int {
	switch {
	case o.MaxString < 0:
		return 0
	case o.MaxString == 0:
		return DefaultMaxString
	}
	return max(o.MaxString, minMaxString)
}

// minMaxString keeps room for the marker and something of each end.
const minMaxString = 96

// BoundString returns s when it has at most max bytes (or max is 0), else
// its beginning and its end around a marker that says how many bytes were
// left out and a hash of the whole, so that long names differing only in
// their middles stay apart:
//
//	com.example.aaaa...[1040384 bytes elided #3fa2b1c4]...aaaa.run
//
// The result has at most max bytes and is cut between runes.
func BoundString(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	// FNV-1a, 32 bits, over the whole.
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	marker := func(elided int) string {
		return "...[" + strconv.Itoa(elided) + " bytes elided #" + hex8(h) + "]..."
	}
	// The marker's length depends on the count it holds, which depends on
	// the marker's length: room is kept for the longest count.
	keep := max - len(marker(len(s)))
	head, tail := keep-keep/2, len(s)-keep/2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + marker(tail-head) + s[tail:]
}

// boundBytes is BoundString for bytes not yet made a string: the long
// string is never made.
func boundBytes(b []byte, max int) string {
	if max <= 0 || len(b) <= max {
		return string(b)
	}
	return BoundString(unsafe.String(&b[0], len(b)), max) // a new string: b is not kept
}

func hex8(v uint32) string {
	const digits = "0123456789abcdef"
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}

// boundEvent bounds every string of an event to max bytes (see
// BoundString): its attributes' strings, its stack's frames, an unknown
// element's name and attributes. A stack whose frames need cutting is
// copied first: decoders share stacks between events.
func boundEvent(ev Event, max int) {
	if max <= 0 || ev == nil {
		return
	}
	if u, ok := ev.(*Unknown); ok {
		u.Element = BoundString(u.Element, max)
		boundAttrs(u.Attrs, max)
		return
	}
	sp := specOf(ev.Kind())
	p := sp.base(ev)
	for i := range sp.fields {
		f := &sp.fields[i]
		switch f.typ {
		case fieldString:
			if s := fieldAt[string](p, f.off); len(*s) > max {
				*s = BoundString(*s, max)
			}
		case fieldStack:
			st := fieldAt[Stack](p, f.off)
			copied := false
			for j, m := range st.Methods {
				if len(m) > max {
					if !copied {
						st.Methods, copied = append([]string(nil), st.Methods...), true
					}
					st.Methods[j] = BoundString(m, max)
				}
			}
		}
	}
}

// boundAttrs bounds the names and values of attributes in place.
func boundAttrs(attrs []Attr, max int) {
	for i := range attrs {
		attrs[i].Name = BoundString(attrs[i].Name, max)
		attrs[i].Value = BoundString(attrs[i].Value, max)
	}
}
