package tui

import (
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/decode"
)

// The Telemetry pane's charts, on a large pane: a grid of cells, each an
// entry's title line and its chart, as btop draws them.

const (
	// chartCellH and chartCellW are the size a chart aims at.
	chartCellH = 5
	chartCellW = 44
	// chartMinH and chartMinW are the least a chart is drawn in when not
	// every entry fits at the aimed size: a title and two rows (eight
	// levels of braille), and a name, a value and a scale beside it.
	chartMinH = 3
	chartMinW = 30
)

// telemetryCharts says whether a pane of w×h cells draws charts rather
// than one line per series.
func telemetryCharts(w, h int) bool { return w >= 2*chartCellW && h >= 2*chartCellH+1 }

// chartLayout lays n charts out on w×h cells: how many columns, and the
// height of each band of charts. When they all fit at the aimed size,
// they are drawn so; when they do not, smaller (lower first, then
// narrower) so that as many show as can, and the bands share the height
// between them: no row is left empty while charts are hidden.
func chartLayout(n, w, h int) (cols int, bands []int) {
	cols, rows := max(w/chartCellW, 1), max(h/chartCellH, 1)
	if cols*rows >= n {
		return cols, repeat(chartCellH, (n+cols-1)/cols)
	}
	best, bestH := cols*rows, chartCellH
	for ch := chartCellH; ch >= chartMinH; ch-- {
		for c := max(w/chartCellW, 1); w/c >= chartMinW; c++ {
			if shown := min(c*(h/ch), n); shown > best {
				best, bestH, cols = shown, ch, c
			}
		}
	}
	count := min(h/bestH, (n+cols-1)/cols)
	bands = repeat(h/count, count)
	for i := range h % count {
		bands[i]++
	}
	return cols, bands
}

func repeat(v, n int) []int {
	out := make([]int, max(n, 0))
	for i := range out {
		out[i] = v
	}
	return out
}

// chartGrid draws the entries the table's window holds as charts, w×h
// cells, the selected one highlighted when the pane has the focus.
func (m *Model) chartGrid(entries []*telemetryEntry, t *table, d telemetryRows, w, h int, focused bool) []string {
	cols, bands := chartLayout(len(entries), w, h)
	t.layout(d, cols*len(bands))
	cw := w / cols
	var grid []string
	for r, bh := range bands {
		if r*cols >= len(t.order) {
			break
		}
		band := make([]string, bh)
		for c := range cols {
			k := r*cols + c
			width := cw
			if c == cols-1 {
				width = w - cw*(cols-1)
			}
			cell := make([]string, bh)
			if k < len(t.order) {
				i := t.order[k]
				cell = m.chartCell(entries[i], width-1, bh, focused && t.hasSel && d.ID(i) == t.selID)
			}
			for j := range band {
				band[j] += padRight(clip(cell[j], width-1), width-1)
				if c < cols-1 {
					band[j] += " "
				}
			}
		}
		grid = append(grid, band...)
	}
	return grid
}

// chartCell is one entry's chart, w×h cells: its title line, then its rows.
func (m *Model) chartCell(e *telemetryEntry, w, h int, selected bool) []string {
	unit := e.unit()
	lo, hi := chartRange(e.values, unit)
	value := unitValue(e.last(), unit)
	label := inert(e.label(m.cfg.ASCII))
	// The chart's top (↑, its most) is said when it is not the value
	// shown, and when the name keeps all its letters beside it: the name
	// is what the cell is about, its scale is read in its chart's shape
	// too. A share's chart goes to 100% whatever its most: "↑100%" would
	// read as a peak.
	top := " ↑" + unitValue(hi, unit)
	if unitValue(hi, unit) == value || widthOf(label)+1+widthOf(value)+widthOf(top) > w || unit == decode.UnitPercent {
		top = ""
	}
	scale := m.st.Label.Render(top)
	room := max(w-widthOf(value)-widthOf(top)-1, 1)
	name := fit(shortSeries(label, room), room, false)
	title := m.st.Label.Render(name) + " " + m.st.Value.Render(value) + scale
	if selected {
		title = m.st.Selected.Render(name + " " + value + ansi.Strip(scale))
	}
	out := []string{title}
	for _, row := range areaChart(e.values, lo, hi, w, h-1, m.cfg.ASCII) {
		out = append(out, m.st.Spark.Render(row))
	}
	return out
}
