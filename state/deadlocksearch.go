package state

import (
	"cmp"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
)

// Finding deadlocks: the cycles of "thread blocks on a monitor owned by
// thread". Each blocked thread has one edge, to the owner of its monitor.
// The search runs every 100 ms of trace time while locks change, over
// thousands of monitors: it keeps its edges in a slice it reuses and marks
// the threads themselves, instead of building maps at every search; and
// with no blocked thread whose lock's owner is blocked too, there is no
// cycle and no walk.

// waitEdge is a blocked thread's edge of the wait-for graph: the monitor
// it waits for and its owner, since when, and whether that is when it was
// first seen blocked rather than when it blocked (and first seen at the
// first look).
type waitEdge struct {
	t, owner                    *thread
	m                           *monitor
	since                       int64
	unseenStart, beforeWatching bool
}

// deadlockSearch is what a search keeps between searches: its generation,
// which marks the threads with an edge in this search, and its slices.
type deadlockSearch struct {
	gen   uint32
	edges []waitEdge
	path  []*thread
}

// searches numbers every search of the process, so that no mark a thread
// kept from an earlier search (of a table since replaced) passes for one
// of this search.
var searches atomic.Uint32

// edgeOf is a thread's edge in this search, nil for a thread not blocked
// on an owned monitor.
func (ds *deadlockSearch) edgeOf(t *thread) *waitEdge {
	if t.search.gen != ds.gen || int(t.search.edge) >= len(ds.edges) || ds.edges[t.search.edge].t != t {
		return nil
	}
	return &ds.edges[t.search.edge]
}

// searchMark is a thread's part in the latest search: with gen the
// search's, it has edge edges[edge], is at pos on the path being walked
// (-1: not on it), and done says a walk has passed it.
type searchMark struct {
	gen       uint32
	edge, pos int32
	done      bool
}

func (mt *monitorTable) deadlocks(tt *threadTable) []Deadlock {
	ds := &mt.search
	ds.gen = searches.Add(1)
	gen := ds.gen
	ds.edges = ds.edges[:0]
	busy := mt.busy[:0]
	for _, m := range mt.busy {
		if len(m.waiters) == 0 || !mt.has(m) {
			m.listed = false // no waiter left, or expired: listed again with its next
			continue
		}
		busy = append(busy, m)
		o := m.currentOwner()
		if o == nil {
			continue
		}
		for _, w := range m.waiters {
			if w.waiting || w.t == o || w.t.search.gen == gen {
				continue // not blocked, or its edge already taken
			}
			w.t.search = searchMark{gen: gen, pos: -1}
			ds.edges = append(ds.edges, waitEdge{t: w.t, owner: o, m: m, since: w.since, unseenStart: w.unseenStart, beforeWatching: w.beforeWatching})
		}
	}
	clear(mt.busy[len(busy):])
	mt.busy = busy
	cyclic := false
	for i := range ds.edges {
		if ds.edges[i].owner.search.gen == gen { // marked above: it has an edge
			cyclic = true // an owner blocked in turn: a chain, maybe a cycle
			break
		}
	}
	if !cyclic {
		return nil
	}
	// Walks start at the lowest thread id first, so that a deadlock reads
	// the same every time.
	slices.SortFunc(ds.edges, func(a, b waitEdge) int { return cmp.Compare(a.t.id, b.t.id) })
	for i := range ds.edges {
		ds.edges[i].t.search.edge = int32(i)
	}
	var out []Deadlock
	for i := range ds.edges {
		start := ds.edges[i].t
		if start.search.done {
			continue
		}
		path := ds.path[:0]
		for t := start; !t.search.done; {
			e := ds.edgeOf(t)
			if e == nil {
				break // its owner is not blocked: a chain's end
			}
			if p := t.search.pos; p >= 0 {
				out = append(out, ds.cycle(path[p:]))
				break
			}
			t.search.pos = int32(len(path))
			path = append(path, t)
			t = e.owner
		}
		for _, t := range path {
			t.search.done, t.search.pos = true, -1
		}
		clear(path) // holds no thread past the search
		ds.path = path[:0]
	}
	clear(ds.edges[:cap(ds.edges)]) // nor do the edges
	return out
}

// cycle describes the deadlock of threads ts. It formed when the last of
// them blocked: that is its Since, when every one's time is known. When
// the last of them was blocked already the first time it was seen, the
// deadlock formed before that, unseen: Since is when it was first seen.
func (ds *deadlockSearch) cycle(ts []*thread) Deadlock {
	// Start the cycle at its lowest thread id, so that it reads the same every time.
	low := 0
	for i, t := range ts {
		if t.id < ts[low].id {
			low = i
		}
	}
	var d Deadlock
	for i := range ts {
		t := ts[(low+i)%len(ts)]
		m := ds.edgeOf(t).m
		d.Threads = append(d.Threads, t.id)
		d.Names = append(d.Names, t.name)
		d.Monitors = append(d.Monitors, m.obj)
		d.MonitorsHex = append(d.MonitorsHex, strconv.FormatInt(m.obj, 16))
		d.Classes = append(d.Classes, m.class)
		d.Virtual = append(d.Virtual, t.virtual)
	}
	if !slices.Contains(d.Virtual, true) {
		d.Virtual = nil
	}
	var last waitEdge
	for _, t := range ts {
		e := ds.edgeOf(t)
		if e.since <= 0 {
			d.FirstSeen = true // when it formed is not known
			return d
		}
		if e.since > last.since || e.since == last.since && e.unseenStart {
			last = *e
		}
	}
	d.Since = time.Unix(0, last.since)
	d.FirstSeen, d.BeforeWatching = last.unseenStart, last.beforeWatching
	return d
}
