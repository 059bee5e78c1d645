package decode

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Java's modified UTF-8 (what JVMTI hands an agent, and so what a Jinsight
// trace holds) differs from UTF-8 in two ways: NUL is the two bytes C0 80,
// and a character beyond U+FFFF is its UTF-16 surrogate pair, each half
// encoded as three bytes. Strings of ASCII names, nearly all of them, are
// the same in both.

// fromModifiedUTF8 converts modified UTF-8 to UTF-8. Bytes that are
// neither stay as they are (JSON and the interface show them as U+FFFD).
func fromModifiedUTF8(b []byte) []byte {
	if utf8.Valid(b) && !bytes.Contains(b, []byte{0xc0, 0x80}) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0xc0 && i+1 < len(b) && b[i+1] == 0x80:
			out = append(out, 0)
			i += 2
			continue
		case c == 0xed && i+5 < len(b) && isHighSurrogate(b[i:]) && b[i+3] == 0xed && isLowSurrogate(b[i+3:]):
			hi, lo := surrogate(b[i:]), surrogate(b[i+3:])
			out = utf8.AppendRune(out, utf16.DecodeRune(hi, lo))
			i += 6
			continue
		}
		_, n := utf8.DecodeRune(b[i:])
		out = append(out, b[i:i+n]...)
		i += n
	}
	return out
}

// isHighSurrogate says b starts with the three-byte form of U+D800..U+DBFF.
func isHighSurrogate(b []byte) bool {
	return len(b) >= 3 && b[0] == 0xed && b[1] >= 0xa0 && b[1] <= 0xaf && b[2]&0xc0 == 0x80
}

// isLowSurrogate says b starts with the three-byte form of U+DC00..U+DFFF.
func isLowSurrogate(b []byte) bool {
	return len(b) >= 3 && b[0] == 0xed && b[1] >= 0xb0 && b[1] <= 0xbf && b[2]&0xc0 == 0x80
}

// surrogate decodes one three-byte surrogate half.
func surrogate(b []byte) rune {
	return rune(b[0]&0x0f)<<12 | rune(b[1]&0x3f)<<6 | rune(b[2]&0x3f)
}
