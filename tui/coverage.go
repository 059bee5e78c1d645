package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/proftop/proftop/internal/javaname"
	"github.com/proftop/proftop/state"
)

// The Coverage pane: line coverage by class, for a source that measures it
// (a ProfilerJ snapshot); the drill-in shows a class's methods, their
// lines hit and the lines never reached. Its tab shows only when there is
// coverage to show.

var coverageCols = []column{
	{title: "CLASS", min: 20, text: true, asc: true, shorten: shortClass}, // the simple name stays
	{title: "SOURCE", width: 16, text: true, asc: true, drop: 3},
	{title: "METHODS", width: 7, right: true, drop: 2},
	{title: "INVOKED", width: 7, right: true, drop: 4},
	{title: "LINES", width: 6, right: true},
	{title: "HIT", width: 6, right: true},
	{title: "COVERED", width: 7, right: true},
	{title: "NEVER", width: 6, right: true, drop: 1},
}

type coverageRows struct{ s []state.CoverageClass }

func (r coverageRows) Len() int                      { return len(r.s) }
func (r coverageRows) ID(i int) int64                { return int64(hashName(r.s[i].Class)) }
func (r coverageRows) Name(i int) string             { return r.s[i].Class }
func (r coverageRows) Kind(i int) rowKind            { return rowNormal }
func (r coverageRows) CellStyle(i, col int) cellHint { return hintNone }

func (r coverageRows) Text(i, col int) string {
	if col == 1 {
		return r.s[i].Source
	}
	return r.s[i].Class
}

// covered is the share of a class's lines that ran, in per mille, to sort by.
func covered(c *state.CoverageClass) int64 {
	if c.Lines == 0 {
		return 0
	}
	return 1000 * c.Hit / c.Lines
}

// coveredText is the share of lines that ran, as every coverage figure
// shows it: from the counts themselves, rounded once, to the nearest.
func coveredText(hit, lines int64) string {
	switch {
	case lines <= 0:
		return "–"
	case hit <= 0:
		return "0%"
	case hit >= lines:
		return "100%"
	}
	// Rounded to the nearest, but never to what is not so: a line left
	// out is not 100%, a line run is not 0.0%.
	switch share := 100 * float64(hit) / float64(lines); {
	case share >= 99.5:
		return ">99%"
	case share < 0.05:
		return "<0.1%"
	default:
		return pct(share)
	}
}

func (r coverageRows) Cell(i, col int) string {
	c := &r.s[i]
	switch col {
	case 0:
		return inert(c.Class)
	case 1:
		return inert(c.Source)
	case 2:
		return strconv.Itoa(len(c.Methods))
	case 3:
		return strconv.Itoa(c.Invoked)
	case 4:
		return count(c.Lines)
	case 5:
		return count(c.Hit)
	case 6:
		return coveredText(c.Hit, c.Lines)
	case 7:
		return count(c.Lines - c.Hit)
	}
	return ""
}

func (r coverageRows) Num(i, col int) int64 {
	c := &r.s[i]
	switch col {
	case 2:
		return int64(len(c.Methods))
	case 3:
		return int64(c.Invoked)
	case 4:
		return c.Lines
	case 5:
		return c.Hit
	case 6:
		return covered(c)
	case 7:
		return c.Lines - c.Hit
	}
	return 0
}

// coverageTitle sums up the coverage: the share of all lines that ran.
func coverageTitle(s *state.Snapshot) string {
	var lines, hit int64
	for i := range s.Coverage {
		lines += s.Coverage[i].Lines
		hit += s.Coverage[i].Hit
	}
	t := "Coverage"
	if lines > 0 {
		t += fmt.Sprintf(" · %s of %s lines ran", coveredText(hit, lines), count(lines))
	}
	return t
}

// coverageDetail is a class's drill-in: each method, its invocations, its
// lines hit, and the lines never reached.
func coverageDetail(c *state.CoverageClass, st *Styles) []string {
	label, value := st.Label.Render, st.Value.Render
	out := []string{st.Title.Render("Class ") + value(inert(c.Class))}
	if c.Source != "" {
		out[0] += label(" (" + inert(c.Source) + ")")
	}
	out = append(out, fmt.Sprintf("  %s %s  %s %s  %s %s  %s %s", label("methods"), value(strconv.Itoa(len(c.Methods))),
		label("invoked"), value(strconv.Itoa(c.Invoked)), label("lines with code"), value(count(c.Lines)),
		label("ran"), value(count(c.Hit))), "")
	for _, m := range c.Methods {
		// The signature as Java writes it: "(Ljava/lang/String;)V" reads "(String)".
		sig := strings.TrimPrefix(javaname.Method(m.Name+m.Signature), m.Name)
		head := fmt.Sprintf("  %s%s", value(inert(m.Name)), label(inert(sig)))
		if m.FirstLine > 0 {
			head += label(fmt.Sprintf(" (line %d)", m.FirstLine))
		}
		out = append(out, head)
		if m.Unreadable {
			out = append(out, "    "+st.Bad.Render("its line counts could not be read"))
			continue
		}
		share := coveredText(m.Hit, m.Lines)
		out = append(out, fmt.Sprintf("    %s %s  %s %s %s %s %s",
			label("invoked"), value(count(m.Count)), label("lines hit"), value(count(m.Hit)), label("of"), value(count(m.Lines)), label("("+share+")")))
		switch {
		case m.Lines == 0:
		case len(m.Never) == 0:
			out = append(out, "    "+st.Good.Render("every line ran"))
		default:
			out = append(out, "    "+st.Bad.Render("never reached: ")+value(lineRanges(m.Never)))
		}
	}
	return out
}

// lineRanges renders ranges of lines: "31-33, 40".
func lineRanges(rs []state.LineRange) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		if r.From == r.To {
			parts = append(parts, strconv.FormatInt(r.From, 10))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", r.From, r.To))
		}
	}
	return strings.Join(parts, ", ")
}

// coverageByID finds a class by its row id.
func coverageByID(s *state.Snapshot, id int64) *state.CoverageClass {
	for i := range s.Coverage {
		if int64(hashName(s.Coverage[i].Class)) == id {
			return &s.Coverage[i]
		}
	}
	return nil
}

// noCoverage says why the pane is empty.
func noCoverage(st *Styles) []string {
	return []string{
		st.Muted.Render("This source reports no line coverage."),
		st.Muted.Render("Coverage shows here from sources that measure it: a ProfilerJ snapshot's <coverage>."),
	}
}
