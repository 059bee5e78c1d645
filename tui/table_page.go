package tui

import "github.com/proftop/proftop/state"

// A large table of methods comes as a page (state.MethodPage): the
// snapshot holds the rows on screen, ordered and laid out by the
// aggregator, which keeps its order as the methods change. The table asks
// with its state (sort, filter, selection, scrolling, height) and takes
// the page's layout when the page answers that state; a key that changes
// the state (a move off the page, a sort, a filter) makes the model ask
// again at once (Model.settlePage), so that the screen is never drawn
// from the rows of another question.

// pagedRows is data that may hold a page rather than every row.
type pagedRows interface {
	rows
	// page is the snapshot's page; nil when it holds every row.
	page() *state.MethodPageAnswer
	// question is what a table in state t asks, rows on screen.
	question(t *table, rows int) state.MethodPage
}

// pageOf is d's page, nil when d holds every row.
func pageOf(d rows) (pagedRows, *state.MethodPageAnswer) {
	if pd, ok := d.(pagedRows); ok {
		if p := pd.page(); p != nil {
			return pd, p
		}
	}
	return nil, nil
}

// rowCount is how many rows d's view has, not only those it holds.
func rowCount(d rows) int {
	if _, p := pageOf(d); p != nil {
		return p.Listed
	}
	return d.Len()
}

func (r methodRows) page() *state.MethodPageAnswer { return r.paged }

// key is what the aggregator orders the rows by for column col.
func (r methodRows) key(col int) state.MethodKey {
	switch col {
	case 0:
		return state.ByName
	case 1:
		return state.ByLine
	case 2:
		if r.hits {
			return state.BySamples
		}
		return state.ByCalls
	case 3, 4:
		if r.bySamples {
			return state.BySamples
		}
		return state.BySelf
	case 5:
		if r.bySamples {
			return state.ByTotalSamples
		}
		return state.ByTotal
	case 6:
		return state.ByMin
	case 7:
		return state.ByMax
	}
	return state.ByCPU
}

func (r methodRows) question(t *table, rows int) state.MethodPage {
	q := state.MethodPage{Key: r.key(t.sortCol), Descending: t.descending(), Filter: t.filter, Invert: t.invert,
		Sampler: r.hits, Selected: -1, Rank: -1, Offset: t.offset, Rows: max(rows, 1)}
	switch {
	case t.want > 0:
		q.Rank = t.want - 1
	case t.hasSel && t.chosen:
		q.Chosen, q.Selected = true, int32(t.selID)
	}
	return q
}

// answered says page p answers the table's state, as asked or as the
// answer leaves it (a move to a rank chosen, then its row): its layout is
// the table's.
func (t *table) answered(d pagedRows, p *state.MethodPageAnswer, rows int) bool {
	q := d.question(t, rows)
	if q == p.Asked {
		return true
	}
	a := p.Asked
	a.Chosen, a.Selected, a.Rank, a.Offset = p.Chosen, p.Selected, -1, p.Offset
	if !p.Chosen {
		a.Selected = -1
	}
	return q == a
}

// layoutPage takes the page's layout when it answers the table's state;
// else the table keeps its state and says it is stale.
func (t *table) layoutPage(d pagedRows, p *state.MethodPageAnswer, height int) {
	height = max(height, 1)
	t.desc, t.textSort = t.descending(), t.cols[t.sortCol].text
	t.stale = !t.answered(d, p, height)
	if !t.stale {
		t.matched, t.pos, t.offset = p.Matched, p.Pos, p.Offset
		t.selID, t.hasSel, t.chosen, t.want = int64(p.Selected), p.Matched > 0, p.Chosen, 0
	}
	t.order = t.order[:0]
	for i := range min(d.Len(), height) {
		t.order = append(t.order, i)
	}
}

// movePage moves the selection over a page: to a row on it, or to a
// rank the next page brings.
func (t *table) movePage(d pagedRows, p *state.MethodPageAnswer, delta int) {
	pos := min(max(t.pos+delta, 0), t.matched-1)
	if pos == t.pos {
		return
	}
	if i := pos - p.Offset; !t.stale && i >= 0 && i < d.Len() {
		t.selID, t.hasSel, t.want = d.ID(i), true, 0
	} else {
		t.want = pos + 1
	}
	t.chosen, t.pos = true, pos
}
