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

// problemText is one problem, "⚠ SPEC: REASON", wrapped at w cells
// (continued lines indented): the spec in the warning's style, the reason
// in the error's.
func problemText(p state.TelemetryProblem, w int, st *Styles) []string {
	spec, reason := "⚠ "+inert(p.Spec)+": ", inert(p.Problem)
	if widthOf(spec)+widthOf(reason) <= w {
		return []string{st.Warn.Render(spec) + st.Bad.Render(reason)}
	}
	// The sign stays with the spec: a non-space stands for the space between them while wrapping.
	const glue = '\x00'
	text := strings.Replace(spec, " ", string(glue), 1) + reason
	wrapped := wrapNames(text, max(w-len(problemIndent), 8))
	// Wrapping only breaks lines and drops the spaces it breaks at: each
	// line's characters are found in order in the text, and those before
	// the reason belong to the spec.
	var out []string
	pos := 0
	for i, line := range wrapped {
		var head, tail strings.Builder
		for _, r := range line {
			for pos < len(text) && !strings.HasPrefix(text[pos:], string(r)) {
				pos++ // a space the wrap dropped
			}
			if r == glue {
				r = ' '
			}
			if pos < len(spec) {
				head.WriteRune(r)
			} else {
				tail.WriteRune(r)
			}
			pos += len(string(r))
		}
		l := ""
		if i > 0 {
			l = problemIndent
		}
		if head.Len() > 0 {
			l += st.Warn.Render(head.String())
		}
		if tail.Len() > 0 {
			l += st.Bad.Render(tail.String())
		}
		out = append(out, l)
	}
	return out
}

const problemIndent = "  "

// wrapNames wraps plain text at w cells at spaces; a word wider than a
// line (a long object name) breaks at its separators, or anywhere.
func wrapNames(text string, w int) []string {
	var out []string
	for _, line := range strings.Split(ansi.Wordwrap(text, w, ""), "\n") {
		if widthOf(line) <= w {
			out = append(out, line)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(line, w, ",:=/"), "\n")...)
	}
	return out
}
