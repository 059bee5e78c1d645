package tui

import (
	"fmt"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// The Objects pane's second view: the latest census of the live objects
// (rbkit's object-space snapshot, a ProfilerJ snapshot's memory) as one
// table, by class and allocation site, with the count and the bytes. `v`
// switches between it and the classes.

var censusCols = []column{
	{title: "CLASS", width: 24, grow: 16, text: true, asc: true, shorten: shortClass},
	{title: "ALLOCATED AT", min: 20, text: true, asc: true, shorten: tail, name: "site"},
	{title: "COUNT", width: 8, right: true, name: "count"},
	{title: "SHARE", width: 6, right: true, drop: 2, name: "share of the census"},
	{title: "BYTES", width: 9, right: true, drop: 1, name: "bytes"},
}

// The census's columns' indices that the data may leave out.
const (
	censusColSite  = 1
	censusColBytes = 4
)

// censusColumnSets are censusCols without the sites when the census has
// none (objects allocated before rbkit traced them; the class then takes
// the width the sites had) and without the bytes when it has no sizes:
// bit 1 sites, bit 2 bytes.
var censusColumnSets = func() (sets [4][]column) {
	for i := range sets {
		sets[i] = append([]column(nil), censusCols...)
		sets[i][censusColSite].off = i&1 == 0
		sets[i][censusColBytes].off = i&2 == 0
		if i&1 == 0 {
			sets[i][0].width, sets[i][0].grow, sets[i][0].min = 0, 0, 20
		}
	}
	return sets
}()

// censusColumns are the columns for a census.
func censusColumns(o *state.Objects) []column {
	have := 0
	for i := range o.Census {
		if o.Census[i].Site != "" {
			have |= 1
		}
		if o.Census[i].Bytes > 0 {
			have |= 2
		}
	}
	return censusColumnSets[have]
}

type censusRows struct {
	s     []state.CensusRow
	total int64
}

func newCensusRows(o *state.Objects) censusRows {
	r := censusRows{s: o.Census, total: o.CensusTotal}
	if r.total <= 0 {
		for i := range r.s {
			r.total += r.s[i].Count
		}
	}
	return r
}

// censusRowID is a census line's row id: its class and site.
func censusRowID(c *state.CensusRow) int64 { return int64(hashName(c.Class + "\x00" + c.Site)) }

func (r censusRows) Len() int                      { return len(r.s) }
func (r censusRows) ID(i int) int64                { return censusRowID(&r.s[i]) }
func (r censusRows) Name(i int) string             { return r.s[i].Class + " " + r.s[i].Site }
func (r censusRows) Kind(i int) rowKind            { return rowNormal }
func (r censusRows) CellStyle(i, col int) cellHint { return hintNone }

func (r censusRows) Text(i, col int) string {
	if col == 1 {
		return r.s[i].Site
	}
	return r.s[i].Class
}

func (r censusRows) Cell(i, col int) string {
	c := &r.s[i]
	switch col {
	case 0:
		return inert(c.Class)
	case 1:
		if c.Site == "" {
			return "–"
		}
		return inert(c.Site)
	case 2:
		return count(c.Count)
	case 3:
		if r.total <= 0 {
			return "–"
		}
		return pct(100 * float64(c.Count) / float64(r.total))
	case 4:
		if c.Bytes <= 0 {
			return "–" // the source gave no size
		}
		return size(c.Bytes)
	}
	return ""
}

func (r censusRows) Num(i, col int) int64 {
	c := &r.s[i]
	switch col {
	case 2, 3:
		return c.Count
	case 4:
		return c.Bytes
	}
	return 0
}

// censusTitle says when the census was taken and how many it counted.
func censusTitle(s *state.Snapshot) string {
	o := &s.Objects
	return fmt.Sprintf("Objects · census %s, %s objects", o.CensusAt.Local().Format("15:04:05"), count(o.CensusTotal))
}

// censusShown says the Objects pane shows the census: asked for, and
// there is one.
func (m *Model) censusShown() bool {
	return m.census && m.snap != nil && len(m.snap.Objects.Census) > 0
}

// objectRows are the Objects pane's rows in the view shown; the table's
// columns follow the view and what the data has.
func (m *Model) objectRows(s *state.Snapshot) rows {
	if m.census && len(s.Objects.Census) > 0 {
		m.tables[paneObjects] = m.censusTable
		m.censusTable.cols = censusColumns(&s.Objects)
		return newCensusRows(&s.Objects)
	}
	m.tables[paneObjects] = m.classTable
	m.classTable.cols = objectColumns(&s.Objects)
	m.classTable.sortByDefault(objectSortDefault(&s.Objects))
	return newObjectRows(&s.Objects, m.cfg.ASCII)
}

// noCensus says why there is no census, and how to get one: the key of
// the source's command that takes one (rbkit's object-space snapshot), or
// that this source takes none.
func (m *Model) noCensus() string {
	for _, c := range m.commands {
		if c.Key == client.RbkitKeySnapshot {
			return "no census taken yet: " + c.Key + " takes one (an " + c.Label + ")"
		}
	}
	return "no census: this source takes none (rbkit's object-space snapshot and a ProfilerJ snapshot's memory have one)"
}

// switchObjectsView shows the census by class and site, or the classes.
func (m *Model) switchObjectsView() {
	if m.snap == nil || len(m.snap.Objects.Census) == 0 {
		m.census = false
		m.notice = m.noCensus()
		return
	}
	m.census = !m.census
	m.notice = "objects: by class (live, per second)"
	if m.census {
		m.notice = "objects: the census, by class and allocation site"
	}
	// The filter typed applies to either view.
	m.objectRows(m.snap)
	m.tables[paneObjects].setFilter(m.filters[paneObjects])
}
