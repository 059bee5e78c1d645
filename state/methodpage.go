package state

import "regexp"

// A page of the hot methods: the interface asks for the rows it shows, in
// its order, rather than for every method, so that a snapshot of a window
// holding 100,000 methods costs what is on screen and what changed since
// the previous snapshot, not what the window holds. The aggregator keeps
// the first rows of the order asked for as the methods change
// (methodorder.go); the snapshot holds those on screen, and the figures a
// pane needs of all the rows (how many, whether any has a line).

// MethodKey is what a page of methods is ordered by: a column of the pane.
type MethodKey uint8

const (
	ByName         MethodKey = iota // the display name
	ByLine                          // the first line
	ByCalls                         // measured calls
	BySamples                       // stack samples with the method on top (its hits)
	BySelf                          // self time
	ByTotal                         // total time (-1 when unknown)
	ByTotalSamples                  // stack samples with the method anywhere
	ByMin                           // the shortest call (0 when none was timed)
	ByMax                           // the longest call
	ByCPU                           // CPU time of the calls
)

// Of is a row's key; ByName orders by the name (Snapshot.MethodName), not
// by a number: 0.
func (k MethodKey) Of(m *Method) int64 {
	switch k {
	case ByLine:
		return int64(m.Line)
	case ByCalls:
		return m.Calls
	case BySamples:
		return m.Samples
	case BySelf:
		return int64(m.Self)
	case ByTotal:
		return int64(m.Total)
	case ByTotalSamples:
		return m.TotalSamples
	case ByMin:
		return int64(m.Min)
	case ByMax:
		return int64(m.Max)
	case ByCPU:
		return int64(m.CPU)
	}
	return 0
}

// MethodPage asks for the methods on screen. Rows are ordered by Key
// (Descending: high to low), equal keys by slot; the selection and the
// scrolling follow the rules of the interface's tables: the selected row
// is kept on screen, and the screen is kept full.
type MethodPage struct {
	Key        MethodKey
	Descending bool
	// Filter keeps the methods whose name matches it (Invert: those whose
	// name does not); nil keeps them all. It is used on the aggregator's
	// goroutines: a regexp.Regexp may be.
	Filter *regexp.Regexp
	Invert bool
	// Sampler asks for the rows of the sampler's view of a source with two
	// (Snapshot.Views), else those of its measured calls.
	Sampler bool
	// The selection: the method in slot Selected when Chosen, while it is
	// listed; else the row at rank Rank when Rank >= 0 (a move to a row the
	// interface did not have); else the first row, not chosen.
	Chosen   bool
	Selected int32
	Rank     int
	// Offset is the rank of the first row on screen, Rows how many fit.
	Offset, Rows int
}

// MethodPageAnswer is what a snapshot's page holds: Snapshot.Methods are
// the rows on screen, ranks Offset to Offset+len(Methods)-1 of the order
// asked for.
type MethodPageAnswer struct {
	Asked MethodPage
	// Matched counts the rows that pass the filter; Listed all the rows of
	// the view.
	Matched, Listed int
	// Offset is the rank of the first row on screen; Pos the selection's
	// rank, Selected its slot (-1: no row), Chosen whether it is the row
	// chosen (else the first row, selected by default).
	Offset, Pos int
	Selected    int32
	Chosen      bool
	// Lines says some row of the view has a line; Samples counts the
	// samples on top of the view's rows (a share of them is what rbkit's
	// samples tell).
	Lines   bool
	Samples int64
}

// pageAbove is the size of method table from which the interface gets
// pages: a smaller table is copied whole, which costs less than keeping
// an order. A variable for the tests.
var pageAbove = 1000

// SetPageAboveForTest makes pages from n methods on; it returns the
// previous bound.
func SetPageAboveForTest(n int) int {
	old := pageAbove
	pageAbove = n
	return old
}

// MethodCount is how many method rows the snapshot's view has: every row
// of a page's view, not only those on screen.
func (s *Snapshot) MethodCount() int {
	if s.Page != nil {
		return s.Page.Listed
	}
	return len(s.Methods)
}

// page answers a page: the rows on screen, and what the pane needs of
// all the rows.
func (mt *methodTable) page(recent bool, q *MethodPage) ([]Method, *MethodPageAnswer) {
	spec := orderSpec{recent: recent, twoViews: mt.twoViews(), sampler: q.Sampler && mt.twoViews(), key: q.Key,
		desc: q.Descending, filter: q.Filter, invert: q.Invert}
	o := mt.order
	if o == nil {
		o = &methodOrder{}
		mt.order = o
	}
	if o.spec != spec || !o.valid || mt.changedAll {
		o.reorder(mt, spec)
	} else {
		o.apply(mt, mt.changed)
	}
	mt.changed, mt.changedAll = mt.changed[:0], false
	// Later changes are noted from the next generation on (touch).
	mt.gen++
	mt.shared = true

	ans := &MethodPageAnswer{Asked: *q, Matched: o.matched, Listed: o.listed, Lines: o.lines > 0, Selected: -1, Pos: 0}
	if recent {
		ans.Samples = mt.window.self.samples
	} else {
		ans.Samples = mt.samples
	}
	if o.matched == 0 {
		return []Method{}, ans
	}
	pos := -1
	if q.Chosen && q.Selected >= 0 && int(q.Selected) < len(o.flags) && o.flags[q.Selected]&orderMember != 0 {
		pos, ans.Chosen, ans.Selected = o.rank(q.Selected), true, q.Selected
	}
	if pos < 0 && q.Rank >= 0 {
		pos, ans.Chosen = min(q.Rank, o.matched-1), true
	}
	pos = max(pos, 0)
	rows := max(q.Rows, 1)
	offset := min(max(q.Offset, pos-rows+1), pos)
	offset = max(min(offset, o.matched-rows), 0)
	end := min(offset+rows, o.matched)
	o.cover(max(end, pos+1))
	if ans.Selected < 0 {
		ans.Selected = o.head[pos]
	}
	ans.Pos, ans.Offset = pos, offset
	out := make([]Method, 0, end-offset)
	for _, slot := range o.head[offset:end] {
		out = append(out, mt.viewRow(slot, recent))
	}
	return out, ans
}

// viewRow is a method's row in a view: over the window or cumulative.
func (mt *methodTable) viewRow(slot int32, recent bool) Method {
	if recent {
		w := mt.windowOf(slot)
		return mt.methodRow(int(slot), &w)
	}
	cum := mt.cumOf(slot)
	return mt.methodRow(int(slot), &cum)
}
