package decode

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/transform"
)

// lookupCharset resolves a charset name from an encoding message or an XML
// declaration. It returns nil for UTF-8, which needs no transcoding.
func lookupCharset(name string) (encoding.Encoding, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "", "utf-8", "utf8":
		return nil, nil
	}
	if e, err := htmlindex.Get(n); err == nil {
		return e, nil
	}
	if e, err := ianaindex.IANA.Encoding(n); err == nil && e != nil {
		return e, nil
	}
	return nil, errors.New("unknown charset " + quoteDetail(name))
}

// transcoder turns strings of a non-UTF-8 charset into UTF-8, reusing one
// scratch buffer.
type transcoder struct {
	t       transform.Transformer
	scratch []byte
}

func newTranscoder(e encoding.Encoding, toUTF8 bool) *transcoder {
	if e == nil {
		return nil
	}
	if toUTF8 {
		return &transcoder{t: e.NewDecoder()}
	}
	return &transcoder{t: e.NewEncoder()}
}

// convert returns b converted; the result is valid until the next call.
func (tc *transcoder) convert(b []byte) ([]byte, error) {
	if cap(tc.scratch) < 2*len(b)+8 {
		tc.scratch = make([]byte, 2*len(b)+8)
	}
	for range 4 {
		tc.t.Reset()
		dst := tc.scratch[:cap(tc.scratch)]
		n, _, err := tc.t.Transform(dst, b, true)
		if err == transform.ErrShortDst {
			tc.scratch = make([]byte, 2*cap(tc.scratch))
			continue
		}
		if err != nil {
			return nil, err
		}
		return dst[:n], nil
	}
	return nil, errors.New("the converted string outgrows 32 times its size")
}

// quoteDetail quotes untrusted bytes for an error message, short and
// inert: control characters and bytes that are not UTF-8 are written as
// \xNN each, so that the message shows exactly the bytes that were found
// (the first bytes of an unrecognized stream, a bad attribute value)
// rather than a "?" standing for any number of them.
func quoteDetail(s string) string {
	const max = 40
	if len(s) > max {
		// Cut between characters: a character cut in two would show as
		// bytes that were not what the input held.
		n := max
		for n > max-utf8.UTFMax && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return quoteASCII(s)
}

func quoteASCII(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			writeByteEscape(&b, c)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				writeByteEscape(&b, c)
			case r < 0xa0:
				// A C1 control, which a terminal may act on.
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		default:
			b.WriteByte(c)
		}
		i++
	}
	b.WriteByte('"')
	return b.String()
}

// writeByteEscape writes c as \xNN.
func writeByteEscape(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	b.WriteByte("0123456789abcdef"[c>>4])
	b.WriteByte("0123456789abcdef"[c&15])
}
