package state

import (
	"cmp"
	"slices"
	"sync"
	"time"
	"unsafe"
)

// The history: a picture of the last minutes every step (a second, or the
// refresh interval), so that a user can go back to what was on screen when
// an incident peaked. A picture is a snapshot cut down to what tells — the
// busiest threads (with their stacks, shared with the aggregator rather
// than copied), the hottest methods over the window (and their figures
// since the start), the contended monitors, deadlocks, GC — plus the call
// tree's weights of the seconds since the previous picture. The history is bounded by its span and by an
// estimate of its bytes, whichever is reached first: the oldest pictures go.

// HistoryOptions bound the history.
type HistoryOptions struct {
	// Span is how far back pictures are kept (default 15 minutes).
	Span time.Duration
	// MaxBytes bounds the memory the pictures take (default 128 MiB).
	MaxBytes int64
	// Rows is how many rows of each table a picture keeps (default 100).
	Rows int
}

func (o HistoryOptions) withDefaults() HistoryOptions {
	if o.Span <= 0 {
		o.Span = 15 * time.Minute
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 128 << 20
	}
	if o.Rows <= 0 {
		o.Rows = 100
	}
	return o
}

// Mark is what makes a picture worth jumping to.
type Mark uint8

const (
	MarkDeadlock   Mark = 1 << iota // a deadlock began
	MarkGC                          // a collection paused far longer than usual
	MarkContention                  // the threads held up by locks peaked
)

// Names lists the marks by name.
func (m Mark) Names() []string {
	var out []string
	for _, x := range []struct {
		m    Mark
		name string
	}{{MarkDeadlock, "deadlock"}, {MarkGC, "gc"}, {MarkContention, "contention"}} {
		if m&x.m != 0 {
			out = append(out, x.name)
		}
	}
	return out
}

// Picture is the picture of one moment.
type Picture struct {
	At    time.Time // wall-clock time it was taken
	Marks Mark
	// Held is how many threads were held up by a lock (blocked, or parked
	// on a lock someone owns).
	Held int
	// Of is how many rows the full snapshot had; the picture kept at most
	// HistoryOptions.Rows of each.
	Of   Kept
	Snap *Snapshot
	// Tree is the call tree's weights of the seconds closed since the
	// previous picture; TreeReset says the figures were reset since.
	// TreeOpen is the weights of the second still open when it was taken,
	// which a later picture's Tree holds again once closed: they count in
	// this picture's own window only.
	Tree      []NodeFig
	TreeOpen  []NodeFig
	TreeReset bool
	// TreeSeconds are the seconds Tree holds, oldest first, and
	// TreeOpenStart when the open one began (Unix ns; 0 in a picture of
	// a bundle that does not say): a past window is counted in seconds.
	TreeSeconds   []TreeSecond
	TreeOpenStart int64
	// Shape is the tree Tree's nodes are numbered in, for a picture read
	// back from a bundle (shared by its pictures); nil for a picture
	// recorded here, whose nodes are those of its origin's tree: the
	// recording aggregator's, or the shape a restart left (treeorigin.go).
	Shape  *TreeShape
	origin *treeOrigin
	bytes  int64
	// methodSlots are the aggregator's slots of Snap's method rows, for
	// the recorder to fetch their figures since the start.
	methodSlots []int32
}

// Kept counts the rows of a snapshot's tables.
type Kept struct {
	Threads  int `json:"threads"`
	Methods  int `json:"methods"`
	Monitors int `json:"monitors"`
}

// KeptOf says, of a picture of the history, how many threads, methods
// and monitors there were when it was taken: its tables keep the first of
// them only. Zero for a snapshot that is no picture.
func (s *Snapshot) KeptOf() Kept { return s.keptOf }

// IsPicture says a snapshot is a picture of the history: cut down, and
// without what only the aggregator knows (callers, thread stacks beyond
// its rows).
func (s *Snapshot) IsPicture() bool { return s.picture }

// Bytes is an estimate of the memory the picture holds.
func (p *Picture) Bytes() int64 { return p.bytes }

// DeadlockRecord is a deadlock the history saw, with the stacks of its
// threads when it was first seen.
type DeadlockRecord struct {
	Deadlock
	First  time.Time `json:"firstSeen"` // wall clock
	Last   time.Time `json:"lastSeen"`
	Stacks [][]Frame `json:"stacks"` // by thread, as Threads
	// Waiting says what each thread was doing: its state and lock line.
	States []ThreadState `json:"states"`
}

// maxDeadlockRecords bounds the deadlocks the history remembers.
const maxDeadlockRecords = 256

// History holds the pictures. Safe for concurrent use: the recorder adds,
// the interface and the bundle read.
type History struct {
	mu        sync.Mutex
	opts      HistoryOptions
	pics      []*Picture
	bytes     int64
	deadlocks []DeadlockRecord
	live      map[string]int // deadlocks of the latest picture -> record
}

// NewHistory returns an empty history.
func NewHistory(opts HistoryOptions) *History {
	return &History{opts: opts.withDefaults(), live: map[string]int{}}
}

// Options are the history's bounds.
func (h *History) Options() HistoryOptions { return h.opts }

// Add appends a picture (taken after every one before it), marks it and
// drops the oldest beyond the bounds.
func (h *History) Add(p *Picture) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p.bytes == 0 {
		p.bytes = pictureBytes(p)
	}
	p.Marks |= h.marksFor(p)
	h.recordDeadlocks(p)
	h.pics = append(h.pics, p)
	h.bytes += p.bytes
	h.trim(p.At)
}

// Clear drops every picture and deadlock record: the source started over.
func (h *History) Clear() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pics, h.bytes, h.deadlocks = nil, 0, nil
	clear(h.live)
}

// trim drops the pictures older than the span and beyond the bytes.
func (h *History) trim(now time.Time) {
	drop := 0
	for drop < len(h.pics)-1 && (now.Sub(h.pics[drop].At) > h.opts.Span || h.bytes > h.opts.MaxBytes) {
		h.bytes -= h.pics[drop].bytes
		drop++
	}
	if drop > 0 {
		clear(h.pics[:drop])
		h.pics = slices.Clone(h.pics[drop:]) // let the old backing array go
	}
}

// latest is the latest picture, nil before any.
func (h *History) latest() *Picture {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.pics) == 0 {
		return nil
	}
	return h.pics[len(h.pics)-1]
}

// Pictures returns the pictures, oldest first. The slice is the caller's;
// the pictures are shared and never change.
func (h *History) Pictures() []*Picture {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.pics)
}

// Len is how many pictures are held.
func (h *History) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.pics)
}

// Usage says what the history holds: pictures, their bytes (estimated),
// the span they cover, and the span the byte bound would hold at the
// pictures' average size and rate (0 while unknown).
func (h *History) Usage() (pictures int, bytes int64, covers, capacity time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(h.pics)
	if n == 0 {
		return 0, 0, 0, 0
	}
	covers = h.pics[n-1].At.Sub(h.pics[0].At)
	if n > 1 && h.bytes > 0 {
		perPicture := float64(h.bytes) / float64(n)
		step := float64(covers) / float64(n-1)
		capacity = time.Duration(float64(h.opts.MaxBytes) / perPicture * step)
	}
	return n, h.bytes, covers, capacity
}

// Deadlocks returns every deadlock seen, oldest first.
func (h *History) Deadlocks() []DeadlockRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.deadlocks)
}

// RestoreDeadlocks replaces the deadlocks remembered with those read back
// from a bundle (they may predate its oldest picture).
func (h *History) RestoreDeadlocks(ds []DeadlockRecord) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.deadlocks = slices.Clone(ds[:min(len(ds), maxDeadlockRecords)])
	h.live = map[string]int{}
}

// marksFor says what makes a picture stand out from those before it.
func (h *History) marksFor(p *Picture) Mark {
	var m Mark
	var prev *Picture
	if n := len(h.pics); n > 0 {
		prev = h.pics[n-1]
	}
	s := p.Snap
	if len(s.Deadlocks) > 0 {
		for i := range s.Deadlocks {
			if _, ok := h.live[deadlockKey(&s.Deadlocks[i])]; !ok {
				m |= MarkDeadlock
			}
		}
	}
	if prev != nil && gcSpike(&prev.Snap.GC, &s.GC) {
		m |= MarkGC
	}
	// A contention peak: at least 3 threads held up, twice the average of
	// the last minute's pictures, and rising.
	if prev != nil && p.Held >= 3 && p.Held > prev.Held {
		from := max(len(h.pics)-60, 0)
		sum := 0
		for _, q := range h.pics[from:] {
			sum += q.Held
		}
		if avg := float64(sum) / float64(len(h.pics)-from); float64(p.Held) >= 2*avg && prev.Marks&MarkContention == 0 {
			m |= MarkContention
		}
	}
	return m
}

// gcSpike says a collection between two pictures paused at least 50 ms
// and three times the median pause.
func gcSpike(prev, now *GC) bool {
	fresh := int(now.Count - prev.Count)
	if fresh <= 0 || len(now.Pauses) == 0 {
		return false
	}
	longest := time.Duration(0)
	for _, d := range now.Pauses[max(len(now.Pauses)-fresh, 0):] {
		longest = max(longest, d)
	}
	return longest >= 50*time.Millisecond && longest >= 3*now.P50
}

// recordDeadlocks keeps every deadlock the pictures show, with its threads'
// stacks when first seen.
func (h *History) recordDeadlocks(p *Picture) {
	seen := map[string]int{}
	for i := range p.Snap.Deadlocks {
		d := &p.Snap.Deadlocks[i]
		k := deadlockKey(d)
		if at, ok := h.live[k]; ok {
			h.deadlocks[at].Last = p.At
			seen[k] = at
			continue
		}
		if len(h.deadlocks) >= maxDeadlockRecords {
			continue
		}
		r := DeadlockRecord{Deadlock: *d, First: p.At, Last: p.At}
		for _, id := range d.Threads {
			var stack []Frame
			state := ThreadBlocked
			if t := threadOfID(p.Snap.Threads, id); t != nil {
				stack, state = t.Stack, t.State
			}
			r.Stacks = append(r.Stacks, stack)
			r.States = append(r.States, state)
		}
		seen[k] = len(h.deadlocks)
		h.deadlocks = append(h.deadlocks, r)
	}
	h.live = seen
}

func threadOfID(ts []Thread, id int64) *Thread {
	for i := range ts {
		if ts[i].ID == id {
			return &ts[i]
		}
	}
	return nil
}

// heldUp counts the threads held up by a lock now.
func heldUp(s *Snapshot) int {
	n := 0
	for i := range s.Threads {
		t := &s.Threads[i]
		if t.State == ThreadBlocked || t.State == ThreadParked && t.LockOwner != 0 {
			n++
		}
	}
	return n
}

// NewPicture cuts a snapshot (taken with AllStacks) down to a picture of
// at most rows rows per table. The snapshot is left as it was.
func NewPicture(s *Snapshot, at time.Time, rows int) *Picture {
	p := &Picture{At: at, Held: heldUp(s), Of: Kept{Threads: len(s.Threads), Methods: len(s.Methods), Monitors: len(s.Monitors)}}
	c := *s
	c.picture, c.gen, c.objectHistories = true, noGen, nil // its classes' histories are copies
	c.keptOf = p.Of
	c.Threads = keepThreads(s, rows)
	c.Methods, c.Names, p.methodSlots = keepMethods(s, rows)
	c.Since = nil
	c.Monitors = keepMonitors(s, rows)
	c.Deadlocks = slices.Clone(s.Deadlocks)
	c.RecentDeadlocks = slices.Clone(s.RecentDeadlocks)
	c.GC.Pauses = lastOf(s.GC.Pauses, 60)
	c.GC.Heap = lastOf(s.GC.Heap, 60)
	c.GC.Collectors = slices.Clone(s.GC.Collectors)
	c.GC.Pools = slices.Clone(s.GC.Pools)
	c.Objects.Classes = keepClasses(s.Objects.Classes, 30)
	c.Objects.Census = slices.Clone(s.Objects.Census[:min(len(s.Objects.Census), 30)])
	c.Telemetry = keepSeries(s.Telemetry, pictureSeriesPoints)
	c.VirtualGroups = keepGroups(s.VirtualGroups, rows, pictureGroupThreads)
	c.Callers, c.FocusRecent, c.FocusCumulative, c.HasFocus = nil, Method{}, Method{}, false
	p.Snap = &c
	return p
}

// pictureSeriesPoints is how many of a telemetry series' latest points a
// picture keeps: a snapshot copies every series' whole window when a point
// comes, once a second, which a picture a second would keep for minutes.
const pictureSeriesPoints = 10

// keepSeries keeps each series with its latest points only, and without
// the downsampled points before its window.
func keepSeries(all []Series, points int) []Series {
	if all == nil {
		return nil
	}
	out := make([]Series, len(all))
	for i, sr := range all {
		sr.Points = lastOf(sr.Points, points)
		sr.Older = nil
		out[i] = sr
	}
	return out
}

// pictureGroupThreads is how many of a group of virtual threads a picture
// lists one by one (a listing may hold thousands).
const pictureGroupThreads = 20

// keepGroups keeps the first (busiest) groups of virtual threads, each
// listing its first threads only.
func keepGroups(all []VirtualGroup, rows, threads int) []VirtualGroup {
	if all == nil {
		return nil
	}
	out := slices.Clone(all[:min(len(all), rows)])
	for i := range out {
		out[i].Threads = slices.Clone(out[i].Threads[:min(len(out[i].Threads), threads)])
	}
	return out
}

func lastOf[T any](s []T, n int) []T {
	return slices.Clone(s[max(len(s)-n, 0):])
}

// keepThreads keeps the deadlocked threads, then those held up by a lock,
// then the busiest.
func keepThreads(s *Snapshot, rows int) []Thread {
	dead := map[int64]bool{}
	for _, d := range s.Deadlocks {
		for _, id := range d.Threads {
			dead[id] = true
		}
	}
	rank := func(t *Thread) int {
		switch {
		case dead[t.ID]:
			return 0
		case t.State == ThreadBlocked || t.State == ThreadParked && t.LockOwner != 0:
			return 1
		case t.Monitor != 0:
			return 2
		}
		return 3
	}
	idx := make([]int, len(s.Threads))
	for i := range idx {
		idx[i] = i
	}
	if len(idx) > rows {
		slices.SortStableFunc(idx, func(a, b int) int {
			ta, tb := &s.Threads[a], &s.Threads[b]
			if c := cmp.Compare(rank(ta), rank(tb)); c != 0 {
				return c
			}
			if c := cmp.Compare(tb.CPUPercent, ta.CPUPercent); c != 0 {
				return c
			}
			return cmp.Compare(tb.CPU, ta.CPU)
		})
		idx = idx[:rows]
		slices.Sort(idx)
	}
	out := make([]Thread, len(idx))
	for i, j := range idx {
		out[i] = s.Threads[j]
	}
	return out
}

// keepMethods keeps the methods of most self time, with names of their
// own, and says which slots of the aggregator they were.
func keepMethods(s *Snapshot, rows int) ([]Method, []string, []int32) {
	idx := topBySelf(s.Methods, rows)
	methods := make([]Method, len(idx))
	names := make([]string, len(idx))
	slots := make([]int32, len(idx))
	for i, j := range idx {
		methods[i] = s.Methods[j]
		names[i] = s.MethodName(&s.Methods[j])
		slots[i] = s.Methods[j].Slot
		methods[i].Slot = int32(i)
	}
	return methods, names, slots
}

// topBySelf is the rows of most self time, most first: a bounded heap,
// since a snapshot may list 100,000 methods and a picture keeps a hundred.
func topBySelf(ms []Method, rows int) []int {
	less := func(a, b int) bool { // a ranks below b
		if ms[a].Self != ms[b].Self {
			return ms[a].Self < ms[b].Self
		}
		return a > b
	}
	h := make([]int, 0, rows) // a min-heap: the lowest kept on top
	down := func(i int) {
		for {
			l, small := 2*i+1, i
			if l < len(h) && less(h[l], h[small]) {
				small = l
			}
			if r := l + 1; r < len(h) && less(h[r], h[small]) {
				small = r
			}
			if small == i {
				return
			}
			h[i], h[small] = h[small], h[i]
			i = small
		}
	}
	for i := range ms {
		switch {
		case len(h) < rows:
			h = append(h, i)
			for j := len(h) - 1; j > 0 && less(h[j], h[(j-1)/2]); j = (j - 1) / 2 {
				h[j], h[(j-1)/2] = h[(j-1)/2], h[j]
			}
		case rows > 0 && less(h[0], i):
			h[0] = i
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b int) int {
		if less(a, b) {
			return 1
		}
		return -1
	})
	return h
}

// keepMonitors keeps the monitors with owners or waiters, then those that
// cost most blocked time.
func keepMonitors(s *Snapshot, rows int) []Monitor {
	if len(s.Monitors) <= rows {
		return slices.Clone(s.Monitors)
	}
	idx := make([]int, len(s.Monitors))
	for i := range idx {
		idx[i] = i
	}
	busy := func(m *Monitor) int {
		if m.Owner != 0 || len(m.Waiters) > 0 {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ma, mb := &s.Monitors[a], &s.Monitors[b]
		if c := cmp.Compare(busy(ma), busy(mb)); c != 0 {
			return c
		}
		return cmp.Compare(mb.BlockedSum, ma.BlockedSum)
	})
	idx = idx[:rows]
	slices.Sort(idx)
	out := make([]Monitor, len(idx))
	for i, j := range idx {
		out[i] = s.Monitors[j]
	}
	return out
}

func keepClasses(cs []ObjectClass, rows int) []ObjectClass {
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b ObjectClass) int { return cmp.Compare(b.Live, a.Live) })
	out = out[:min(rows, len(out))]
	for i := range out {
		out[i].History = lastOf(out[i].History, 30)
	}
	return out
}

// pictureBytes estimates what a picture holds: its rows, their stacks
// (counted in full, though they are often shared), the call tree's
// weights. Strings are interned by the decoder and shared: only their
// headers count.
func pictureBytes(p *Picture) int64 {
	s := p.Snap
	n := int64(unsafe.Sizeof(*p)) + int64(unsafe.Sizeof(*s))
	frame := int64(unsafe.Sizeof(Frame{}))
	n += int64(len(s.Threads)) * int64(unsafe.Sizeof(Thread{}))
	for i := range s.Threads {
		n += int64(len(s.Threads[i].Stack)) * frame
	}
	n += int64(len(s.Methods)+len(s.Since))*int64(unsafe.Sizeof(Method{})) + int64(len(s.Names))*16
	n += int64(len(s.Monitors)) * int64(unsafe.Sizeof(Monitor{}))
	for i := range s.Monitors {
		m := &s.Monitors[i]
		n += int64(len(m.OwnerStack)) * frame
		n += int64(len(m.Waiters)) * int64(unsafe.Sizeof(Waiter{}))
		for j := range m.Waiters {
			n += int64(len(m.Waiters[j].Stack)) * frame
		}
	}
	for i := range s.Deadlocks {
		n += int64(len(s.Deadlocks[i].Threads)) * 40
	}
	n += int64(len(s.RecentDeadlocks)) * int64(unsafe.Sizeof(PastDeadlock{}))
	n += int64(len(s.GC.Pauses))*8 + int64(len(s.GC.Heap))*int64(unsafe.Sizeof(HeapSample{}))
	n += int64(len(s.GC.Pools))*int64(unsafe.Sizeof(Pool{})) + int64(len(s.GC.Collectors))*int64(unsafe.Sizeof(Collector{}))
	n += int64(len(s.Objects.Classes)) * int64(unsafe.Sizeof(ObjectClass{}))
	for i := range s.Objects.Classes {
		n += int64(len(s.Objects.Classes[i].History)) * 8
	}
	n += int64(len(s.Objects.Census)) * int64(unsafe.Sizeof(CensusRow{}))
	n += int64(len(p.Tree)+len(p.TreeOpen))*int64(unsafe.Sizeof(NodeFig{})) + int64(len(p.TreeSeconds))*int64(unsafe.Sizeof(TreeSecond{}))
	n += int64(len(s.VirtualGroups)) * int64(unsafe.Sizeof(VirtualGroup{}))
	for i := range s.VirtualGroups {
		g := &s.VirtualGroups[i]
		n += int64(len(g.Threads))*int64(unsafe.Sizeof(VirtualThread{})) + int64(len(g.Stack))*frame
	}
	n += int64(len(s.Telemetry)) * int64(unsafe.Sizeof(Series{}))
	for i := range s.Telemetry {
		n += int64(len(s.Telemetry[i].Points)) * int64(unsafe.Sizeof(Point{}))
	}
	return n
}
