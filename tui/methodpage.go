package tui

import "github.com/proftop/proftop/state"

// The methods pane's page (table_page.go): what the model asks the
// aggregator for, and asking again when the table's state moved off it.

// methodQuestion is the page the methods table asks for now.
func (m *Model) methodQuestion() *state.MethodPage {
	s := m.latest
	if s == nil {
		s = m.snap
	}
	d := methodRows{}
	if s != nil {
		d = newMethodRows(s)
		d.hits = m.sampler && s.Views
	}
	q := d.question(m.tables[paneMethods], m.methodsRows())
	return &q
}

// methodsRows is how many rows the methods table shows: its pane's height
// less its frame and header.
func (m *Model) methodsRows() int {
	l := m.layout()
	h := l.bodyH
	if l.grid {
		h, _, _ = m.gridRows(l.bodyH)
	}
	return max(h-3, 1)
}

// methodsShown says the methods pane is on screen.
func (m *Model) methodsShown() bool {
	if m.help != nil || m.detail != nil || m.ctree != nil || m.width <= 0 || m.height <= 0 {
		return false
	}
	return m.focus == paneMethods || m.layout().grid
}

// settlePage asks the aggregator again, at once, when the page shown
// answers another state than the methods table's now (a key moved the
// selection off it, sorted, filtered, switched the view; the pane was
// resized), so that no frame is drawn from the rows of another question.
// A page costs what it shows: this is cheap enough for the UI goroutine.
func (m *Model) settlePage() {
	s := m.snap
	if s == nil || s.Page == nil || m.paused || s != m.latest || !m.methodsShown() {
		return
	}
	d := m.methodRows(s)
	if m.tables[paneMethods].answered(d, s.Page, m.methodsRows()) {
		return
	}
	m.fetched++
	m.applied = m.fetched // a snapshot asked for before is of the old question
	next := m.agg.Snapshot(s.Taken, m.query())
	m.snap, m.latest = next, next
	m.release(s)
}

// fullSnapshot is the picture of a moment with every method and every
// thread's stack, for a view frozen: it sorts, scrolls and drills in
// without the aggregator (a thread's drill-in read "no stack reported",
// the snapshot frozen having only the stack of the drill-in open then).
func (m *Model) fullSnapshot(s *state.Snapshot) *state.Snapshot {
	if s == nil {
		return s
	}
	q := m.query()
	q.Methods, q.AllStacks = nil, true
	return m.agg.Snapshot(s.Taken, q)
}
