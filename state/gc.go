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

// pause is one collection: when it ended and how long it took; by its
// collector, seq that collector's count with it (0: unknown).
type pause struct {
	end, dur, seq int64
	by            string
}

type gcState struct {
	count   int64
	pending int64 // start of the collection in progress, 0 when none
	last    int64
	max     int64
	pauses  ring[pause]
	heap    ring[HeapSample]
	freed   int64
	// objFree events arrived: freed means something.
	freedKnown bool
	reclaimed  int64
	lastCause  string
	lastBy     string

	// Collectors' totals since the JVM started, by name, in order of appearance.
	totals     map[string]*collectorTotals
	totalOrder []string
	wasReset   bool  // the counts are since a reset, not since the JVM started
	totalsAt   int64 // trace time of the latest totals
	// streamPauses counts the pauses of the current stream.
	streamPauses int64
	// Memory pools' latest usage, in order of appearance, and the heap
	// (the heap pools summed) of the poll being received.
	pools     map[string]*Pool
	poolOrder []string
	poolHeap  HeapSample
	// pollPools names the heap pools summed in poolHeap: a poll's pools
	// need not carry the same time to the nanosecond, so a poll ends when
	// one of its pools comes again, or another heap sample arrives.
	pollPools []string
	// resetAt is the trace time of the latest reset (0: none): pauses
	// count from then.
	resetAt int64
	// heapAdded counts the heap samples ever added, streamHeap those
	// added before the current stream: the samples a stream added are
	// put in time order, but a stream's clock may run behind the one
	// before, whose samples stay before its.
	heapAdded, streamHeap int
}

// beforeReset says a collection that ended at trace time end was of
// before the latest reset: one reported late counts for nothing after it.
func (g *gcState) beforeReset(end int64) bool { return g.resetAt > 0 && end <= g.resetAt }

// addHeap adds a heap sample.
func (g *gcState) addHeap(h HeapSample) {
	g.heap.add(h)
	g.heapAdded++
}

func (g *gcState) init(history int) {
	g.pauses = newRing[pause](history)
	g.heap = newRing[HeapSample](history)
	g.totals = map[string]*collectorTotals{}
	g.pools = map[string]*Pool{}
}

// maxPools bounds the pools and collectors kept: a JVM has a handful.
const maxPools = 64

// collection records one collection as the source reported it; seq is its
// collector's count with it, 0 when unknown.
func (g *gcState) collection(end, paused int64, by, cause string, before, after, committed, seq int64) {
	if g.beforeReset(end) {
		return // reported late: not among what counts from the reset
	}
	d := max(paused, 0)
	g.count++
	g.last = d
	g.max = max(g.max, d)
	g.pauses.add(pause{end: end, dur: d, seq: seq, by: by})
	g.streamPauses++
	g.lastBy, g.lastCause = by, cause
	if before >= 0 && after >= 0 && before > after {
		g.reclaimed += before - after
	}
	if after >= 0 {
		g.closePoll()
		g.addHeap(HeapSample{At: time.Unix(0, end), Used: after, Total: max(committed, 0)})
	}
}

// collectorTotals records a collector's figures since the JVM started, as
// read at trace time at.
func (g *gcState) collectorTotals(at int64, name string, count, total int64) {
	g.totalsAt = max(g.totalsAt, at)
	c := g.totals[name]
	if c == nil {
		if len(g.totalOrder) >= maxPools {
			return
		}
		c = &collectorTotals{Collector: Collector{Name: name}}
		g.totals[name] = c
		g.totalOrder = append(g.totalOrder, name)
	}
	c.Count, c.TotalTime = count, time.Duration(total)
}

// collectorTotals is a collector's figures and their base at the last reset.
type collectorTotals struct {
	Collector
	base     int64
	baseTime time.Duration
}

// pool records a memory pool's usage at a poll; the heap pools of one poll
// add up to one heap sample.
func (g *gcState) pool(at int64, name string, heap bool, used, committed, maxBytes int64) {
	p := g.pools[name]
	if p == nil {
		if len(g.poolOrder) >= maxPools {
			return
		}
		p = &Pool{Name: name}
		g.pools[name] = p
		g.poolOrder = append(g.poolOrder, name)
	}
	*p = Pool{Name: name, Heap: heap, Used: used, Committed: committed, Max: maxBytes, At: time.Unix(0, at)}
	if !heap {
		return
	}
	if slices.Contains(g.pollPools, name) {
		g.closePoll()
	}
	if len(g.pollPools) == 0 {
		g.poolHeap = HeapSample{At: time.Unix(0, at)}
	}
	g.pollPools = append(g.pollPools, name)
	g.poolHeap.Used += max(used, 0)
	g.poolHeap.Total += max(committed, 0)
}

// newStream forgets the collection in progress, closes the poll of the
// previous stream, whose pools may be named otherwise than the next one's,
// and forgets when its totals were read: the next stream's clock may run
// behind.
func (g *gcState) newStream() {
	g.pending = 0
	g.closePoll()
	g.streamHeap = g.heapAdded
	g.totalsAt, g.streamPauses = 0, 0
}

// closePoll adds the heap of the poll being received, if any, to the
// samples, so that they stay in the order they were taken.
func (g *gcState) closePoll() {
	if len(g.pollPools) > 0 {
		g.addHeap(g.poolHeap)
		g.pollPools = g.pollPools[:0]
		g.poolHeap = HeapSample{}
	}
}

func (g *gcState) start(now int64) { g.pending = now }

func (g *gcState) finish(now, used, total int64) {
	if g.pending != 0 && g.beforeReset(now) {
		g.pending = 0
	}
	if g.pending != 0 {
		d := max(now-g.pending, 0)
		g.count++
		g.last = d
		g.max = max(g.max, d)
		g.pauses.add(pause{end: now, dur: d})
		g.streamPauses++
		g.pending = 0
	}
	if total > 0 || used > 0 {
		g.closePoll()
		g.addHeap(HeapSample{At: time.Unix(0, now), Used: used, Total: total})
	}
}

// reset counts collections from now: what the collectors' totals say now
// becomes their base.
func (g *gcState) reset(now int64) {
	g.resetAt = now
	g.count, g.last, g.max, g.freed, g.reclaimed = 0, 0, 0, 0, 0
	g.pauses.clear()
	g.streamPauses = 0
	g.heap.clear()
	g.pollPools, g.poolHeap = g.pollPools[:0], HeapSample{}
	for _, c := range g.totals {
		c.base, c.baseTime = c.Count, c.TotalTime
	}
	g.wasReset = true
}

// snapshot summarises the collections; the GC share of wall time is over
// the window before now (trace time), or over the time watched when that
// is shorter: since first (the earliest event) or the latest reset.
func (g *gcState) snapshot(now, first int64, window time.Duration) GC {
	ps := g.pauses.list()
	out := GC{Count: g.count, LastPause: time.Duration(g.last), Max: time.Duration(g.max), Freed: g.freed,
		FreedKnown: g.freedKnown, Reclaimed: g.reclaimed, LastCause: g.lastCause, LastBy: g.lastBy,
		Heap: g.heap.list(), InGC: g.pending != 0}
	if len(g.pollPools) > 0 {
		out.Heap = append(out.Heap, g.poolHeap)
	}
	// A collection's reading may arrive after a later poll's (JFR delivers
	// its events a second or two late): the current stream's samples go
	// in time order.
	byTime := func(a, b HeapSample) int { return a.At.Compare(b.At) }
	n := g.heapAdded - g.streamHeap
	if len(g.pollPools) > 0 {
		n++ // the poll being received
	}
	ours := out.Heap[max(len(out.Heap)-n, 0):]
	if !slices.IsSortedFunc(ours, byTime) {
		slices.SortStableFunc(ours, byTime)
	}
	if out.Heap == nil {
		out.Heap = []HeapSample{} // an empty list in JSON, not null
	}
	if len(g.totalOrder) > 0 {
		// Since the JVM started: what jstat counts, collections missed included.
		var n int64
		var total time.Duration
		for _, name := range g.totalOrder {
			c := g.totals[name]
			r := Collector{Name: c.Name, Count: c.Count - c.base, TotalTime: c.TotalTime - c.baseTime}
			out.Collectors = append(out.Collectors, r)
			n += r.Count
			total += r.TotalTime
		}
		out.Count, out.TotalTime, out.SinceStart = n, total, !g.wasReset
		// Pauses the totals do not count yet (the pauses come as they
		// end, the totals once a poll) count at once, with their time, so
		// that the count and the time agree; in their collector's row
		// too, so that the rows add up to them.
		// Only the current stream's pauses: another's clock is another.
		for _, p := range ps[max(len(ps)-int(g.streamPauses), 0):] {
			if g.notInTotals(p) {
				out.Count++
				name := p.by
				if name == "" {
					name = UnnamedCollector
				}
				row := out.collector(name)
				if row == nil {
					// A collector the totals do not name (yet, or ever), or
					// no name: its row holds only what they leave out.
					out.Collectors = append(out.Collectors, Collector{Name: name, SinceTotals: g.totals[name] == nil})
					row = &out.Collectors[len(out.Collectors)-1]
				}
				row.Count++
				if total > 0 { // totals that count time (rbkit's count collections only)
					out.TotalTime += time.Duration(p.dur)
					row.TotalTime += time.Duration(p.dur)
				}
			}
		}
	}
	for _, name := range g.poolOrder {
		out.Pools = append(out.Pools, *g.pools[name])
	}
	durs := make([]time.Duration, len(ps))
	span := watchedSpan(now, max(first, g.resetAt), window)
	from := now - int64(span)
	var inSpan int64
	for i, p := range ps {
		durs[i] = time.Duration(p.dur)
		// Only the part of a pause inside the span counts: one that began
		// before watching did, or before the span, counts from its start.
		inSpan += max(min(p.end, now)-max(p.end-p.dur, from), 0)
	}
	out.Pauses = append([]time.Duration{}, durs...) // [] in JSON, not null
	if len(durs) > 0 {
		slices.Sort(durs)
		out.P50 = nearestRank(durs, 50)
		out.P99 = nearestRank(durs, 99)
	}
	if span > 0 {
		out.Percent, out.PercentOver = min(100*float64(inSpan)/float64(span), 100), span
	}
	return out
}

// minWatched is the least span a share of time is taken over: a pause in
// the first milliseconds of watching is not most of the time.
const minWatched = time.Second

// watchedSpan is the part of the window before now that was watched,
// from from (trace time; 0: unknown, the whole window), at least
// minWatched: 36 pauses in the 3 s watched are 3.7% of them, not 1.1% of
// a 10 s window.
func watchedSpan(now, from int64, window time.Duration) time.Duration {
	if from <= 0 || now <= from {
		return window
	}
	return min(window, max(time.Duration(now-from), minWatched))
}

// UnnamedCollector is the row of the collections whose collector the
// source did not name.
const UnnamedCollector = "(collector not named)"

// collector is the row of the collector named, nil if none.
func (g *GC) collector(name string) *Collector {
	for i := range g.Collectors {
		if g.Collectors[i].Name == name {
			return &g.Collectors[i]
		}
	}
	return nil
}

// notInTotals says whether the collectors' totals leave out a pause: by
// its collector's count when the source numbers its collections (exact,
// whatever the clocks say: a pause that ended just before the totals were
// read may carry a later time), else by whether it ended after the
// latest totals were read.
func (g *gcState) notInTotals(p pause) bool {
	if c := g.totals[p.by]; c != nil && p.seq > 0 {
		return p.seq > c.Count
	}
	return p.end > g.totalsAt
}

// nearestRank is the p-th percentile of sorted values by the nearest-rank
// method: the smallest value with at least p% of the values at or below
// it. It is always one of the values, and never above the maximum.
func nearestRank(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 × n)
	return sorted[max(rank, 1)-1]
}
