package tui

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/internal/javaname"
)

// column describes one column of a table.
type column struct {
	title string
	width int // cells; 0 makes the column take what is left
	min   int // the least a flexible column gets
	// want is what a flexible column needs to show its names whole
	// (OutputStreamManager.write): columns that may go go, in their
	// order, until it has it.
	want  int
	grow  int  // the most cells a fixed column grows by when its cells need them
	right bool // right-aligned (numbers)
	text  bool // sorts by its text, else by a number
	asc   bool // sorts ascending by default (names, ids); figures sort descending
	drop  int  // when the table is narrow, columns with the highest drop go first; 0 never goes
	off   bool // never shown: the data has nothing for it (no census, no sizes)
	// shorten fits a cell's text in the column's width, keeping what
	// tells rows apart (see shorten.go), and returns a text that fits as
	// it is; nil cuts it at the right.
	shorten func(s string, w int) string
	// name is the column's name in help and titles, when its title is an abbreviation.
	name string
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
	Num(i, col int) int64          // the sort key of a number column
	Text(i, col int) string        // the sort key of a text column
	Name(i int) string             // what the filter matches
	Kind(i int) rowKind            // how to style the row
	CellStyle(i, col int) cellHint // a per-cell style hint
}

type cellHint uint8

const (
	hintNone cellHint = iota
	hintRunning
	hintNative
	hintBlocked
	hintParked
	hintWaiting
	hintSleeping
)

// table is the state of a scrolling, sorting, filtering table.
type table struct {
	cols    []column
	sortCol int
	flipped bool // the user reversed the default direction
	// sortChosen: the user chose the sort; until then a default that
	// depends on the data (sortByDefault) may change it.
	sortChosen bool
	filter     *regexp.Regexp
	invert     bool            // the filter selects the rows that do not match
	matches    map[string]bool // filter results by name
	shown      []bool          // the columns the last render showed
	// needs are the widest cells on screen lately (measure), met last
	// at needMet, for the columns needsOf and the width needsWidth.
	needs      []int
	needMet    []time.Time
	needsOf    *column
	needsWidth int

	selID  int64
	hasSel bool
	// chosen: the user moved the selection, so it follows its row as the
	// rows re-sort; until then it stays on the first row, and the table
	// shows its top as htop does at start.
	chosen bool
	offset int
	// A page (table_page.go): want is a rank to select, plus one (0:
	// none), when a move went off the page; stale says the page shown
	// answers another state than the table's.
	want  int
	stale bool

	// The matching rows of the last layout with their sort keys, so that
	// ordering compares plain values instead of calling into the data.
	cand  []int
	ids   []int64
	nkeys []int64
	tkeys []string

	heap     []int
	desc     bool // the order of the last gather
	textSort bool

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

// cycleSort sorts by the next (step 1) or previous (-1) column shown, and
// goes back to the top, as htop does.
func (t *table) cycleSort(step int) {
	col := t.sortCol
	for range t.cols {
		col = (col + step + len(t.cols)) % len(t.cols)
		if t.shown == nil || col < len(t.shown) && t.shown[col] {
			break
		}
	}
	t.sortCol, t.flipped, t.sortChosen = col, false, true
	t.toTop()
}

func (t *table) reverse() {
	t.flipped, t.sortChosen = !t.flipped, true
	t.toTop()
}

// sortByDefault sorts by col, the default for the data at hand, unless
// the user has chosen a sort.
func (t *table) sortByDefault(col int) {
	if !t.sortChosen {
		t.sortCol = col
	}
}

// toTop selects the first row, scrolled to the top.
func (t *table) toTop() { t.hasSel, t.chosen, t.offset, t.want = false, false, 0, 0 }

// sortName names the sort column and its direction, for the title.
func (t *table) sortName() string {
	c := t.cols[t.sortCol]
	name := c.name
	if name == "" {
		// As the header says it, but for case: CPU stays an acronym.
		name = strings.ReplaceAll(strings.ToLower(c.title), "cpu", "CPU")
	}
	if t.descending() {
		return name + " ▼"
	}
	return name + " ▲"
}

// setFilter applies a regular expression to what rows are named by ("" clears
// it); a leading ! keeps the rows that do not match, as in k9s. A filter
// in lower case only ignores case.
func (t *table) setFilter(expr string) error {
	invert := strings.HasPrefix(expr, "!")
	expr = strings.TrimPrefix(expr, "!")
	if expr == "" {
		t.filter, t.matches, t.invert = nil, nil, false
		return nil
	}
	re, err := compileFilter(expr)
	if err != nil {
		return err
	}
	t.filter, t.matches, t.invert = re, map[string]bool{}, invert
	t.toTop()
	return nil
}

// compileFilter compiles a filter's expression, ignoring case when it is
// all lower case. Its error quotes the expression as the user typed it:
// the flag added for case showed in it ("(?i)blocked|parked(").
func compileFilter(expr string) (*regexp.Regexp, error) {
	const ignoreCase = "(?i)"
	if strings.ToLower(expr) != expr {
		return compiled(regexp.Compile(expr))
	}
	re, err := regexp.Compile(ignoreCase + expr)
	var se *syntax.Error
	if errors.As(err, &se) {
		se.Expr = strings.TrimPrefix(se.Expr, ignoreCase)
	}
	return compiled(re, err)
}

// compiled says what is wrong with an expression without the regexp
// package's "error parsing regexp: " (the notice says "bad regular
// expression"), its text made inert: it is the user's, typed.
func compiled(re *regexp.Regexp, err error) (*regexp.Regexp, error) {
	var se *syntax.Error
	if errors.As(err, &se) {
		return nil, fmt.Errorf("%s: `%s`", se.Code, inert(se.Expr))
	}
	return re, err
}

func (t *table) match(d rows, i int) bool {
	if t.filter == nil {
		return true
	}
	name := d.Name(i)
	m, ok := t.matches[name]
	if !ok {
		// A row's name may be several fields (a thread's: its name, state,
		// lock's class, method), each matched alone, so that ^ and $ are
		// of a field; a method as the pane shows it too: "wait(J)V" reads
		// "wait(long)", and /long finds it.
		for field := range strings.SplitSeq(name, "\x00") {
			if t.filter.MatchString(field) || t.filter.MatchString(javaname.Method(field)) {
				m = true
				break
			}
		}
		if len(t.matches) > 1<<18 {
			clear(t.matches)
		}
		t.matches[name] = m
	}
	return m != t.invert
}

// bulkKeys is implemented by data that can hand over the sort keys of
// all its rows in one call, which is much faster than a call per row.
type bulkKeys interface {
	NumKeys(col int, ids, keys []int64) ([]int64, []int64)
}

// gather collects the matching rows and their keys.
func (t *table) gather(d rows) {
	t.cand, t.ids, t.nkeys, t.tkeys = t.cand[:0], t.ids[:0], t.nkeys[:0], t.tkeys[:0]
	t.desc, t.textSort = t.descending(), t.cols[t.sortCol].text
	n := d.Len()
	if bk, ok := d.(bulkKeys); ok && t.filter == nil && !t.textSort {
		t.ids, t.nkeys = bk.NumKeys(t.sortCol, t.ids, t.nkeys)
		for i := range n {
			t.cand = append(t.cand, i)
		}
		t.matched = n
		return
	}
	for i := range n {
		if !t.match(d, i) {
			continue
		}
		t.cand = append(t.cand, i)
		t.ids = append(t.ids, d.ID(i))
		if t.textSort {
			t.tkeys = append(t.tkeys, d.Text(i, t.sortCol))
		} else {
			t.nkeys = append(t.nkeys, d.Num(i, t.sortCol))
		}
	}
	t.matched = len(t.cand)
}

// before orders two gathered rows (positions in cand): the sort column,
// then identity.
func (t *table) before(a, b int) bool {
	if t.textSort {
		if ka, kb := t.tkeys[a], t.tkeys[b]; ka != kb {
			return (ka < kb) != t.desc
		}
	} else if ka, kb := t.nkeys[a], t.nkeys[b]; ka != kb {
		return (ka < kb) != t.desc
	}
	return t.ids[a] < t.ids[b]
}

// layout works out which rows are on screen for height rows. Only the
// rows up to the bottom of the screen are ordered (a bounded heap), so a
// table of 100,000 rows costs a couple of passes over flat arrays, not a sort.
func (t *table) layout(d rows, height int) {
	if pd, p := pageOf(d); p != nil {
		t.layoutPage(pd, p, height)
		return
	}
	height = max(height, 1)
	t.gather(d)
	if t.matched == 0 {
		t.order, t.pos, t.offset, t.hasSel = t.order[:0], 0, 0, false
		return
	}
	sel := -1
	if t.hasSel && t.chosen {
		for c, id := range t.ids {
			if id == t.selID {
				sel = c
				break
			}
		}
	}
	if sel < 0 {
		// The selected row is gone, or none was chosen: select the first.
		sel = t.topPositions(1)[0]
		t.selID, t.hasSel, t.chosen, t.pos = t.ids[sel], true, false, 0
	} else {
		t.pos = 0
		for c := range t.cand {
			if c != sel && t.before(c, sel) {
				t.pos++
			}
		}
	}
	t.offset = min(max(t.offset, t.pos-height+1), t.pos)
	t.offset = max(min(t.offset, t.matched-height), 0)
	top := t.topPositions(min(t.offset+height, t.matched))
	t.order = t.order[:0]
	for _, c := range top[t.offset:] {
		t.order = append(t.order, t.cand[c])
	}
}

// topPositions returns the positions (in cand) of the first k gathered
// rows, in order: a bounded max-heap of the k best seen so far. The same
// as topk.Heap, written out: every frame runs it over every row, and
// topk's comparisons through a function value made a frame 4–7% slower.
func (t *table) topPositions(k int) []int {
	h := t.heap[:0]
	for c := range t.cand {
		switch {
		case len(h) < k:
			h = append(h, c)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !t.before(h[p], h[i]) {
					break
				}
				h[p], h[i] = h[i], h[p]
				i = p
			}
		case t.before(c, h[0]):
			h[0] = c
			for i := 0; ; {
				l, r, worst := 2*i+1, 2*i+2, i
				if l < len(h) && t.before(h[worst], h[l]) {
					worst = l
				}
				if r < len(h) && t.before(h[worst], h[r]) {
					worst = r
				}
				if worst == i {
					break
				}
				h[i], h[worst] = h[worst], h[i]
				i = worst
			}
		}
	}
	t.heap = h
	out := append([]int(nil), h...)
	slices.SortFunc(out, func(a, b int) int {
		if t.before(a, b) {
			return -1
		}
		return 1
	})
	return out
}

// top returns the first k matching rows of d in order.
func (t *table) top(d rows, k int) []int {
	t.gather(d)
	out := t.topPositions(min(k, t.matched))
	for i, c := range out {
		out[i] = t.cand[c]
	}
	return out
}

// move shifts the selection by delta rows (clamped), as arrows and pages
// do; layout must have run on the same data.
func (t *table) move(d rows, delta int) {
	if t.matched == 0 {
		return
	}
	if pd, p := pageOf(d); p != nil {
		t.movePage(pd, p, delta)
		return
	}
	pos := min(max(t.pos+delta, 0), t.matched-1)
	if pos == t.pos {
		return
	}
	order := t.topPositions(pos + 1)
	t.selID, t.hasSel, t.chosen, t.pos = t.ids[order[pos]], true, true, pos
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

// blankColumns is what rows whose data may leave a column empty in every
// row implement (no method has a line): such a column, if it may go, goes.
type blankColumns interface {
	Blank(col int) bool
}

// widths fits the columns into width cells, dropping columns when narrow,
// and more while the flexible column has less than it wants. The rows on
// screen (t.order: lay out first) say what the names need.
func (t *table) widths(width int, d rows) []int {
	gone := make([]bool, len(t.cols))
	if b, ok := d.(blankColumns); ok {
		for i, c := range t.cols {
			gone[i] = c.drop > 0 && b.Blank(i)
		}
	}
	t.measure(width, d)
	w := t.fit(width, gone, d)
	flex := slices.IndexFunc(t.cols, func(c column) bool { return c.width == 0 })
	if flex < 0 || w[flex] < 0 || t.cols[flex].want == 0 {
		return w
	}
	for i := range w {
		gone[i] = w[i] < 0
	}
	for w[flex] < t.cols[flex].want {
		worst := t.worst(gone, flex)
		if worst < 0 {
			break
		}
		gone[worst] = true
		w = t.fit(width, gone, d)
	}
	return w
}

// worst is the column to drop next (the highest drop), but never skip
// nor the column sorted by (the title names it: "by %CPU ▼" over no such
// column), or -1.
func (t *table) worst(gone []bool, skip int) int {
	worst := -1
	for i, c := range t.cols {
		if !gone[i] && i != skip && i != t.sortCol && c.drop > 0 && (worst < 0 || c.drop > t.cols[worst].drop) {
			worst = i
		}
	}
	return worst
}

// elastic says whether a column's width follows its cells: the flexible
// one, and those that grow on a wide terminal.
func (c *column) elastic() bool { return c.width == 0 || c.grow > 0 }

// needHold is how long a column keeps the width its cells needed once
// they need less: a column that narrowed and widened as rows came and
// went would shift every column after it at each refresh.
const needHold = 10 * time.Second

// measure notes the widest cell of each elastic column among the rows on
// screen (t.order).
func (t *table) measure(width int, d rows) {
	if len(t.needs) != len(t.cols) || t.needsWidth != width || len(t.cols) > 0 && t.needsOf != &t.cols[0] {
		t.needs, t.needMet = make([]int, len(t.cols)), make([]time.Time, len(t.cols))
		t.needsWidth = width
		if len(t.cols) > 0 {
			t.needsOf = &t.cols[0]
		}
	}
	now := time.Now()
	for i := range t.cols {
		c := &t.cols[i]
		if !c.elastic() || c.width == 0 && !c.text {
			continue // a flexible column not of text (a sparkline, as long as its history) takes what is left
		}
		need := 0
		for _, r := range t.order {
			need = max(need, widthOf(d.Cell(r, i)))
		}
		if need >= t.needs[i] || now.Sub(t.needMet[i]) > needHold {
			t.needs[i], t.needMet[i] = need, now
		}
	}
}

// titleWidth is the cells of column i's title, with the sort's arrow.
func (t *table) titleWidth(i int) int {
	w := widthOf(t.cols[i].title)
	if i == t.sortCol {
		w++
	}
	return w
}

// fit lays the columns not gone out in width cells, dropping more when
// they do not fit; a gone column's width is -1.
func (t *table) fit(width int, gone []bool, d rows) []int {
	w := make([]int, len(t.cols))
	for i, c := range t.cols {
		if gone[i] || c.off {
			w[i] = -1
		}
	}
	for {
		used := 0
		for i, c := range t.cols {
			if w[i] < 0 {
				continue
			}
			if c.width == 0 {
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
			t.share(w, width-(used-1), d)
			return w
		}
		gone := make([]bool, len(t.cols))
		for i := range w {
			gone[i] = w[i] < 0
		}
		worst := t.worst(gone, -1)
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

// share hands the elastic columns shown in w (the flexible one at 0) the
// room of their usual widths plus left: what their cells need, the
// narrowest served first, so that the widest are the ones cut; a fixed
// column keeps its usual width unless its cells need less, the flexible
// one has its want first (widths drops columns for it). A flexible column
// still cut then takes cells from fixed ones wider than it, down to their
// titles. Room to spare gives the fixed columns their usual widths back,
// and the rest widens the flexible column.
func (t *table) share(w []int, left int, d rows) {
	var cols []int
	floor, target := make([]int, len(t.cols)), make([]int, len(t.cols))
	flex, room := -1, left
	for i := range t.cols {
		c := &t.cols[i]
		if w[i] < 0 || !c.elastic() {
			continue
		}
		cols = append(cols, i)
		need := t.needs[i]
		if need > 0 {
			need = max(need, t.titleWidth(i))
		}
		if c.width == 0 {
			flex, room = i, room+c.min
			target[i] = max(c.min, need)
			floor[i] = min(max(c.min, c.want), target[i])
			continue
		}
		room += c.width
		if need == 0 { // no row on screen says
			floor[i], target[i] = c.width, c.width
			continue
		}
		floor[i], target[i] = min(c.width, need), min(need, c.width+c.grow)
	}
	level := func(l int) int {
		n := 0
		for _, i := range cols {
			n += min(max(l, floor[i]), target[i])
		}
		return n
	}
	if flex >= 0 && level(0) > room {
		floor[flex] = t.cols[flex].min // its want does not fit beside the others' needs
	}
	l, top := 0, 0
	for _, i := range cols {
		top = max(top, target[i])
	}
	for l < top && level(l+1) <= room {
		l++
	}
	room -= level(l)
	for _, i := range cols {
		w[i] = min(max(l, floor[i]), target[i])
	}
	// What the level left, a cell each, first to those it makes whole.
	byShortfall := slices.Clone(cols)
	slices.SortStableFunc(byShortfall, func(a, b int) int { return (target[a] - w[a]) - (target[b] - w[b]) })
	for _, i := range byShortfall {
		if room > 0 && w[i] < target[i] {
			w[i]++
			room--
		}
	}
	if flex >= 0 && w[flex] < target[flex] {
		t.even(w, cols, flex, target[flex], d)
	}
	for _, i := range cols {
		if c := &t.cols[i]; c.width > w[i] && room > 0 {
			g := min(room, c.width-w[i])
			w[i] += g
			room -= g
		}
	}
	if flex >= 0 {
		w[flex] += room
	}
}

// even widens the flexible column flex, cut, with cells of the fixed
// columns in cols wider than it, down to their titles, until it is about
// as wide as they or has target. What its names, shortened, then leave
// unused goes back: a name shortens by steps ("jfr:a.TaskState#state"
// fits 21 to 27 cells alike).
func (t *table) even(w, cols []int, flex, target int, d rows) {
	before := slices.Clone(w)
	for w[flex] < target {
		widest := -1
		for _, i := range cols {
			if i != flex && w[i] > w[flex]+1 && w[i] > t.titleWidth(i) && (widest < 0 || w[i] > w[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		w[widest]--
		w[flex]++
	}
	unused := w[flex] - max(before[flex], t.widestShortened(d, flex, w[flex]))
	for ; unused > 0; unused-- {
		most := -1
		for _, i := range cols {
			if before[i]-w[i] > 0 && (most < 0 || before[i]-w[i] > before[most]-w[most]) {
				most = i
			}
		}
		if most < 0 {
			break
		}
		w[most]++
		w[flex]--
	}
}

// widestShortened is the widest of column col's cells on screen once
// shortened to w cells.
func (t *table) widestShortened(d rows, col, w int) int {
	n := 0
	for _, r := range t.order {
		s := d.Cell(r, col)
		if sh := t.cols[col].shorten; sh != nil {
			s = sh(s, w)
		}
		n = max(n, min(widthOf(s), w))
	}
	return n
}

// render draws the header and the visible rows into exactly height lines
// of width cells.
func (t *table) render(d rows, width, height int, st *Styles, focused bool) []string {
	lines := make([]string, 0, height)
	t.layout(d, height-1) // the rows on screen say what the columns need
	ws := t.widths(width, d)
	t.shown = t.shown[:0]
	for _, w := range ws {
		t.shown = append(t.shown, w >= 0)
	}
	var hb strings.Builder
	for i, c := range t.cols {
		if ws[i] < 0 {
			continue
		}
		title := c.title
		style := &st.ColHeader
		if i == t.sortCol {
			style = &st.ColSorted
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
			text := d.Cell(r, i)
			if c.shorten != nil {
				// Called whether or not the text fits: a method's
				// parameters read the same way in every row.
				text = c.shorten(text, ws[i])
			}
			cell := fit(text, ws[i], c.right)
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

func hintStyle(st *Styles, h cellHint) *Style {
	switch h {
	case hintRunning:
		return &st.Running
	case hintNative:
		return &st.Native
	case hintBlocked:
		return &st.Blocked
	case hintParked:
		return &st.Parked
	case hintWaiting:
		return &st.Waiting
	case hintSleeping:
		return &st.Sleeping
	}
	return &noStyle
}

// noStyle leaves text as it is.
var noStyle Style

// plain reports whether s is printable ASCII only: one cell per byte, no
// escape sequences, so widths need no grapheme segmentation.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// fit truncates or pads text to exactly w cells.
func fit(s string, w int, right bool) string {
	if w <= 0 {
		return ""
	}
	sw := widthOf(s)
	if sw > w {
		if plain(s) {
			return s[:w-1] + "…"
		}
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
	if sw := widthOf(s); sw < w {
		return s + strings.Repeat(" ", w-sw)
	}
	return s
}

// clip cuts a styled line to w cells.
func clip(s string, w int) string {
	if widthOf(s) > w {
		if plain(s) {
			return s[:w]
		}
		return ansi.Truncate(s, w, "")
	}
	return s
}

// widthOf is the number of cells s takes on screen.
func widthOf(s string) int {
	if w, ok := styledASCIIWidth(s); ok {
		return w
	}
	return ansi.StringWidth(s)
}

// styledASCIIWidth is the width of printable ASCII styled only by SGR
// sequences (ESC [ params m), what nearly every cell on screen is: a byte
// a cell, the sequences none. ok is false for anything else (other
// escapes, controls, UTF-8), which needs the grapheme-aware count, at ten
// times the cost.
func styledASCIIWidth(s string) (w int, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x20 && c <= 0x7e:
			w++
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':') {
				j++
			}
			if j == len(s) || s[j] != 'm' {
				return 0, false
			}
			i = j
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !oneCell(r) {
				return 0, false
			}
			w++
			i += size - 1
		default:
			return 0, false
		}
	}
	return w, true
}

// oneCell says r is one of the runes the panes draw with (borders, blocks,
// braille, arrows, Latin letters, dashes and ellipses), each one cell wide
// whatever the terminal: the fast count's only runes beyond ASCII.
// TestOneCellRunesAreOneCell checks every one against the full count.
func oneCell(r rune) bool {
	switch {
	case r >= 0xa1 && r <= 0x2ff && r != 0xad: // Latin-1 and Latin letters, not the soft hyphen
		return true
	case r >= 0x2010 && r <= 0x2027, // dashes, quotes, bullet, ellipsis
		r >= 0x2190 && r <= 0x21ff, // arrows
		r >= 0x2500 && r <= 0x25fc, // box drawing, blocks, shapes (not the two wide squares after)
		r >= 0x2800 && r <= 0x28ff: // braille
		return true
	}
	return false
}
