package state

import (
	"slices"
	"strings"
	"time"
)

// Objects by class: what was allocated and freed (sources that report
// each object: TPTP's objAlloc and objFree, rbkit's obj_created and
// obj_destroyed, a Jinsight trace), what a sampling source saw allocated
// (allocation), and the latest census of the live objects (rbkit's
// object-space dump, a ProfilerJ snapshot's memory). A free names only its
// object: the class of each object alive is remembered to attribute it,
// within a bound; frees of objects not remembered are counted apart.

// noClass is the row of the objects a source gave no class for.
const noClass = "(no class)"

// objectsHistory is how many seconds of live counts a class keeps, for
// its sparkline.
const objectsHistory = 60

// objectClass is one class's figures.
type objectClass struct {
	name          string
	live          int64 // allocated and not freed, of the objects remembered
	allocs, frees int64
	bytes         int64 // allocated, when sizes are known
	sampled       bool  // from allocation samples: counts may be unknown
	// Per-second allocations and frees of the window, and live counts of
	// the last objectsHistory seconds, as rings indexed by second.
	winAllocs, winFrees, winBytes []int64
	history                       []int64
	seen                          int64 // the last second it was touched
}

// objectTable holds the classes.
type objectTable struct {
	byName map[string]*objectClass
	// sorted is byName's classes by name, nil when a class was added
	// since: a snapshot lists them in order without sorting each time.
	sorted []*objectClass
	// classOf remembers the class of each live object reported, to
	// attribute its free: at most maxTracked.
	classOf    map[int64]*objectClass
	maxTracked int
	maxClasses int
	window     int   // seconds of the window
	second     int64 // the current second (trace time)
	first      int64 // trace time of the first allocation or free reported: the rates cover no more
	active     bool  // objects were reported
	untracked  int64 // frees of objects not remembered (allocated before, or beyond the bound)
	// freesSeen: the source has reported a free; until then it may report
	// none (the JVM agent samples allocations and sees no frees), and every
	// class's frees are unknown, not 0.
	freesSeen bool
	dropped   int64 // allocations not remembered, beyond the bound
	overflow  int64 // allocations of classes beyond maxClasses, counted under "(other classes)"
	census    census
}

// census is the latest count of the live objects.
type census struct {
	id    int64
	at    int64
	rows  []CensusRow
	total int64
}

func (ot *objectTable) init(window time.Duration, maxTracked, maxClasses int) {
	ot.byName = map[string]*objectClass{}
	ot.classOf = map[int64]*objectClass{}
	ot.maxTracked, ot.maxClasses = maxTracked, maxClasses
	ot.window = max(int(window/time.Second), 1)
}

// class returns a class's row, a shared one for classes beyond the bound.
func (ot *objectTable) class(name string, at int64) *objectClass {
	if name == "" {
		name = noClass
	}
	c := ot.byName[name]
	if c == nil {
		if len(ot.byName) >= ot.maxClasses {
			ot.overflow++
			name = "(other classes)"
			if c = ot.byName[name]; c != nil {
				return c
			}
		}
		c = &objectClass{name: name, winAllocs: make([]int64, ot.window), winFrees: make([]int64, ot.window),
			winBytes: make([]int64, ot.window), history: make([]int64, objectsHistory)}
		ot.byName[name] = c
		ot.sorted = nil
	}
	ot.tick(c, at)
	return c
}

// tick brings a class's rings to the second of at: the seconds passed
// since it was last touched are emptied, its live count carried on.
func (ot *objectTable) tick(c *objectClass, at int64) {
	// A time before the epoch (a peer's nonsense) counts in second 0: the
	// rings are indexed by second, and an index is never negative.
	sec := max(at, 0) / int64(time.Second)
	ot.second = max(ot.second, sec)
	if c.seen == 0 {
		c.seen = sec
		for i := range c.history {
			c.history[i] = c.live
		}
		return
	}
	for s := c.seen + 1; s <= sec && s <= c.seen+int64(max(ot.window, objectsHistory)); s++ {
		c.winAllocs[s%int64(ot.window)], c.winFrees[s%int64(ot.window)], c.winBytes[s%int64(ot.window)] = 0, 0, 0
		c.history[s%objectsHistory] = c.live
	}
	if sec > c.seen {
		c.seen = sec
	}
}

// began notes when allocations and frees began to be reported (a
// census, a count at one moment, says nothing of them).
func (ot *objectTable) began(at int64) {
	if ot.first == 0 || at < ot.first {
		ot.first = at
	}
}

// allocated records an object of a class (name "" for none) of size bytes
// (<= 0: unknown).
func (ot *objectTable) allocated(obj int64, name string, size, at int64) {
	ot.active = true
	ot.began(at)
	c := ot.class(name, at)
	c.allocs++
	c.live++
	i := c.seen % int64(ot.window)
	c.winAllocs[i]++
	if size > 0 {
		c.bytes += size
		c.winBytes[i] += size
	}
	c.history[c.seen%objectsHistory] = c.live
	if obj == 0 {
		return
	}
	if len(ot.classOf) >= ot.maxTracked {
		ot.dropped++
		return
	}
	ot.classOf[obj] = c
}

// freed records the end of an object.
func (ot *objectTable) freed(obj, at int64) {
	ot.active, ot.freesSeen = true, true
	ot.began(at)
	c := ot.classOf[obj]
	if c == nil {
		ot.untracked++
		return
	}
	delete(ot.classOf, obj)
	ot.tick(c, at)
	c.frees++
	c.live--
	c.winFrees[c.seen%int64(ot.window)]++
	c.history[c.seen%objectsHistory] = c.live
}

// sampled records allocations a sampling source saw: count -1 when it
// says only how many bytes.
func (ot *objectTable) sampled(name string, count, bytes, at int64) {
	ot.active = true
	ot.began(at)
	c := ot.class(name, at)
	c.sampled = true
	i := c.seen % int64(ot.window)
	if count > 0 {
		c.allocs += count
		c.winAllocs[i] += count
	}
	if bytes > 0 {
		c.bytes += bytes
		c.winBytes[i] += bytes
	}
}

// counted takes one line of a census; a new census id replaces the last.
func (ot *objectTable) counted(id int64, at int64, row CensusRow) {
	ot.active = true
	if id != ot.census.id || ot.census.rows == nil {
		ot.census = census{id: id, at: at}
	}
	if len(ot.census.rows) >= ot.maxClasses {
		return
	}
	if row.Class == "" {
		row.Class = noClass
	}
	ot.census.rows = append(ot.census.rows, row)
	ot.census.total += row.Count
	ot.class(row.Class, at) // listed, though nothing of it was seen allocated
}

// newStream forgets the objects of the previous stream: their ids mean
// nothing in the next.
func (ot *objectTable) newStream() {
	clear(ot.classOf)
	for _, c := range ot.byName {
		c.live = 0
	}
}

func (ot *objectTable) reset() {
	for _, c := range ot.byName {
		c.allocs, c.frees, c.bytes = 0, 0, 0
		clear(c.winAllocs)
		clear(c.winFrees)
		clear(c.winBytes)
	}
	ot.untracked, ot.dropped, ot.overflow = 0, 0, 0
}

// span is what the window's per-second rings cover at trace time now, in
// seconds to divide their sums by: the seconds before the current one and
// the part of the current one passed, but no more than since the first
// object (dividing by the whole window before it has passed made the rates
// too low), and at least a second (the first events would make them
// soar). shown is the span to show, the window once it has passed.
func (ot *objectTable) span(now int64) (secs float64, shown time.Duration) {
	window := time.Duration(ot.window) * time.Second
	into := (now%int64(time.Second) + int64(time.Second)) % int64(time.Second) // into the current second
	covered := time.Duration(ot.window-1)*time.Second + time.Duration(into)
	shown = window
	if since := time.Duration(now - ot.first); ot.first != 0 && since < window {
		covered = min(covered, since)
		shown = since.Truncate(100 * time.Millisecond)
	}
	return max(covered, time.Second).Seconds(), max(shown, time.Second)
}

// rows lists the classes as of trace time now.
func (ot *objectTable) rows(now int64, classes []ObjectClass, histories []int64) (Objects, []int64, bool) {
	if !ot.active {
		return Objects{}, nil, false
	}
	secs, span := ot.span(now)
	out := Objects{Window: span, Tracked: int64(len(ot.classOf)), Untracked: ot.untracked,
		Dropped: ot.dropped, Overflow: ot.overflow, FreesReported: ot.freesSeen, Classes: slices.Grow(classes[:0], len(ot.byName))}
	if ot.sorted == nil {
		ot.sorted = make([]*objectClass, 0, len(ot.byName))
		for _, c := range ot.byName {
			ot.sorted = append(ot.sorted, c)
		}
		slices.SortFunc(ot.sorted, func(a, b *objectClass) int { return strings.Compare(a.name, b.name) })
	}
	// One array holds every class's history: one allocation, not one per class.
	histories = slices.Grow(histories[:0], len(ot.sorted)*objectsHistory)[:len(ot.sorted)*objectsHistory]
	for n, c := range ot.sorted {
		ot.tick(c, now)
		r := ObjectClass{Class: c.name, Live: c.live, Allocs: c.allocs, Frees: c.frees, Bytes: c.bytes, Sampled: c.sampled}
		var a, f, b int64
		for i := range c.winAllocs {
			a += c.winAllocs[i]
			f += c.winFrees[i]
			b += c.winBytes[i]
		}
		r.AllocRate, r.FreeRate, r.BytesRate = float64(a)/secs, float64(f)/secs, float64(b)/secs
		r.History = histories[n*objectsHistory : (n+1)*objectsHistory : (n+1)*objectsHistory]
		// oldest first, ending with the current second
		start := int((c.seen + 1) % objectsHistory)
		if start < 0 {
			start += objectsHistory
		}
		copy(r.History[copy(r.History, c.history[start:]):], c.history[:start])
		out.Classes = append(out.Classes, r)
	}
	if ot.census.rows != nil {
		out.Census = append([]CensusRow(nil), ot.census.rows...)
		out.CensusAt = time.Unix(0, ot.census.at)
		out.CensusTotal = ot.census.total
		countedByCensus(&out)
	}
	clear(out.Classes[len(out.Classes):cap(out.Classes)]) // nothing kept of a reused table's other rows
	return out, histories, true
}

// countedByCensus gives the classes of a source that reports no
// allocations at all (nothing allocated, freed or sampled) the live count
// the census gave them: it is all that is known of them.
func countedByCensus(o *Objects) {
	for i := range o.Classes {
		if c := &o.Classes[i]; c.Allocs != 0 || c.Frees != 0 || c.Sampled {
			return
		}
	}
	byClass := make(map[string]int64, len(o.Classes))
	for _, r := range o.Census {
		byClass[r.Class] += r.Count
	}
	for i := range o.Classes {
		c := &o.Classes[i]
		if n, ok := byClass[c.Class]; ok {
			c.Live, c.Counted = n, true
		}
	}
}
