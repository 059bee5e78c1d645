package decode

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/vmihailenco/msgpack/v5"
)

// rbkitReader reads the values of one rbkit frame that msgpackScan has
// checked: every length in it is backed by bytes and its nesting is
// bounded, so that the library's decoder (which recurses to skip) is safe
// on it. Integers are read whatever their width and signedness, nil is
// read as "absent" wherever a value may be missing, and a value of the
// wrong type is an error naming what was expected and what was found.
type rbkitReader struct {
	b      []byte
	r      bytes.Reader
	dec    *msgpack.Decoder
	intern *interner
}

func newRbkitReader(in *interner) *rbkitReader {
	rr := &rbkitReader{intern: in}
	rr.dec = msgpack.NewDecoder(&rr.r)
	return rr
}

// reset starts reading b (a whole value).
func (rr *rbkitReader) reset(b []byte) {
	rr.b = b
	rr.r.Reset(b)
	rr.dec.ResetReader(&rr.r)
}

// pos is the offset of the next value in b.
func (rr *rbkitReader) pos() int { return len(rr.b) - rr.r.Len() }

// seek moves to offset off of b.
func (rr *rbkitReader) seek(off int) { rr.r.Seek(int64(off), io.SeekStart) }

func (rr *rbkitReader) code() byte {
	if p := rr.pos(); p < len(rr.b) {
		return rr.b[p]
	}
	return 0xc1
}

func isNilCode(c byte) bool { return c == 0xc0 }

func isIntCode(c byte) bool { return c <= 0x7f || c >= 0xe0 || (c >= 0xcc && c <= 0xd3) }

func isMapCode(c byte) bool { return (c >= 0x80 && c <= 0x8f) || c == 0xde || c == 0xdf }

func isArrayCode(c byte) bool { return (c >= 0x90 && c <= 0x9f) || c == 0xdc || c == 0xdd }

func isStrCode(c byte) bool { return (c >= 0xa0 && c <= 0xbf) || (c >= 0xd9 && c <= 0xdb) }

// wrongType is the error for a value of another type than wanted.
func (rr *rbkitReader) wrongType(want string) error {
	return fmt.Errorf("want %s, got %s", want, msgpackKind(rr.code()))
}

// mapLen opens a map; nil is an empty one.
func (rr *rbkitReader) mapLen() (int, error) {
	c := rr.code()
	switch {
	case isNilCode(c):
		return 0, rr.dec.DecodeNil()
	case !isMapCode(c):
		return 0, rr.wrongType("a map")
	}
	return rr.dec.DecodeMapLen()
}

// arrayLen opens an array; nil is an empty one.
func (rr *rbkitReader) arrayLen() (int, error) {
	c := rr.code()
	switch {
	case isNilCode(c):
		return 0, rr.dec.DecodeNil()
	case !isArrayCode(c):
		return 0, rr.wrongType("an array")
	}
	return rr.dec.DecodeArrayLen()
}

// int reads an integer of any width; a float with no fraction is taken
// too. ok is false for nil.
func (rr *rbkitReader) int() (v int64, ok bool, err error) {
	c := rr.code()
	switch {
	case isNilCode(c):
		return 0, false, rr.dec.DecodeNil()
	case isIntCode(c):
		v, err = rr.dec.DecodeInt64()
		return v, err == nil, err
	case c == 0xca || c == 0xcb:
		f, err := rr.dec.DecodeFloat64()
		if err != nil {
			return 0, false, err
		}
		if f != math.Trunc(f) || math.Abs(f) > 1<<62 {
			return 0, false, fmt.Errorf("want an integer, got %g", f)
		}
		return int64(f), true, nil
	}
	return 0, false, rr.wrongType("an integer")
}

// float reads a float, or an integer of any width. ok is false for nil.
func (rr *rbkitReader) float() (v float64, ok bool, err error) {
	c := rr.code()
	switch {
	case isNilCode(c):
		return 0, false, rr.dec.DecodeNil()
	case isIntCode(c), c == 0xca, c == 0xcb:
		v, err = rr.dec.DecodeFloat64()
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			return 0, false, fmt.Errorf("want a number, got %g", v)
		}
		return v, err == nil, err
	}
	return 0, false, rr.wrongType("a number")
}

// str reads a string (binary data too), interned, without copying it
// first. ok is false for nil.
func (rr *rbkitReader) str() (s string, ok bool, err error) {
	c := rr.code()
	switch {
	case isNilCode(c):
		return "", false, rr.dec.DecodeNil()
	case !isStrCode(c) && !(c >= 0xc4 && c <= 0xc6):
		return "", false, rr.wrongType("a string")
	}
	n, err := rr.dec.DecodeBytesLen()
	if err != nil {
		return "", false, err
	}
	p := rr.pos()
	if n < 0 || p+n > len(rr.b) {
		return "", false, fmt.Errorf("string of %d bytes runs past the frame", n)
	}
	s = rr.intern.bytes(rr.b[p : p+n])
	rr.seek(p + n)
	return s, true, nil
}

// key reads a map key that should be a small integer; ok is false for a
// key of another type, which the caller skips with its value.
func (rr *rbkitReader) key() (k int64, ok bool, err error) {
	if !isIntCode(rr.code()) {
		return 0, false, rr.skip()
	}
	k, err = rr.dec.DecodeInt64()
	return k, err == nil, err
}

// skip passes over one value.
func (rr *rbkitReader) skip() error { return rr.dec.Skip() }
