// Package textsafe makes text that came from a peer (a profiler, a trace
// file) safe to print on a terminal: control characters, escape
// sequences, bidirectional overrides and invalid UTF-8 become visible
// escapes, in plain text and in JSON alike, so that nothing a peer sends
// can act on the terminal that shows it.
package textsafe

import (
	"strings"
	"unicode/utf8"
)

// Inert returns s with every control character (C0, DEL, C1), invalid
// byte and dangerous rune (see Dangerous) written as an escape: \x1b,
// \u202e. Clean strings are returned as they are, without allocating.
func Inert(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x`)
			writeHex(&b, uint32(s[i]), 2)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			b.WriteString(`\x`)
			writeHex(&b, uint32(r), 2)
		case Dangerous(r):
			b.WriteString(`\u`)
			writeHex(&b, uint32(r), 4)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Dangerous says a rune (beyond ASCII) acts on a terminal or on how it
// lays out what follows: the C1 controls (U+0080 to U+009F, which some
// terminals take as escape sequences), the bidirectional overrides,
// embeddings, isolates and marks, the zero-width characters that hide
// text, and the line and paragraph separators.
func Dangerous(r rune) bool {
	switch {
	case r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r >= 0x200b && r <= 0x200d, r == 0xfeff, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// EscapeJSON rewrites DEL and the dangerous runes (see Dangerous) of a
// valid JSON document as \u escapes. JSON lets them stand raw, but only
// inside strings, where the escape means the same character: the document
// reads the same to a parser and does nothing to a terminal (which the
// text view's \x7f promises for DEL too). A document without them is
// returned as it is.
func EscapeJSON(doc []byte) []byte {
	first := -1
	for i := 0; i < len(doc); {
		if doc[i] == 0x7f {
			first = i
			break
		}
		if doc[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(doc[i:])
		if Dangerous(r) {
			first = i
			break
		}
		i += n
	}
	if first < 0 {
		return doc
	}
	out := make([]byte, 0, len(doc)+16)
	out = append(out, doc[:first]...)
	for i := first; i < len(doc); {
		if doc[i] == 0x7f {
			out = AppendEscape(out, 0x7f)
			i++
			continue
		}
		if doc[i] < utf8.RuneSelf {
			out = append(out, doc[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(doc[i:])
		if Dangerous(r) {
			out = AppendEscape(out, r)
		} else {
			out = append(out, doc[i:i+n]...)
		}
		i += n
	}
	return out
}

// AppendEscape appends the JSON escape of a rune of the Basic
// Multilingual Plane: \u202e.
func AppendEscape(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
}

func writeHex(b *strings.Builder, v uint32, digits int) {
	const hex = "0123456789abcdef"
	for i := digits - 1; i >= 0; i-- {
		b.WriteByte(hex[(v>>(4*i))&15])
	}
}
