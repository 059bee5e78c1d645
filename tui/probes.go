package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/proftop/proftop/state"
)

// The Probes pane: the application's events a probe records (JFR duration
// events, for proftop's agent: --probe jfr:EVENT#FIELD), one row per probe
// and group: how many, their total, average and longest duration, as
// JProfiler's probe tables show them. The drill-in lists a row's hot
// spots: the stacks they were committed at, by time spent.

var probeCols = []column{
	{title: "PROBE", min: 14, text: true, asc: true, shorten: shortProbe},
	{title: "GROUP", width: 24, grow: 16, text: true, asc: true, drop: 1, shorten: middle},
	{title: "COUNT", width: 8, right: true},
	{title: "TOTAL", width: 8, right: true, name: "total time"},
	{title: "AVG", width: 8, right: true, drop: 2, name: "average time"},
	{title: "MAX", width: 8, right: true, drop: 3, name: "longest"},
	{title: "%", width: 5, right: true, drop: 4, name: "share of the probe"},
}

type probeRows struct {
	s     []state.ProbeRow
	total map[string]time.Duration // by probe: the 100% of the share column
}

func newProbeRows(s []state.ProbeRow) probeRows {
	r := probeRows{s: s, total: map[string]time.Duration{}}
	for _, p := range s {
		r.total[p.Probe] += p.Total
	}
	return r
}

func (r probeRows) Len() int                      { return len(r.s) }
func (r probeRows) ID(i int) int64                { return int64(hashName(r.s[i].Probe + "\x00" + r.s[i].Group)) }
func (r probeRows) Name(i int) string             { return r.s[i].Probe + "\x00" + r.s[i].Group }
func (r probeRows) Kind(i int) rowKind            { return rowNormal }
func (r probeRows) CellStyle(i, col int) cellHint { return hintNone }

func (r probeRows) Text(i, col int) string {
	if col == 1 {
		return r.s[i].Group
	}
	return r.s[i].Probe
}

func (r probeRows) share(i int) float64 {
	t := r.total[r.s[i].Probe]
	if t <= 0 {
		return 0
	}
	return 100 * float64(r.s[i].Total) / float64(t)
}

func (r probeRows) Cell(i, col int) string {
	p := &r.s[i]
	switch col {
	case 0:
		return inert(p.Probe)
	case 1:
		if p.Group == "" {
			return "–"
		}
		return inert(p.Group)
	case 2:
		return count(p.Count)
	case 3:
		return dur(p.Total)
	case 4:
		return dur(p.Avg)
	case 5:
		return dur(p.Max)
	case 6:
		return pct(r.share(i))
	}
	return ""
}

func (r probeRows) Num(i, col int) int64 {
	p := &r.s[i]
	switch col {
	case 2:
		return p.Count
	case 3:
		return int64(p.Total)
	case 4:
		return int64(p.Avg)
	case 5:
		return int64(p.Max)
	case 6:
		return int64(r.share(i) * 1000)
	}
	return 0
}

// noProbes says why no probe has recorded anything: what went wrong with
// those asked for (the agent's reasons, said in the telemetry's pane
// too), else how to get probes.
func noProbes(s *state.Snapshot, asked []string, w, h int, st *Styles) []string {
	var problems []state.TelemetryProblem
	for _, p := range s.TelemetryProblems {
		if slices.Contains(asked, p.Spec) {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		out := []string{st.Muted.Render("No probe has recorded anything:")}
		return append(out, problemLines(problems, w, max(h-1, 1), st)...)
	}
	// Wrapped to the pane: at a fixed width it was cut mid-word on a
	// narrow terminal.
	lines := wrapWhole("No probe has recorded anything. Watching a JVM through proftop's agent, "+
		"--probe jfr:EVENT#FIELD records the application's JFR duration events by the value of FIELD: "+
		"how many, how long in total, on average and at most, and where they were committed.", w)
	for i, l := range lines {
		lines[i] = st.Muted.Render(l)
	}
	return lines
}

// probeDetail is a row's drill-in: its figures, then its hot spots.
func probeDetail(r probeRows, i int, st *Styles) []string {
	label, value := st.Label.Render, st.Value.Render
	p := &r.s[i]
	group := p.Group
	if group == "" {
		group = "(no group)"
	}
	out := []string{
		st.Title.Render("Probe ") + value(inert(p.Probe)) + label(" · group ") + value(inert(group)),
		fmt.Sprintf("  %s %s  %s %s  %s %s  %s %s  %s %s", label("events"), value(count(p.Count)), label("total"), value(dur(p.Total)),
			label("average"), value(dur(p.Avg)), label("longest"), value(dur(p.Max)), label("share of the probe"), value(pct(r.share(i)))),
		"",
		st.Title.Render("Hot spots ") + label("(where the events were committed, by total time)"),
	}
	if len(p.HotSpots) == 0 {
		return append(out, "  "+st.Muted.Render("none recorded"))
	}
	for _, hs := range p.HotSpots {
		share := 0.0
		if p.Total > 0 {
			share = 100 * float64(hs.Total) / float64(p.Total)
		}
		out = append(out, fmt.Sprintf("  ● %s %s  %s %s  %s", value(pct(share)), label("of the time"), value(count(hs.Count)), label("events"), value(dur(hs.Total))))
		if len(hs.Stack) == 0 {
			out = append(out, "      "+st.Muted.Render("(no stack recorded, or beyond the stacks kept)"))
			continue
		}
		out = append(out, stackLines(hs.Stack, st)...)
	}
	return out
}

// shortProbe fits a probe's name, "jfr:bank.Transfer#state", in w cells:
// the event's packages go to initials, then altogether, before the middle
// is cut ("jfr:ba…sfer#state" told neither the event nor the field).
func shortProbe(s string, w int) string {
	if widthOf(s) <= w {
		return s
	}
	kind, rest, ok := strings.Cut(s, ":")
	if !ok {
		return middle(s, w)
	}
	event, field, _ := strings.Cut(rest, "#")
	if field != "" {
		field = "#" + field
	}
	for _, e := range []string{initials(event, 1), simpleName(event)} {
		if out := kind + ":" + e + field; widthOf(out) <= w {
			return out
		}
	}
	return middle(kind+":"+simpleName(event)+field, w)
}
