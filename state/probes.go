package state

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/proftop/proftop/decode"
)

// Probes: what a source's probe records say (the JVM agent's: the
// application's JFR duration events), as a table of count, total, average
// and longest duration by probe and group, with the hot spots of each
// row: the stacks they were committed at, by time spent. Counts are since
// the start (or the reset); rows and hot spots are bounded.

const (
	// maxProbeRows bounds the (probe, group) rows; further groups of a
	// probe are counted under otherGroup.
	maxProbeRows = 1000
	// maxHotSpots bounds a row's stacks; further ones are counted under an
	// empty stack.
	maxHotSpots = 64
	// hotSpotsShown is how many stacks of a row a snapshot lists.
	hotSpotsShown = 20
	otherGroup    = "(other groups)"
)

type probeKey struct{ probe, group string }

type probeRow struct {
	probeKey
	count, total, max int64 // durations in ns
	order             int
	spots             map[string]*hotSpot
}

type hotSpot struct {
	stack        []Frame
	count, total int64
}

type probeTable struct {
	rows  map[probeKey]*probeRow
	order []*probeRow
	gen   uint64
	built []ProbeRow
	bgen  uint64
}

func (pt *probeTable) init() { pt.rows = map[probeKey]*probeRow{} }

// record adds a probe record: count events of total and at most longest
// duration (ns), committed at stack.
func (pt *probeTable) record(e *decode.Probe, total, longest int64) {
	if e.Count <= 0 {
		return
	}
	k := probeKey{e.Name, e.Group}
	r := pt.rows[k]
	if r == nil {
		if len(pt.rows) >= maxProbeRows {
			k.group = otherGroup
			r = pt.rows[k]
		}
		if r == nil {
			r = &probeRow{probeKey: k, order: len(pt.order), spots: map[string]*hotSpot{}}
			pt.rows[k] = r
			pt.order = append(pt.order, r)
		}
	}
	r.count += e.Count
	r.total += max(total, 0)
	r.max = max(r.max, longest)
	key := stackKey(&e.Stack)
	hs := r.spots[key]
	if hs == nil {
		if len(r.spots) >= maxHotSpots {
			key = ""
			hs = r.spots[key]
		}
		if hs == nil {
			hs = &hotSpot{}
			if key != "" {
				hs.stack = framesOf(&e.Stack)
			}
			r.spots[key] = hs
		}
	}
	hs.count += e.Count
	hs.total += max(total, 0)
	pt.gen++
}

func stackKey(st *decode.Stack) string {
	var b strings.Builder
	for i, m := range st.Methods {
		b.WriteString(m)
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(st.Lines[i], 10))
		b.WriteByte('\n')
	}
	return b.String()
}

func (pt *probeTable) reset() {
	clear(pt.rows)
	pt.order = pt.order[:0]
	pt.gen++
}

// ProbeRow is one row of the probes table: the events of a probe in one
// group, and where they were committed.
type ProbeRow struct {
	Probe string        `json:"probe"`
	Group string        `json:"group"`
	Count int64         `json:"count"`
	Total time.Duration `json:"totalNs"`
	Avg   time.Duration `json:"avgNs"`
	Max   time.Duration `json:"maxNs"`
	// HotSpots are the stacks the events were committed at, by total
	// time (the first hotSpotsShown); one with no stack stands for the
	// events recorded without one, or beyond the bound.
	HotSpots []HotSpot `json:"hotSpots,omitempty"`
}

// HotSpot is the events of a probe row committed at one stack.
type HotSpot struct {
	Stack []Frame       `json:"stack"`
	Count int64         `json:"count"`
	Total time.Duration `json:"totalNs"`
}

// snapshot lists the rows in order of appearance; unchanged since the
// previous call, it returns the previous list, which no one modifies.
func (pt *probeTable) snapshot() []ProbeRow {
	if pt.built != nil && pt.bgen == pt.gen {
		return pt.built
	}
	out := make([]ProbeRow, 0, len(pt.order))
	for _, r := range pt.order {
		row := ProbeRow{Probe: r.probe, Group: r.group, Count: r.count, Total: time.Duration(r.total), Max: time.Duration(r.max)}
		if r.count > 0 {
			row.Avg = time.Duration(r.total / r.count)
		}
		keys := make([]string, 0, len(r.spots))
		for k := range r.spots {
			keys = append(keys, k)
		}
		sort.Strings(keys) // ties keep one order from snapshot to snapshot
		for _, k := range keys {
			hs := r.spots[k]
			row.HotSpots = append(row.HotSpots, HotSpot{Stack: hs.stack, Count: hs.count, Total: time.Duration(hs.total)})
		}
		sort.SliceStable(row.HotSpots, func(i, j int) bool {
			a, b := row.HotSpots[i], row.HotSpots[j]
			if a.Total != b.Total {
				return a.Total > b.Total
			}
			return a.Count > b.Count
		})
		if len(row.HotSpots) > hotSpotsShown {
			row.HotSpots = row.HotSpots[:hotSpotsShown]
		}
		out = append(out, row)
	}
	pt.built, pt.bgen = out, pt.gen
	return out
}
