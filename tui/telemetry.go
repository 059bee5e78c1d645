package tui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/state"
)

// The Telemetry pane: the series a source publishes (the JVM's vital signs,
// the memory pools, the application's own counters). On a small pane each
// series is one line: its name, its latest value in its unit, the least
// and most of the window, and a sparkline. On a large pane each is a chart
// of several rows, as btop draws them. Series named "X (1)" … "X (n)" make
// one entry, a group, whose value is their sum (the most, for percentages
// and durations); enter shows an entry large, with its scale, a group as
// small multiples of its members.

// telemetryEntry is one row of the pane: a series, or a group of them.
type telemetryEntry struct {
	name    string          // the series' name, or the group's
	members []*state.Series // one for a series; a group's, in natural order
	order   int             // where it first appeared
	values  []float64       // the points of the window, in the unit (a group's summed, or their most)
	times   []time.Time
}

func (e *telemetryEntry) group() bool  { return len(e.members) > 1 }
func (e *telemetryEntry) unit() string { return e.members[0].Unit }
func (e *telemetryEntry) id() int64    { return int64(hashName("telemetry\x00" + e.name)) }
func (e *telemetryEntry) summed() bool {
	return e.unit() == decode.UnitPlain || e.unit() == decode.UnitBytes
}
func (e *telemetryEntry) last() float64 { return lastOf(e.values) }

// label is the entry's name as the pane shows it: a group's with its size
// and how its values combine (Σ, or max).
func (e *telemetryEntry) label(ascii bool) string {
	if !e.group() {
		return e.name
	}
	how := "max"
	if e.summed() {
		how = "Σ"
		if ascii {
			how = "sum" // toASCII maps one cell to one cell: the word is written here
		}
	}
	return fmt.Sprintf("%s ×%d %s", e.name, len(e.members), how)
}

func lastOf(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	return vs[len(vs)-1]
}

// telemetryEntries makes the pane's entries from a snapshot: series in
// the order they appeared, a group where its first member appeared.
func telemetryEntries(s *state.Snapshot) []*telemetryEntry {
	var out []*telemetryEntry
	groups := map[string]*telemetryEntry{}
	for i := range s.Telemetry {
		sr := &s.Telemetry[i]
		if sr.Group == "" {
			out = append(out, &telemetryEntry{name: sr.Name, members: []*state.Series{sr}, order: len(out)})
			continue
		}
		g := groups[sr.Group]
		if g == nil {
			g = &telemetryEntry{name: sr.Group, order: len(out)}
			groups[sr.Group] = g
			out = append(out, g)
		}
		g.members = append(g.members, sr)
	}
	for _, e := range out {
		if e.group() {
			sortMembers(e.members)
		}
		e.values, e.times = combine(e)
	}
	return out
}

func sortMembers(ms []*state.Series) {
	slices.SortStableFunc(ms, func(a, b *state.Series) int { return state.NaturalCompare(a.Name, b.Name) })
}

// entriesCache keeps the entries of the snapshot shown: a frame asks for
// them several times (the layout, the pane, the keys).
type entriesCache struct {
	snap    *state.Snapshot
	entries []*telemetryEntry
}

func (c *entriesCache) of(s *state.Snapshot) []*telemetryEntry {
	if c.snap != s {
		c.snap, c.entries = s, telemetryEntries(s)
	}
	return c.entries
}

// combine gives an entry's values in its unit: a series' points, or its
// members' summed (or their most) at each time of the first member's.
func combine(e *telemetryEntry) ([]float64, []time.Time) {
	first := e.members[0]
	vs := make([]float64, len(first.Points))
	ts := make([]time.Time, len(first.Points))
	for i, p := range first.Points {
		vs[i], ts[i] = first.Scaled(p.Value), p.At
	}
	if !e.group() {
		return vs, ts
	}
	for _, m := range e.members[1:] {
		// Members are sampled together: align them on the newest point.
		off := len(m.Points) - len(vs)
		for i := range vs {
			j := i + off
			if j < 0 || j >= len(m.Points) {
				continue
			}
			v := m.Scaled(m.Points[j].Value)
			if e.summed() {
				vs[i] += v
			} else {
				vs[i] = max(vs[i], v)
			}
		}
	}
	return vs, ts
}

func minMax(vs []float64) (lo, hi float64) {
	lo, hi = math.NaN(), math.NaN()
	for _, v := range vs {
		if math.IsNaN(lo) || v < lo {
			lo = v
		}
		if math.IsNaN(hi) || v > hi {
			hi = v
		}
	}
	return lo, hi
}

// --- the one-line-per-series table ---

var telemetryCols = []column{
	{title: "SERIES", width: 30, grow: 24, asc: true, shorten: shortSeries, name: "order"},
	{title: "LAST", width: 9, right: true, name: "latest value"},
	{title: "MIN", width: 8, right: true, drop: 2, name: "least of the window"},
	{title: "MAX", width: 8, right: true, drop: 3, name: "most of the window"},
	{title: "TREND", min: 10, drop: 1, shorten: lastCells, name: "trend"},
}

// lastCells keeps the right end of a sparkline: the newest values.
func lastCells(s string, w int) string {
	r := []rune(s)
	if len(r) <= w {
		return s
	}
	return string(r[len(r)-w:])
}

type telemetryRows struct {
	e     []*telemetryEntry
	ascii bool
}

func (r telemetryRows) Len() int       { return len(r.e) }
func (r telemetryRows) ID(i int) int64 { return r.e[i].id() }

// Name is what the filter matches: the entry's name and its members'.
func (r telemetryRows) Name(i int) string {
	names := []string{r.e[i].name}
	for _, m := range r.e[i].members {
		names = append(names, m.Name)
	}
	return strings.Join(names, "\x00")
}
func (r telemetryRows) Text(i, col int) string        { return r.e[i].name }
func (r telemetryRows) Kind(i int) rowKind            { return rowNormal }
func (r telemetryRows) CellStyle(i, col int) cellHint { return hintNone }

func (r telemetryRows) Cell(i, col int) string {
	e := r.e[i]
	switch col {
	case 0:
		return inert(e.label(r.ascii))
	case 1:
		return unitValue(e.last(), e.unit())
	case 2, 3:
		lo, hi := minMax(e.values)
		return unitValue([]float64{lo, hi}[col-2], e.unit())
	case 4:
		return trend(e.values, e.unit(), min(len(e.values), 150), r.ascii)
	}
	return ""
}

// trend is a series' sparkline. It spans the window's least to most (the
// MIN and MAX beside it), so that a counter that grows slowly does not
// look flat; a percentage keeps its scale from 0 to at least 100, and a
// series that has not moved its scale from 0, so that its level shows.
func trend(vs []float64, unit string, width int, ascii bool) string {
	lo, hi := minMax(vs)
	if unit == decode.UnitPercent || !(hi > lo) {
		lo, hi = chartRange(vs, unit)
		shifted := make([]float64, len(vs))
		for j, v := range vs {
			shifted[j] = v - lo
		}
		return sparkline(shifted, width, hi-lo, ascii)
	}
	return rangeSparkline(vs, width, lo, hi, ascii)
}

// numKey orders values whatever their scale: a float's bits order as the
// float does once the sign is handled.
func numKey(v float64) int64 {
	if math.IsNaN(v) {
		return math.MinInt64
	}
	b := int64(math.Float64bits(v))
	if b < 0 {
		b = math.MinInt64 - b
	}
	return b
}

func (r telemetryRows) Num(i, col int) int64 {
	e := r.e[i]
	switch col {
	case 0:
		return int64(e.order)
	case 1:
		return numKey(e.last())
	case 2, 3:
		lo, hi := minMax(e.values)
		return numKey([]float64{lo, hi}[col-2])
	}
	return 0
}

// --- the pane ---

// renderTelemetry draws the pane's body: the problems with the user's
// specs first, then the series, as a table or as charts.
func (m *Model) renderTelemetry(w, h int, focused bool) []string {
	s := m.snap
	// The problems take up to half the pane: what is wrong with what the
	// user asked for comes before the series that are right.
	lines := problemLines(s.TelemetryProblems, w, max(h/2, 2), &m.st)
	if s.TelemetryDropped > 0 {
		lines = append(lines, m.st.Warn.Render(fmt.Sprintf("⚠ %d series not kept: more than the %d this proftop keeps (telemetry-series)", s.TelemetryDropped, len(s.Telemetry))))
	}
	h -= len(lines)
	entries := m.entries.of(s)
	if len(entries) == 0 {
		return append(lines, noTelemetry(&m.st)...)
	}
	t := m.tables[paneTelemetry]
	d := telemetryRows{e: entries, ascii: m.cfg.ASCII}
	if !telemetryCharts(w, h) {
		return append(lines, t.render(d, w, h, &m.st, focused)...)
	}
	return append(lines, m.chartGrid(entries, t, d, w, h, focused)...)
}

// telemetryNeed is the height the pane would fill at width w.
func (m *Model) telemetryNeed(w int) int {
	s := m.snap
	n := len(m.entries.of(s))
	extra := len(problemLines(s.TelemetryProblems, w-2, math.MaxInt, &m.st))
	if n == 0 {
		return 3 + max(extra, 3)
	}
	if telemetryCharts(w-2, 2*chartCellH+1) {
		cols := max((w-2)/chartCellW, 1)
		return 2 + extra + (n+cols-1)/cols*chartCellH
	}
	return 3 + extra + n
}

// noTelemetry says where series come from.
func noTelemetry(st *Styles) []string {
	return []string{
		st.Muted.Render("No series yet. proftop's JVM agent sends the JVM's (threads, classes,"),
		st.Muted.Render("CPU load, GC activity, memory pools) at each poll; --telemetry"),
		st.Muted.Render("jmx:OBJECTNAME:ATTRIBUTE or jfr:EVENT#FIELD adds the application's own."),
	}
}

// telemetryTitle says how the pane is shown.
func telemetryTitle(s *state.Snapshot, t *table, entries int, filter string) string {
	title := "Telemetry · last " + dur(s.TelemetryWindow)
	if n := len(s.TelemetryProblems); n > 0 {
		title += fmt.Sprintf(" · %d problem", n)
		if n > 1 {
			title += "s"
		}
	}
	if entries == 0 {
		return title
	}
	return title + tableTitle(t, entries, filter)
}

// entryByID finds an entry of a snapshot by its row id.
func entryByID(s *state.Snapshot, id int64) *telemetryEntry {
	for _, e := range telemetryEntries(s) {
		if e.id() == id {
			return e
		}
	}
	return nil
}

// telemetryDetail draws an entry large, with its scale, w cells wide and
// about h high: a series' window and, under it, its whole run; a group's
// sum (or most), then each member with its own scale (scrolling).
func telemetryDetail(e *telemetryEntry, w, h int, st *Styles, ascii bool, window time.Duration) []string {
	label, value := st.Label.Render, st.Value.Render
	unit := e.unit()
	var out []string
	head := st.Title.Render("Series ") + value(inert(e.name))
	if e.group() {
		head = st.Title.Render("Group ") + value(inert(e.name)) + label(fmt.Sprintf(" · %d series · the chart shows their %s", len(e.members), map[bool]string{true: "sum", false: "most"}[e.summed()]))
	}
	// An MBean's name is long: the heading wraps rather than losing its end.
	out = append(out, strings.Split(ansi.Hardwrap(head, max(w, 1), true), "\n")...)
	sr := e.members[0]
	unitText := "unit " + unit
	if sr.Divisor != 1 && sr.Divisor > 0 {
		unitText += fmt.Sprintf(", values sent ×%g", sr.Divisor)
	}
	if sr.Derived {
		unitText += ", from the memory pools the source reports"
	}
	out = append(out, "  "+label(unitText))
	avail := h - len(out) - 2 // the time axis, the figures
	if !e.group() && len(sr.Older) > 0 {
		avail -= 3 // a blank line, the title and the time axis of the whole run
	}
	main := max(avail, 4)
	switch {
	case e.group():
		main = min(max(avail/3, 4), 12)
	case len(sr.Older) > 0:
		main = max(avail*2/3, 4)
	}
	out = append(out, bigChart(e.values, e.times, unit, w, main, st, ascii, window)...)
	if !e.group() {
		lo, hi := minMax(e.values)
		out = append(out, figureLines(w, "  ", label("last")+" "+value(unitValue(e.last(), unit)),
			label("window min")+" "+value(unitValue(lo, unit)), label("max")+" "+value(unitValue(hi, unit)),
			label("since the start min")+" "+value(unitValue(sr.Scaled(sr.Min), unit)), label("max")+" "+value(unitValue(sr.Scaled(sr.Max), unit)))...)
		if len(sr.Older) > 0 {
			vs, ts := wholeRun(sr)
			out = append(out, "", st.Title.Render("Since the start ")+label(fmt.Sprintf("(%s; older points as the mean of each span)", dur(ts[len(ts)-1].Sub(ts[0]).Truncate(time.Second)))))
			out = append(out, bigChart(vs, ts, unit, w, max(avail-main, 4), st, ascii, 0)...)
		}
		return out
	}
	out = append(out, "")
	for _, m := range e.members {
		vs := make([]float64, len(m.Points))
		ts := make([]time.Time, len(m.Points))
		for i, p := range m.Points {
			vs[i], ts[i] = m.Scaled(p.Value), p.At
		}
		lo, hi := minMax(vs)
		title := st.Title.Render(inert(m.Name))
		figures := []string{label("last") + " " + value(unitValue(lastOf(vs), unit)),
			label("min") + " " + value(unitValue(lo, unit)), label("max") + " " + value(unitValue(hi, unit))}
		if whole := figureLines(w, "", append([]string{title}, figures...)...); len(whole) == 1 {
			out = append(out, whole[0])
		} else {
			// A long name (an MBean's) on its lines, the figures on theirs:
			// none of them cut.
			out = append(out, strings.Split(ansi.Hardwrap(title, max(w, 1), true), "\n")...)
			out = append(out, figureLines(w, "  ", figures...)...)
		}
		out = append(out, bigChart(vs, ts, unit, w, 4, st, ascii, window)...)
	}
	return out
}

// figureLines puts fields (a label and its figure) on lines of w cells,
// two spaces apart, each whole, as many a line as fit, each line
// beginning with indent.
func figureLines(w int, indent string, fields ...string) []string {
	lines := pack(fields, w-widthOf(indent), "  ")
	for i := range lines {
		lines[i] = indent + lines[i]
	}
	return lines
}

// wholeRun is a series' older buckets (their means) and its window, for a
// chart of the whole run.
func wholeRun(s *state.Series) ([]float64, []time.Time) {
	var vs []float64
	var ts []time.Time
	for _, b := range s.Older {
		vs = append(vs, s.Scaled(int64(math.Round(b.Mean))))
		ts = append(ts, b.From)
	}
	for _, p := range s.Points {
		vs = append(vs, s.Scaled(p.Value))
		ts = append(ts, p.At)
	}
	return vs, ts
}

// bigChart is a chart with its scale: the values at the top, middle and
// bottom on the left, the time under it. Given a window (the telemetry's),
// the chart spans it, the latest point at the right edge, so that the axis
// says the window the README and the JSON say ("-5m0s"): drawn a point a
// column, a wide chart's left edge stood for more than the window holds
// ("-6m13s", blank beyond the window). Without one (the whole run), it
// spans the points, at the pace they came.
func bigChart(vs []float64, ts []time.Time, unit string, w, h int, st *Styles, ascii bool, window time.Duration) []string {
	const gutter = 9
	cw := max(w-gutter-2, 10)
	n := chartSpan(cw, ascii)
	var span time.Duration
	switch {
	case len(ts) == 0:
	case window > 0:
		vs, span = onWindow(vs, ts, window, n), window
	default:
		if len(vs) > n {
			// More points than the chart holds: each takes the mean of its share.
			vs, ts = resample(vs, ts, n)
		}
		span = ts[len(ts)-1].Sub(ts[0])
		if k := len(vs); k > 1 && k < n {
			span = span * time.Duration(n-1) / time.Duration(k-1)
		}
	}
	lo, hi := chartRange(vs, unit)
	rows := areaChart(vs, lo, hi, cw, h, ascii)
	out := make([]string, 0, h+1)
	for i, r := range rows {
		tick := ""
		switch i {
		case 0:
			tick = unitValue(hi, unit)
		case h / 2:
			tick = unitValue(lo+(hi-lo)*float64(h-i)/float64(h), unit)
		case h - 1:
			tick = unitValue(lo, unit)
		}
		out = append(out, st.Label.Render(fit(tick, gutter, true)+" ┤")+st.Spark.Render(r))
	}
	if len(ts) > 0 {
		left := "-" + dur(span.Round(time.Second))
		axis := strings.Repeat(" ", gutter+2) + left + strings.Repeat(" ", max(cw-widthOf(left)-3, 1)) + "now"
		out = append(out, st.Label.Render(axis))
	}
	return out
}

// onWindow places the points (ts in order) of the window that ends at the
// latest on n columns by their time: the window's start at the first, the
// latest point at the last. A column is the mean of its points, NaN for
// none (before the first point, or in a gap of the series). Where the
// columns outnumber the points, those left empty between two points no
// further apart than the series' usual step (twice its median) take the
// line between them: without, the chart was a comb.
func onWindow(vs []float64, ts []time.Time, window time.Duration, n int) []float64 {
	out := make([]float64, n)
	counts := make([]int, n)
	if n < 2 || len(ts) == 0 {
		return out
	}
	end := ts[len(ts)-1]
	start := end.Add(-window)
	col := float64(window) / float64(n-1) // the time a column stands for
	for i, t := range ts {
		if t.Before(start) {
			continue
		}
		c := min(int(math.Round(float64(t.Sub(start))/col)), n-1)
		out[c] += vs[i]
		counts[c]++
	}
	for c := range out {
		if counts[c] == 0 {
			out[c] = math.NaN()
		} else {
			out[c] /= float64(counts[c])
		}
	}
	reach := 2 * medianStep(ts)
	prev := -1
	for c := range out {
		if counts[c] == 0 {
			continue
		}
		if prev >= 0 && c-prev > 1 && time.Duration(float64(c-prev)*col) <= reach {
			for k := prev + 1; k < c; k++ {
				f := float64(k-prev) / float64(c-prev)
				out[k] = out[prev] + (out[c]-out[prev])*f
			}
		}
		prev = c
	}
	return out
}

// medianStep is the median time between two points in a row, 0 for fewer
// than two points.
func medianStep(ts []time.Time) time.Duration {
	if len(ts) < 2 {
		return 0
	}
	steps := make([]time.Duration, len(ts)-1)
	for i := range steps {
		steps[i] = ts[i+1].Sub(ts[i])
	}
	slices.Sort(steps)
	return steps[len(steps)/2]
}

// resample shrinks vs to n values, each the mean of its share.
func resample(vs []float64, ts []time.Time, n int) ([]float64, []time.Time) {
	out := make([]float64, n)
	outT := make([]time.Time, n)
	for i := range n {
		a, b := i*len(vs)/n, max((i+1)*len(vs)/n, i*len(vs)/n+1)
		sum := 0.0
		for _, v := range vs[a:b] {
			sum += v
		}
		out[i], outT[i] = sum/float64(b-a), ts[a]
	}
	return out, outT
}

// writeTelemetryText adds the telemetry and the probes to a text snapshot:
// every series (groups apart) with its latest value, the problems with the
// user's specs, and the probes table.
func writeTelemetryText(b *strings.Builder, s *state.Snapshot, width int, st *Styles, ascii bool) {
	write := func(lines []string) {
		for _, l := range lines {
			b.WriteString(strings.TrimRight(l, " "))
			b.WriteByte('\n')
		}
	}
	if hasTelemetry(s) {
		fmt.Fprintf(b, "\nTELEMETRY (%d series, last %s)\n", len(s.Telemetry), dur(s.TelemetryWindow))
		for _, p := range s.TelemetryProblems {
			fmt.Fprintf(b, "problem: %s: %s\n", inert(p.Spec), inert(p.Problem))
		}
		if s.TelemetryDropped > 0 {
			fmt.Fprintf(b, "problem: %d series not kept, beyond the bound\n", s.TelemetryDropped)
		}
		var entries []*telemetryEntry
		for i := range s.Telemetry {
			e := &telemetryEntry{name: s.Telemetry[i].Name, members: []*state.Series{&s.Telemetry[i]}, order: i}
			e.values, e.times = combine(e)
			entries = append(entries, e)
		}
		if len(entries) > 0 {
			write(newTable(telemetryCols, 0).render(telemetryRows{e: entries, ascii: ascii}, width, len(entries)+1, st, false))
		}
	}
	if len(s.Probes) > 0 {
		fmt.Fprintf(b, "\nPROBES (%d, since the start)\n", len(s.Probes))
		write(newTable(probeCols, 3).render(newProbeRows(s.Probes), width, len(s.Probes)+1, st, false))
	}
}
