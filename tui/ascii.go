package tui

import "strings"

// asciiGlyphs are the interface's own symbols and what an ASCII terminal
// shows instead.
var asciiGlyphs = strings.NewReplacer(
	"●", "*", "·", "-", "…", "~", "▼", "v", "▲", "^", "■", "#", "→", "->", "⇄", "<->", "×", "x",
	"–", "-", "—", "-", "⚠", "!", "ⓘ", "i", "≈", "~", "−", "-", "↑", "^", "↓", "v", "←", "<-", "µ", "u", "┤", "|",
	"╭", "+", "╮", "+", "╰", "+", "╯", "+", "─", "-", "│", "|",
)

// toASCII makes a frame printable on a terminal that shows ASCII only:
// the interface's symbols become ASCII ones, anything else not ASCII (a
// name in another script) becomes '?'. Escape sequences (the styles) pass.
func toASCII(s string) string {
	s = asciiGlyphs.Replace(s)
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return stripNonASCII(s)
		}
	}
	return s
}

func stripNonASCII(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		b.WriteByte('?')
	}
	return b.String()
}
