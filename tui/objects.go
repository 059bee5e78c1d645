package tui

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/proftop/proftop/state"
)

// The Objects pane: objects by class, live and allocated per second, with
// the trend of the live count; the drill-in shows a class's census lines.

var objectCols = []column{
	{title: "CLASS", min: 20, text: true, asc: true, shorten: shortClass},
	{title: "LIVE", width: 8, right: true, name: "live objects"},
	{title: "NEW/s", width: 7, right: true, name: "new per second"},
	{title: "FREED/s", width: 7, right: true, drop: 4},
	{title: "BYTES/s", width: 8, right: true, drop: 3},
	{title: "ALLOCATED", width: 9, right: true, drop: 5},
	{title: "CENSUS", width: 8, right: true, drop: 1},
	{title: "LIVE, LAST MINUTE", width: sparkCells, drop: 2},
}

// The objects' columns' indices.
const (
	objColLive      = 1
	objColNew       = 2
	objColFreed     = 3
	objColBytesRate = 4
	objColAllocated = 5
	objColCensus    = 6
	objColTrend     = 7
)

// What the objects have, which decides the columns shown.
const (
	objHaveCensus      = 1 << iota // a census beside the allocations
	objHaveBytes                   // sizes (rbkit reports none)
	objHaveAllocations             // allocations (a census alone has none)
	objHaveCounts                  // counts of objects (a source sampling by size, as JFR does, has bytes only)
)

// objectColumnSets are objectCols without the columns the data has nothing
// for, by what it has: a census's count (kept longest when there is one:
// it is the true count of the live objects), the bytes, the allocations,
// the counts (without which the live and allocated counts would be
// columns of dashes). The indices stay those of objectCols, which sorting
// goes by.
var objectColumnSets = func() (sets [16][]column) {
	for i := range sets {
		cols := append([]column(nil), objectCols...)
		cols[objColCensus].off = i&objHaveCensus == 0
		cols[objColBytesRate].off = i&objHaveBytes == 0
		cols[objColAllocated].off = i&objHaveAllocations == 0 || i&objHaveCounts == 0
		for _, c := range []int{objColLive, objColNew, objColFreed, objColTrend} {
			cols[c].off = i&objHaveCounts == 0
		}
		sets[i] = cols
	}
	return sets
}()

// objectColumns are the columns for the objects o.
func objectColumns(o *state.Objects) []column {
	have := objHaveAllocations
	switch {
	case censusOnly(o):
		have = 0 // LIVE is the census's count
	case len(o.Census) > 0:
		have |= objHaveCensus
	}
	for c := range o.Classes {
		if o.Classes[c].Bytes != 0 {
			have |= objHaveBytes
			break
		}
	}
	if objectsCounted(o) {
		have |= objHaveCounts
	}
	return objectColumnSets[have]
}

// objectsCounted says some class has a count of objects: a census, or
// allocations reported one by one. A source that samples allocations by
// size (the JVM agent: JFR) gives bytes only.
func objectsCounted(o *state.Objects) bool {
	return len(o.Census) > 0 || slices.ContainsFunc(o.Classes, func(c state.ObjectClass) bool { return !c.BySizeOnly() })
}

// objectSortDefault is the column the objects sort by until the user
// chooses: the live count, or the bytes allocated a second where no
// count is known.
func objectSortDefault(o *state.Objects) int {
	if objectsCounted(o) {
		return objColLive
	}
	return objColBytesRate
}

// sparkCells is the width of the live count's sparkline: the last minute,
// three seconds a cell.
const sparkCells = 20

type objectRows struct {
	s      []state.ObjectClass
	census map[string]int64 // census count by class
	frees  bool             // the source reports frees: else FREED/s is unknown
	ascii  bool
}

func newObjectRows(o *state.Objects, ascii bool) objectRows {
	r := objectRows{s: o.Classes, frees: o.FreesReported, ascii: ascii}
	if len(o.Census) > 0 {
		r.census = map[string]int64{}
		for _, c := range o.Census {
			r.census[c.Class] += c.Count
		}
	}
	return r
}

func (r objectRows) Len() int                      { return len(r.s) }
func (r objectRows) ID(i int) int64                { return int64(hashName(r.s[i].Class)) }
func (r objectRows) Name(i int) string             { return r.s[i].Class }
func (r objectRows) Text(i, col int) string        { return r.s[i].Class }
func (r objectRows) Kind(i int) rowKind            { return rowNormal }
func (r objectRows) CellStyle(i, col int) cellHint { return hintNone }

func (r objectRows) Cell(i, col int) string {
	c := &r.s[i]
	switch col {
	case 0:
		return inert(c.Class)
	case 1:
		if c.BySizeOnly() {
			return "–" // sampled by size: no count
		}
		return count(c.Live)
	case 2:
		if c.Counted || c.BySizeOnly() {
			return "–" // known from a census: nothing seen allocated
		}
		return rate(c.AllocRate)
	case 3:
		if c.Counted || !r.frees {
			return "–" // counted by a census, or the source reports no frees (the JVM agent)
		}
		return rate(c.FreeRate)
	case 4:
		if c.Bytes == 0 {
			return "–"
		}
		return size(int64(c.BytesRate))
	case 5:
		if c.Counted {
			return "–"
		}
		return count(c.Allocs)
	case 6:
		if n, ok := r.census[c.Class]; ok {
			return count(n)
		}
		return "–"
	case 7:
		return sparkline(perCell(c.History, sparkCells), sparkCells, 0, r.ascii)
	}
	return ""
}

func (r objectRows) Num(i, col int) int64 {
	c := &r.s[i]
	switch col {
	case 1:
		return c.Live
	case 2:
		return int64(c.AllocRate * 1000)
	case 3:
		return int64(c.FreeRate * 1000)
	case 4:
		return int64(c.BytesRate)
	case 5:
		return c.Allocs
	case 6:
		return r.census[c.Class]
	}
	return 0
}

// perCell fits a history into cells: each cell the highest of its run of
// values (a live count's peaks are what a minute's trend is about), so
// that the cells span the whole history, not only its last seconds.
func perCell(history []int64, cells int) []float64 {
	if len(history) == 0 || cells <= 0 {
		return nil
	}
	per := max((len(history)+cells-1)/cells, 1)
	out := make([]float64, 0, cells)
	// The runs end with the latest value; the oldest run may be short.
	for end := len(history); end > 0 && len(out) < cells; end -= per {
		peak := history[max(end-per, 0)]
		for _, v := range history[max(end-per, 0):end] {
			peak = max(peak, v)
		}
		out = append(out, float64(peak))
	}
	slices.Reverse(out)
	return out
}

// hashName is a stable row id for a name.
func hashName(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// objectsTitle says what the pane counts.
func objectsTitle(s *state.Snapshot) string {
	t := "Objects"
	if s == nil || !s.HasObjects {
		return t
	}
	if censusOnly(&s.Objects) {
		return t + " · census at " + s.Objects.CensusAt.Local().Format("15:04:05") + " (LIVE: counted then)"
	}
	return t + " · per second over " + dur(s.Objects.Window)
}

// objectsTitleTail is what the title adds after the table's count and
// sort, which matter more: the frees proftop could not attribute.
func objectsTitleTail(s *state.Snapshot) string {
	if s == nil || !s.HasObjects || censusOnly(&s.Objects) || s.Objects.Untracked == 0 {
		return ""
	}
	return fmt.Sprintf(" · %s freed of unknown class", count(s.Objects.Untracked))
}

// censusOnly says the objects are known from a census alone: no
// allocation or free was seen.
func censusOnly(o *state.Objects) bool {
	return slices.ContainsFunc(o.Classes, func(c state.ObjectClass) bool { return c.Counted })
}

// objectDetail is a class's drill-in: its figures and its census lines.
func objectDetail(name string, s *state.Snapshot, st *Styles) []string {
	label, value := st.Label.Render, st.Value.Render
	var c *state.ObjectClass
	for i := range s.Objects.Classes {
		if s.Objects.Classes[i].Class == name {
			c = &s.Objects.Classes[i]
		}
	}
	out := []string{st.Title.Render("Class ") + value(inert(name))}
	switch {
	case c != nil && c.Counted:
		out = append(out,
			fmt.Sprintf("  %s %s", label("live"), value(count(c.Live))),
			label("  (counted by the census: the source reports no allocations or frees as they happen, so how many were allocated and freed is unknown)"))
	case c != nil:
		freed, freedRate := "–", "–" // the source reports no frees
		if s.Objects.FreesReported {
			freed, freedRate = count(c.Frees), rate(c.FreeRate)
		}
		live, allocs, allocRate := count(c.Live), count(c.Allocs), rate(c.AllocRate)
		if c.BySizeOnly() {
			// Allocation samples weigh bytes; how many objects they stand
			// for is unknown, not 0 (as in the table).
			live, allocs, allocRate = "–", "–", "–"
		}
		out = append(out,
			fmt.Sprintf("  %s %s  %s %s  %s %s  %s %s", label("live"), value(live), label("allocated"), value(allocs),
				label("freed"), value(freed), label("bytes allocated"), value(knownSize(c.Bytes))),
			fmt.Sprintf("  %s %s  %s %s  %s %s", label("new/s"), value(allocRate), label("freed/s"), value(freedRate),
				label("bytes/s"), value(knownSize(int64(c.BytesRate)))))
		if c.BySizeOnly() {
			out = append(out, label("  (from allocation samples: bytes are estimates, counts unknown)"))
		} else if c.Sampled {
			out = append(out, label("  (bytes from allocation samples: estimates)"))
		}
	}
	out = append(out, "", st.Title.Render("Census ")+label(censusLabel(s)))
	n := 0
	for _, r := range s.Objects.Census {
		if r.Class != name {
			continue
		}
		n++
		site := r.Site
		if site == "" {
			site = "(site unknown)"
		}
		b := "–"
		if r.Bytes >= 0 {
			b = size(r.Bytes)
		}
		line := fmt.Sprintf("  %8s  %8s  %s", value(count(r.Count)), b, inert(site))
		if r.MaxCount > 0 {
			line += label(" (at most " + strconv.FormatInt(r.MaxCount, 10) + ")")
		}
		out = append(out, line)
	}
	if n == 0 {
		out = append(out, "  "+st.Muted.Render("none for this class"))
	}
	return out
}

// knownSize is an amount of bytes allocated, – when none is known: a
// source that gives no sizes (rbkit) counts objects only.
func knownSize(b int64) string {
	if b <= 0 {
		return "–"
	}
	return size(b)
}

func censusLabel(s *state.Snapshot) string {
	if s.Objects.CensusAt.IsZero() {
		return "(no census taken: rbkit's object-space snapshot, for one)"
	}
	return fmt.Sprintf("(%s objects counted at %s, by site)", count(s.Objects.CensusTotal), s.Objects.CensusAt.Local().Format("15:04:05"))
}

// noObjects says why the pane is empty.
func noObjects(st *Styles) []string {
	return []string{
		st.Muted.Render("This source reports no objects."),
		st.Muted.Render("Allocations show here from sources that report them: a TPTP"),
		st.Muted.Render("profiler's objAlloc and objFree, rbkit's memory profiling,"),
		st.Muted.Render("a Jinsight trace."),
	}
}

// objectByID finds a class's name by its row id, in either view: a class
// or a census line (whose drill-in is its class's).
func objectByID(s *state.Snapshot, id int64) (string, bool) {
	for i := range s.Objects.Classes {
		if int64(hashName(s.Objects.Classes[i].Class)) == id {
			return s.Objects.Classes[i].Class, true
		}
	}
	for i := range s.Objects.Census {
		if censusRowID(&s.Objects.Census[i]) == id {
			return s.Objects.Census[i].Class, true
		}
	}
	return "", false
}
