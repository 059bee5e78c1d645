package decode

import (
	"encoding/binary"
	"fmt"
)

// msgpackScan finds where one msgpack value ends without decoding it. It
// is what cuts a recording of rbkit frames (msgpack maps written one after
// the other) into frames, and what checks a frame before it is decoded: a
// hostile length cannot make it allocate, deep nesting cannot make it
// recurse, and a value that claims more bytes than there are is told from
// one that is merely incomplete.
//
// It is resumable: bytes may arrive in pieces, and scan picks up where the
// previous call stopped, so that a large frame read in many reads is
// scanned once.
type msgpackScan struct {
	pos     int    // bytes of the value scanned so far
	want    uint64 // after scanMore: the bytes the value needs at least
	pending uint64 // values still to scan (a container adds its items)
	started bool
	// The nesting, as long as it is within maxNesting: the items left in
	// each open container. Past that only the count of pending values is
	// kept, which is all the end of the value needs; deep says so.
	stack [maxNesting]uint64
	depth int
	deep  bool
	// Where each open container began and what it declared, for the
	// message when the input ends inside the value.
	opened [maxNesting]openContainer
	// short: after scanMore, the value whose declared length runs past
	// the bytes there are (a string, binary data or an extension), when it
	// is one; else the bytes ran out between values.
	short shortValue
}

// openContainer is a map or array the scan is inside.
type openContainer struct {
	at    int    // its offset in the value
	code  byte   // its first byte
	items uint64 // the values it declares (a map's keys and values)
}

// shortValue is a value whose payload runs past the bytes there are.
type shortValue struct {
	valid bool
	at    int    // its offset in the value
	code  byte   // its first byte
	head  int    // its length bytes, after the first
	body  uint64 // the payload its length declares
}

// maxNesting bounds how deeply an rbkit frame may nest. A real frame nests
// four levels (frame, events, event payload, object references).
const maxNesting = 32

// scanResult says how a scan ended.
type scanResult int

const (
	scanDone  scanResult = iota // the value ends at pos
	scanMore                    // the bytes end inside the value
	scanError                   // a byte no msgpack value starts with
)

func (s *msgpackScan) reset() { *s = msgpackScan{} }

// scan goes on through b, which holds the value's bytes from its first
// (b may have grown since the previous call, never changed).
func (s *msgpackScan) scan(b []byte) (scanResult, error) {
	if !s.started {
		s.started, s.pending = true, 1
	}
	s.short.valid = false
	for s.pending > 0 {
		if s.pos >= len(b) {
			s.want = uint64(s.pos) + 1
			return scanMore, nil
		}
		c := b[s.pos]
		head, items, body, ok := msgpackHeader(c, b[s.pos+1:])
		if !ok {
			if head == 0 {
				return scanError, fmt.Errorf("byte 0x%02x at frame offset %d starts no msgpack value", c, s.pos)
			}
			s.want = uint64(s.pos) + 1 + uint64(head) // the length bytes have not all arrived
			return scanMore, nil
		}
		end := uint64(s.pos) + 1 + uint64(head) + body
		if end > uint64(len(b)) {
			s.want = end
			s.short = shortValue{valid: true, at: s.pos, code: c, head: head, body: body}
			return scanMore, nil
		}
		s.pos = int(end)
		s.pending--
		s.count()
		if items > 0 {
			s.pending += items
			s.push(items, openContainer{at: s.pos - 1 - head, code: c, items: items})
		} else {
			s.close()
		}
	}
	return scanDone, nil
}

// count takes one value off the innermost open container.
func (s *msgpackScan) count() {
	if !s.deep && s.depth > 0 {
		s.stack[s.depth-1]--
	}
}

// close ends the containers a scalar (or an empty container) completed.
// A container whose last item is itself a container stays open until that
// one ends, so that the depth is the true nesting.
func (s *msgpackScan) close() {
	for !s.deep && s.depth > 0 && s.stack[s.depth-1] == 0 {
		s.depth--
	}
}

func (s *msgpackScan) push(items uint64, c openContainer) {
	if s.deep {
		return
	}
	if s.depth == maxNesting {
		s.deep = true
		return
	}
	s.stack[s.depth] = items
	s.opened[s.depth] = c
	s.depth++
}

// unfinished says, after scanMore, what the value lacks with have bytes
// of it there (at offset base of the stream): the value whose declared
// length runs past them, or the innermost container that declares more
// items than came. A damaged length or count shows there, by its offset
// and what it declares; "" when neither can be told (nesting past the
// bound).
func (s *msgpackScan) unfinished(base int64, have int) string {
	if v := s.short; v.valid {
		left := max(have-(v.at+1+v.head), 0)
		return fmt.Sprintf("%s at offset %d declares %d bytes but only %d are left", msgpackKind(v.code), base+int64(v.at), v.body, left)
	}
	if s.deep || s.depth == 0 {
		return ""
	}
	c := s.opened[s.depth-1]
	got := c.items - s.stack[s.depth-1]
	if isMapCode(c.code) {
		return fmt.Sprintf("a map at offset %d declares %d entries, and only %d came", base+int64(c.at), c.items/2, got/2)
	}
	return fmt.Sprintf("an array at offset %d declares %d items, and only %d came", base+int64(c.at), c.items, got)
}

// msgpackHeader reads a value's first byte c (and the length bytes after
// it, in rest): head is the count of length bytes after c, items the values
// it contains (a map's keys and values), body the bytes of its payload. ok
// is false when rest is too short for the length bytes (head > 0) or when c
// is the one byte msgpack never uses (head 0).
func msgpackHeader(c byte, rest []byte) (head int, items, body uint64, ok bool) {
	switch {
	case c <= 0x7f || c >= 0xe0: // fixint
		return 0, 0, 0, true
	case c <= 0x8f: // fixmap
		return 0, 2 * uint64(c&0x0f), 0, true
	case c <= 0x9f: // fixarray
		return 0, uint64(c & 0x0f), 0, true
	case c <= 0xbf: // fixstr
		return 0, 0, uint64(c & 0x1f), true
	}
	length := func(n int) (uint64, bool) {
		if len(rest) < n {
			return 0, false
		}
		switch n {
		case 1:
			return uint64(rest[0]), true
		case 2:
			return uint64(binary.BigEndian.Uint16(rest)), true
		}
		return uint64(binary.BigEndian.Uint32(rest)), true
	}
	var n uint64
	switch c {
	case 0xc0, 0xc2, 0xc3: // nil, false, true
		return 0, 0, 0, true
	case 0xc1:
		return 0, 0, 0, false
	case 0xc4, 0xd9: // bin8, str8
		n, ok = length(1)
		return 1, 0, n, ok
	case 0xc5, 0xda: // bin16, str16
		n, ok = length(2)
		return 2, 0, n, ok
	case 0xc6, 0xdb: // bin32, str32
		n, ok = length(4)
		return 4, 0, n, ok
	case 0xc7: // ext8: length, type, data
		n, ok = length(1)
		return 1, 0, n + 1, ok
	case 0xc8:
		n, ok = length(2)
		return 2, 0, n + 1, ok
	case 0xc9:
		n, ok = length(4)
		return 4, 0, n + 1, ok
	case 0xca, 0xce, 0xd2: // float32, uint32, int32
		return 0, 0, 4, true
	case 0xcb, 0xcf, 0xd3: // float64, uint64, int64
		return 0, 0, 8, true
	case 0xcc, 0xd0: // uint8, int8
		return 0, 0, 1, true
	case 0xcd, 0xd1: // uint16, int16
		return 0, 0, 2, true
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8: // fixext 1, 2, 4, 8, 16: type and data
		return 0, 0, 1 + 1<<(c-0xd4), true
	case 0xdc: // array16
		n, ok = length(2)
		return 2, n, 0, ok
	case 0xdd:
		n, ok = length(4)
		return 4, n, 0, ok
	case 0xde: // map16
		n, ok = length(2)
		return 2, 2 * n, 0, ok
	}
	// 0xdf, map32: the only code left
	n, ok = length(4)
	return 4, 2 * n, 0, ok
}

// msgpackKind names the type a value's first byte announces, for errors.
func msgpackKind(c byte) string {
	switch {
	case c <= 0x7f || c >= 0xe0, c >= 0xcc && c <= 0xd3:
		return "an integer"
	case c <= 0x8f, c == 0xde, c == 0xdf:
		return "a map"
	case c <= 0x9f, c == 0xdc, c == 0xdd:
		return "an array"
	case c <= 0xbf, c >= 0xd9 && c <= 0xdb:
		return "a string"
	case c == 0xc0:
		return "nil"
	case c == 0xc2, c == 0xc3:
		return "a boolean"
	case c == 0xca, c == 0xcb:
		return "a float"
	case c >= 0xc4 && c <= 0xc6:
		return "binary data"
	}
	return "an extension"
}
