package tui

import (
	"strings"
	"unicode/utf8"
)

// inert makes a name that came from the profiler safe to print: control
// characters, escape sequences, bidirectional overrides and invalid UTF-8
// become visible escapes, so nothing in a thread or method name can act on
// the terminal. Clean strings are returned as they are, without allocating.
func inert(s string) string {
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
		case dangerous(r):
			b.WriteString(`\u`)
			writeHex(&b, uint32(r), 4)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// dangerous runes change how the terminal lays out what follows
// (bidirectional overrides and isolates) or hide it (zero-width marks).
func dangerous(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r >= 0x200b && r <= 0x200d, r == 0xfeff:
		return true
	}
	return false
}

func writeHex(b *strings.Builder, v uint32, digits int) {
	const hex = "0123456789abcdef"
	for i := digits - 1; i >= 0; i-- {
		b.WriteByte(hex[(v>>(4*i))&15])
	}
}

// Inert is inert for the writers of text files (bundles): a name from the
// profiler never acts on the terminal of whoever reads the file.
func Inert(s string) string { return inert(s) }
