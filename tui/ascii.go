package tui

import "strings"

// asciiStandIns are the interface's own symbols, each followed by what an
// ASCII terminal shows instead: one cell for one, as the frame was laid
// out with the symbols.
var asciiStandIns = []string{
	"●", "*", "·", "-", "…", "~", "▼", "v", "▲", "^", "■", "#", "→", ">", "⇄", "&", "×", "x",
	"–", "-", "—", "-", "⚠", "!", "ⓘ", "i", "≈", "~", "−", "-", "↑", "^", "↓", "v", "←", "<", "µ", "u", "┤", "|",
	"╭", "+", "╮", "+", "╰", "+", "╯", "+", "─", "-", "│", "|",
	"▏", "|", "├", "|", "▸", ">", "▾", "v",
}

var asciiGlyphs = strings.NewReplacer(asciiStandIns...)

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
