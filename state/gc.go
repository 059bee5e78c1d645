package state

import (
	"slices"
	"time"
)

// ring is a fixed-size history, oldest first when listed.
type ring[T any] struct {
	items []T
	next  int
	full  bool
}

func newRing[T any](n int) ring[T] { return ring[T]{items: make([]T, n)} }

func (r *ring[T]) add(v T) {
	r.items[r.next] = v
	r.next++
	if r.next == len(r.items) {
		r.next, r.full = 0, true
	}
}

func (r *ring[T]) list() []T {
	if !r.full {
		return append([]T(nil), r.items[:r.next]...)
	}
	return append(append([]T(nil), r.items[r.next:]...), r.items[:r.next]...)
}

func (r *ring[T]) clear() { r.next, r.full = 0, false }

// pause is one collection: when it ended and how long it took.
type pause struct {
	end, dur int64
}

type gcState struct {
	count   int64
	pending int64 // start of the collection in progress, 0 when none
	last    int64
	max     int64
	pauses  ring[pause]
	heap    ring[HeapSample]
	freed   int64
}

func (g *gcState) init(history int) {
	g.pauses = newRing[pause](history)
	g.heap = newRing[HeapSample](history)
}

func (g *gcState) start(now int64) { g.pending = now }

func (g *gcState) finish(now, used, total int64) {
	if g.pending != 0 {
		d := max(now-g.pending, 0)
		g.count++
		g.last = d
		g.max = max(g.max, d)
		g.pauses.add(pause{end: now, dur: d})
		g.pending = 0
	}
	if total > 0 || used > 0 {
		g.heap.add(HeapSample{At: time.Unix(0, now), Used: used, Total: total})
	}
}

func (g *gcState) reset() {
	g.count, g.last, g.max, g.freed = 0, 0, 0, 0
	g.pauses.clear()
	g.heap.clear()
}

// snapshot summarises the collections; the GC share of wall time is over
// the window before now (trace time).
func (g *gcState) snapshot(now int64, window time.Duration) GC {
	ps := g.pauses.list()
	out := GC{Count: g.count, LastPause: time.Duration(g.last), Max: time.Duration(g.max), Freed: g.freed,
		Heap: g.heap.list(), InGC: g.pending != 0}
	durs := make([]time.Duration, len(ps))
	var inWindow int64
	for i, p := range ps {
		durs[i] = time.Duration(p.dur)
		if p.end > now-int64(window) {
			// Only the part of a pause inside the window counts.
			inWindow += min(p.dur, p.end-(now-int64(window)))
		}
	}
	out.Pauses = append([]time.Duration(nil), durs...)
	if len(durs) > 0 {
		slices.Sort(durs)
		out.P50 = durs[(len(durs)-1)*50/100]
		out.P99 = durs[(len(durs)-1)*99/100]
	}
	if window > 0 {
		out.Percent = 100 * float64(inWindow) / float64(window)
	}
	return out
}
