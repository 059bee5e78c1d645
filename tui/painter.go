package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// painter styles one-line text the way a lipgloss style does, by wrapping
// it in the escape sequences the style opens and closes with, found once.
// A table restyles thousands of cells a frame; lipgloss works each style
// out again at every call, a fifth of a frame's rendering.
type painter struct {
	style         lipgloss.Style
	before, after string
	wraps         bool // before and after are the style's whole effect
}

// newPainter finds what the style puts around a letter. Styles that do
// more than colour and attributes (padding, width, borders) change the
// text itself, and lipgloss underlines and strikes through letter by
// letter: those are left to lipgloss.
func newPainter(style lipgloss.Style) painter {
	p := painter{style: style}
	out := style.Render("x")
	if i := strings.IndexByte(out, 'x'); i >= 0 && strings.Count(out, "x") == 1 &&
		style.GetHorizontalFrameSize() == 0 && style.GetVerticalFrameSize() == 0 && style.GetWidth() == 0 &&
		!style.GetUnderline() && !style.GetStrikethrough() {
		p.before, p.after, p.wraps = out[:i], out[i+1:], true
	}
	return p
}

// paint is style.Render(s).
func (p *painter) paint(s string) string {
	if !p.wraps || s == "" || strings.ContainsAny(s, "\n\t\x1b") {
		return p.style.Render(s)
	}
	return p.before + s + p.after
}

// tablePainters are the styles a table applies to cells and rows.
type tablePainters struct {
	hints                  [hintSleeping + 1]painter
	header, sorted         painter
	selected, ended, alert painter
}

func newTablePainters(st *Styles) tablePainters {
	var tp tablePainters
	for h := range tp.hints {
		tp.hints[h] = newPainter(hintStyle(st, cellHint(h)))
	}
	tp.header, tp.sorted = newPainter(st.ColHeader), newPainter(st.ColSorted)
	tp.selected, tp.ended, tp.alert = newPainter(st.Selected), newPainter(st.Ended), newPainter(st.Bad)
	return tp
}

// hint is the painter of a cell hint.
func (tp *tablePainters) hint(h cellHint) *painter {
	if int(h) < len(tp.hints) {
		return &tp.hints[h]
	}
	return &tp.hints[hintNone]
}
