package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// Style is a lipgloss style that styles one-line text by wrapping it in
// the escape sequences the style opens and closes with, found once. The
// screen restyles thousands of cells and labels a frame, and lipgloss
// works each style out again at every call: a fifth of a frame's
// rendering. Everything else is the lipgloss style's own.
type Style struct {
	lipgloss.Style
	before, after string
	wraps         bool // before and after are the style's whole effect
}

// newStyle finds what the style puts around a letter. Styles that do more
// than colour and attributes (padding, width, borders) change the text
// itself, and lipgloss underlines and strikes through letter by letter:
// those are left to lipgloss.
func newStyle(style lipgloss.Style) Style {
	p := Style{Style: style}
	out := style.Render("x")
	if i := strings.IndexByte(out, 'x'); i >= 0 && strings.Count(out, "x") == 1 &&
		style.GetHorizontalFrameSize() == 0 && style.GetVerticalFrameSize() == 0 && style.GetWidth() == 0 &&
		!style.GetUnderline() && !style.GetStrikethrough() {
		p.before, p.after, p.wraps = out[:i], out[i+1:], true
	}
	return p
}

// Render is lipgloss's Render, without its cost for one plain line.
func (p *Style) Render(strs ...string) string {
	if len(strs) != 1 || !p.wraps || strs[0] == "" || strings.ContainsAny(strs[0], "\n\t\x1b") {
		return p.Style.Render(strs...)
	}
	return p.before + strs[0] + p.after
}
