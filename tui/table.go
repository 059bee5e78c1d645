package tui

import (
	"container/heap"
	"regexp"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// column describes one column of a table.
type column struct {
	title string
	width int  // cells; 0 makes the column take what is left
	min   int  // the least a flexible column gets
	right bool // right-aligned (numbers)
	asc   bool // sorts ascending by default (names); numbers sort descending
	drop  int  // when the table is narrow, columns with the highest drop go first; 0 never goes
}

// rowKind styles a row.
type rowKind uint8

const (
	rowNormal rowKind = iota
	rowDim            // ended threads, idle monitors
	rowAlert          // part of a deadlock
)

// rows is the data of a table, over one snapshot.
type rows interface {
	Len() int
	ID(i int) int64                // identity across snapshots, for a stable selection
	Cell(i, col int) string        // the text of a cell, already inert
	Less(i, j, col int) bool       // ascending order by a column
	Name(i int) string             // what the filter matches
	Kind(i int) rowKind            // how to style the row
	CellStyle(i, col int) cellHint // a per-cell style hint
}

type cellHint uint8

const (
	hintNone cellHint = iota
	hintRunning
	hintBlocked
	hintWaiting
)

// table is the state of a scrolling, sorting, filtering table.
type table struct {
	cols    []column
	sortCol int
	flipped bool // the user reversed the default direction
	filter  *regexp.Regexp
	matches map[string]bool // filter results by name

	selID  int64
	hasSel bool
	offset int

	// Results of the last layout.
	order   []int // the rows on screen, in order
	pos     int   // position of the selected row among the matching rows
	matched int   // rows passing the filter
}

func newTable(cols []column, sortCol int) *table {
	return &table{cols: cols, sortCol: sortCol}
}

// descending says whether the current sort runs high to low.
func (t *table) descending() bool { return t.cols[t.sortCol].asc == t.flipped }

func (t *table) cycleSort() {
	t.sortCol = (t.sortCol + 1) % len(t.cols)
	t.flipped = false
}

func (t *table) reverse() { t.flipped = !t.flipped }

// setFilter applies a regular expression to names ("" clears it).
func (t *table) setFilter(expr string) error {
	if expr == "" {
		t.filter, t.matches = nil, nil
		return nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return err
	}
	t.filter, t.matches = re, map[string]bool{}
	return nil
}

func (t *table) match(d rows, i int) bool {
	if t.filter == nil {
		return true
	}
	name := d.Name(i)
	m, ok := t.matches[name]
	if !ok {
		m = t.filter.MatchString(name)
		if len(t.matches) > 1<<18 {
			clear(t.matches)
		}
		t.matches[name] = m
	}
	return m
}

// before is the table's order: the sort column, then identity.
func (t *table) before(d rows, a, b int) bool {
	if t.descending() {
		if d.Less(b, a, t.sortCol) {
			return true
		}
		if d.Less(a, b, t.sortCol) {
			return false
		}
	} else {
		if d.Less(a, b, t.sortCol) {
			return true
		}
		if d.Less(b, a, t.sortCol) {
			return false
		}
	}
	return d.ID(a) < d.ID(b)
}

// layout works out which rows are on screen for height rows. Only the
// rows up to the bottom of the screen are ordered (a bounded heap), so a
// table of 100,000 rows costs a couple of passes, not a sort.
func (t *table) layout(d rows, height int) {
	height = max(height, 1)
	n := d.Len()
	sel := -1
	t.matched = 0
	for i := range n {
		if !t.match(d, i) {
			continue
		}
		t.matched++
		if t.hasSel && d.ID(i) == t.selID {
			sel = i
		}
	}
	if t.matched == 0 {
		t.order, t.pos, t.offset, t.hasSel = t.order[:0], 0, 0, false
		return
	}
	if sel < 0 {
		// The selected row is gone (or there was none): select the first.
		t.order = t.top(d, 1)
		sel, t.pos = t.order[0], 0
		t.selID, t.hasSel = d.ID(sel), true
	} else {
		t.pos = 0
		for i := range n {
			if i != sel && t.match(d, i) && t.before(d, i, sel) {
				t.pos++
			}
		}
	}
	t.offset = min(max(t.offset, t.pos-height+1), t.pos)
	t.offset = max(min(t.offset, t.matched-height), 0)
	top := t.top(d, min(t.offset+height, t.matched))
	t.order = top[t.offset:]
}

// top returns the first k matching rows in order.
func (t *table) top(d rows, k int) []int {
	h := &rowHeap{t: t, d: d}
	for i := range d.Len() {
		if !t.match(d, i) {
			continue
		}
		if len(h.idx) < k {
			heap.Push(h, i)
		} else if t.before(d, i, h.idx[0]) {
			h.idx[0] = i
			heap.Fix(h, 0)
		}
	}
	out := h.idx
	slices.SortFunc(out, func(a, b int) int {
		if t.before(d, a, b) {
			return -1
		}
		return 1
	})
	return out
}

// rowHeap keeps the k first rows seen, the last of them on top.
type rowHeap struct {
	t   *table
	d   rows
	idx []int
}

func (h *rowHeap) Len() int           { return len(h.idx) }
func (h *rowHeap) Less(a, b int) bool { return h.t.before(h.d, h.idx[b], h.idx[a]) }
func (h *rowHeap) Swap(a, b int)      { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *rowHeap) Push(x any)         { h.idx = append(h.idx, x.(int)) }
func (h *rowHeap) Pop() any {
	v := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return v
}

// move shifts the selection by delta rows (clamped), as arrows and pages do.
func (t *table) move(d rows, delta int) {
	if t.matched == 0 {
		return
	}
	pos := min(max(t.pos+delta, 0), t.matched-1)
	if pos == t.pos {
		return
	}
	order := t.top(d, pos+1)
	t.selID, t.hasSel, t.pos = d.ID(order[pos]), true, pos
}

// selected returns the selected row's index in d, or -1.
func (t *table) selected(d rows) int {
	if !t.hasSel {
		return -1
	}
	for i := range d.Len() {
		if d.ID(i) == t.selID {
			return i
		}
	}
	return -1
}

// widths fits the columns into width cells, dropping columns when narrow.
func (t *table) widths(width int) []int {
	w := make([]int, len(t.cols))
	for {
		used, flex := 0, -1
		for i, c := range t.cols {
			if w[i] < 0 {
				continue
			}
			if c.width == 0 {
				flex = i
				used += c.min
			} else {
				used += c.width
			}
			used++ // the gap
		}
		if used-1 <= width {
			for i, c := range t.cols {
				if w[i] >= 0 {
					w[i] = c.width
				}
			}
			if flex >= 0 {
				w[flex] = t.cols[flex].min + width - (used - 1)
			}
			return w
		}
		worst := -1
		for i, c := range t.cols {
			if w[i] >= 0 && c.drop > 0 && (worst < 0 || c.drop > t.cols[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			// Nothing more can go: shrink what is flexible and let the rest be cut.
			for i, c := range t.cols {
				if w[i] >= 0 {
					w[i] = c.width
					if c.width == 0 {
						w[i] = max(1, c.min-(used-1-width))
					}
				}
			}
			return w
		}
		w[worst] = -1
	}
}

// render draws the header and the visible rows into exactly height lines
// of width cells.
func (t *table) render(d rows, width, height int, st *Styles, focused bool) []string {
	lines := make([]string, 0, height)
	ws := t.widths(width)
	var hb strings.Builder
	for i, c := range t.cols {
		if ws[i] < 0 {
			continue
		}
		title := c.title
		style := st.ColHeader
		if i == t.sortCol {
			style = st.ColSorted
			if t.descending() {
				title += "▼"
			} else {
				title += "▲"
			}
		}
		if hb.Len() > 0 {
			hb.WriteByte(' ')
		}
		hb.WriteString(style.Render(fit(title, ws[i], c.right)))
	}
	lines = append(lines, clip(hb.String(), width))
	t.layout(d, height-1)
	for _, r := range t.order {
		var b strings.Builder
		first := true
		for i, c := range t.cols {
			if ws[i] < 0 {
				continue
			}
			if !first {
				b.WriteByte(' ')
			}
			first = false
			cell := fit(d.Cell(r, i), ws[i], c.right)
			if h := d.CellStyle(r, i); h != hintNone && !(focused && d.ID(r) == t.selID) {
				cell = hintStyle(st, h).Render(cell)
			}
			b.WriteString(cell)
		}
		line := padRight(b.String(), width)
		switch {
		case focused && t.hasSel && d.ID(r) == t.selID:
			line = st.Selected.Render(ansi.Strip(line))
		case d.Kind(r) == rowDim:
			line = st.Ended.Render(ansi.Strip(line))
		case d.Kind(r) == rowAlert:
			line = st.Bad.Render(ansi.Strip(line))
		}
		lines = append(lines, line)
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return lines
}

func hintStyle(st *Styles, h cellHint) lipgloss.Style {
	switch h {
	case hintRunning:
		return st.Running
	case hintBlocked:
		return st.Blocked
	case hintWaiting:
		return st.Waiting
	}
	return lipgloss.Style{}
}

// fit truncates or pads text to exactly w cells.
func fit(s string, w int, right bool) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		return ansi.Truncate(s, w, "…")
	}
	pad := strings.Repeat(" ", w-sw)
	if right {
		return pad + s
	}
	return s + pad
}

// padRight pads a styled line to w cells.
func padRight(s string, w int) string {
	if sw := ansi.StringWidth(s); sw < w {
		return s + strings.Repeat(" ", w-sw)
	}
	return s
}

// clip cuts a styled line to w cells.
func clip(s string, w int) string {
	if ansi.StringWidth(s) > w {
		return ansi.Truncate(s, w, "")
	}
	return s
}

func widthOf(s string) int { return ansi.StringWidth(s) }
