package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/state"
)

// problemLines are the problems with the user's specs as the Telemetry
// pane shows them, w cells wide: a problem that does not fit on a line has
// its spec, then its reason, wrapped rather than cut (the reason is what
// the user acts on). As many as room lines hold, then how many more there
// are; the first is shown whole whatever room says.
func problemLines(problems []state.TelemetryProblem, w, room int, st *Styles) []string {
	var out []string
	for i, p := range problems {
		lines := problemText(p, w, st)
		limit := room
		if i < len(problems)-1 {
			limit-- // a line to say how many more
		}
		if i > 0 && len(out)+len(lines) > limit {
			more := len(problems) - i
			out = append(out, st.Warn.Render(fmt.Sprintf("⚠ and %d more %s (--batch lists them all)", more, map[bool]string{true: "problem", false: "problems"}[more == 1])))
			break
		}
		out = append(out, lines...)
	}
	return out
}

// problemText is one problem: "⚠ SPEC: REASON" on a line when it fits,
// else the spec's lines, then the reason's, indented under it.
func problemText(p state.TelemetryProblem, w int, st *Styles) []string {
	spec, reason := "⚠ "+inert(p.Spec)+":", inert(p.Problem)
	if widthOf(spec)+1+widthOf(reason) <= w {
		return []string{st.Warn.Render(spec+" ") + st.Bad.Render(reason)}
	}
	var out []string
	for i, l := range wrapAt(spec, w-len(problemIndent)) {
		if i > 0 {
			l = problemIndent + l
		}
		out = append(out, st.Warn.Render(l))
	}
	for _, l := range wrapAt(reason, w-len(problemIndent)) {
		out = append(out, st.Bad.Render(problemIndent+l))
	}
	return out
}

const problemIndent = "  "

// wrapAt wraps plain text at w cells: at spaces and at the separators of
// object names and specs, a long word anywhere.
func wrapAt(text string, w int) []string {
	return strings.Split(ansi.Wrap(text, max(w, 8), " ,:=/"), "\n")
}
