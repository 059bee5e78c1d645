package state

import (
	"regexp"
	"slices"
	"sort"

	"github.com/proftop/proftop/internal/javaname"
	"github.com/proftop/proftop/internal/topk"
)

// The order of a page (methodpage.go). The aggregator keeps the first rows
// of one order, the head, and for every method its key and whether it is
// listed; it never sorts them all. Every listed method outside the head
// comes at or after the bound, so the head is exactly the first len(head)
// rows of the order. A method that changed leaves the head, and goes back
// in its place when it comes before the bound; else it stays out, behind
// the bound, which stays true. So a snapshot costs the methods changed
// since the previous one, each a key worked out and compared. The head
// shrinks as its rows fall behind the bound; a page that needs more rows
// than it holds chooses the head again from every method's key, one pass
// over flat arrays.

// orderSpec is what an order lists and how.
type orderSpec struct {
	recent, twoViews, sampler bool
	key                       MethodKey
	desc                      bool
	filter                    *regexp.Regexp
	invert                    bool
}

// A slot's flags in an order.
const (
	orderListed = 1 << iota // a row of the view
	orderMember             // a row of the view that passes the filter
	orderLine               // a row of the view with a line
	orderHead               // in the head
	orderQueued             // being brought up to date
)

// headMin is the least number of rows a head is chosen with: pages of the
// first rows are answered from it while its rows fall behind the bound. A
// variable for the tests.
var headMin = 256

type methodOrder struct {
	spec  orderSpec
	valid bool
	keys  []int64 // by slot
	flags []uint8 // by slot
	names []string
	// With a filter: the name each slot's match was worked out for (the
	// regular expression runs again only when it changes), and the match.
	matchFor  *regexp.Regexp
	matchName []string
	match     []uint8 // 0: not worked out, matchNo, matchYes

	listed, matched, lines int

	head []int32
	want int // the rows the head was last chosen with
	// bounded: some member is outside the head, each at or after
	// (boundKey, boundName, boundSlot).
	bounded   bool
	boundKey  int64
	boundName string
	boundSlot int32

	queue, merged []int32
}

// touch notes that a slot's row (or its name) changed: the cumulative
// table's patch finds it by its generation, a page's order in the slots
// changed since its last snapshot.
func (mt *methodTable) touch(slot int32) {
	if mt.gens[slot] != mt.gen {
		mt.noteChanged(slot)
	}
	mt.gens[slot] = mt.gen
}

// noteChanged lists a changed slot for the order, when there is one; more
// changes than slots are not listed: the order is worked out again.
func (mt *methodTable) noteChanged(slot int32) {
	if mt.order == nil || mt.changedAll {
		return
	}
	if len(mt.changed) >= mt.stats.len() {
		mt.changed, mt.changedAll = mt.changed[:0], true
		return
	}
	mt.changed = append(mt.changed, slot)
}

// grow makes room for the slots made since.
func (o *methodOrder) grow(n int) {
	if k := n - len(o.keys); k > 0 {
		o.keys = append(o.keys, make([]int64, k)...)
		o.flags = append(o.flags, make([]uint8, k)...)
	}
	if o.spec.filter != nil {
		if k := n - len(o.matchName); k > 0 {
			o.matchName = append(o.matchName, make([]string, k)...)
			o.match = append(o.match, make([]uint8, k)...)
		}
	}
}

// matches says a slot's name passes the filter.
func (o *methodOrder) matches(slot int32) bool {
	f := o.spec.filter
	if f == nil {
		return true
	}
	if name := o.names[slot]; o.match[slot] == 0 || o.matchName[slot] != name {
		o.matchName[slot], o.match[slot] = name, matchNo
		// As the pane shows it too: "wait(J)V" reads "wait(long)".
		if f.MatchString(name) || f.MatchString(javaname.Method(name)) {
			o.match[slot] = matchYes
		}
	}
	return (o.match[slot] == matchYes) != o.spec.invert
}

const (
	matchNo = 1 + iota
	matchYes
)

// classify works out a slot's flags (all but orderHead) and key.
func (o *methodOrder) classify(mt *methodTable, slot int32) (flags uint8, key int64) {
	st := mt.stats.at(slot)
	listed := false
	if o.spec.recent {
		listed = mt.window.at[slot] != 0
	} else {
		listed = mt.cumHas(slot) && !st.dead
	}
	if !listed || o.spec.twoViews && st.sampler != o.spec.sampler {
		return 0, 0
	}
	row := mt.viewRow(slot, o.spec.recent)
	flags = orderListed
	if row.Line > 0 {
		flags |= orderLine
	}
	if o.matches(slot) {
		flags |= orderMember
	}
	return flags, o.spec.key.Of(&row)
}

// count adds (d 1) or takes away (d -1) a slot's flags from the counts.
func (o *methodOrder) count(flags uint8, d int) {
	if flags&orderListed != 0 {
		o.listed += d
	}
	if flags&orderMember != 0 {
		o.matched += d
	}
	if flags&orderLine != 0 {
		o.lines += d
	}
}

// before orders two members: by key (by name for ByName), then by slot.
func (o *methodOrder) before(a, b int32) bool {
	if o.spec.key == ByName {
		if na, nb := o.names[a], o.names[b]; na != nb {
			return (na < nb) != o.spec.desc
		}
	} else if ka, kb := o.keys[a], o.keys[b]; ka != kb {
		return (ka < kb) != o.spec.desc
	}
	return a < b
}

// beforeBound says a member comes before the bound, in the head's part of
// the order.
func (o *methodOrder) beforeBound(s int32) bool {
	if !o.bounded {
		return true
	}
	if o.spec.key == ByName {
		if n := o.names[s]; n != o.boundName {
			return (n < o.boundName) != o.spec.desc
		}
	} else if k := o.keys[s]; k != o.boundKey {
		return (k < o.boundKey) != o.spec.desc
	}
	return s < o.boundSlot
}

// reorder works out every slot's key and flags for a new order (or a
// table changed beyond listing), and chooses its head.
func (o *methodOrder) reorder(mt *methodTable, spec orderSpec) {
	o.spec, o.valid, o.names = spec, true, mt.names
	if spec.filter != o.matchFor {
		o.matchFor, o.matchName, o.match = spec.filter, o.matchName[:0], o.match[:0]
	}
	o.keys, o.flags = o.keys[:0], o.flags[:0]
	o.grow(mt.stats.len())
	o.listed, o.matched, o.lines = 0, 0, 0
	for slot := range o.flags {
		f, k := o.classify(mt, int32(slot))
		o.flags[slot], o.keys[slot] = f, k
		o.count(f, 1)
	}
	o.head = o.head[:0]
	o.choose(max(o.want, headMin))
}

// apply brings the order up to date with the slots changed since its
// last snapshot (a slot may be listed more than once).
func (o *methodOrder) apply(mt *methodTable, changed []int32) {
	o.names = mt.names
	o.grow(mt.stats.len())
	q := o.queue[:0]
	out := false
	for _, s := range changed {
		f := o.flags[s]
		if f&orderQueued != 0 {
			continue
		}
		o.count(f, -1)
		out = out || f&orderHead != 0
		nf, k := o.classify(mt, s)
		o.keys[s], o.flags[s] = k, nf|orderQueued
		o.count(nf, 1)
		if nf&orderMember != 0 && o.beforeBound(s) {
			q = append(q, s)
		}
	}
	for _, s := range changed {
		o.flags[s] &^= orderQueued
	}
	o.queue = q
	if !out && len(q) == 0 {
		return
	}
	limit := 2 * max(o.want, headMin)
	if len(q) > limit {
		o.rechoose(q, limit)
		return
	}
	// The head without the rows that changed, merged with those of them
	// that come before the bound.
	slices.SortFunc(q, func(a, b int32) int {
		if o.before(a, b) {
			return -1
		}
		return 1
	})
	merged := o.merged[:0]
	i := 0
	for _, s := range o.head {
		if o.flags[s]&orderHead == 0 {
			continue // it changed: in q, or out
		}
		for i < len(q) && o.before(q[i], s) {
			merged = append(merged, q[i])
			i++
		}
		merged = append(merged, s)
	}
	merged = append(merged, q[i:]...)
	for _, s := range q {
		o.flags[s] |= orderHead
	}
	o.head, o.merged = merged, o.head
	if len(o.head) > limit {
		o.cut(limit)
	}
}

// rechoose makes the head the first limit rows of those changed before
// the bound (q) and those of the head that did not change, when more
// changed than the head keeps (a second in which every method was called):
// sorting them all to keep a few costs more than a bounded heap of them.
// Every row left out comes after the first left out, which becomes the
// bound; the rows outside the head already came after the old bound,
// which comes after every row here.
func (o *methodOrder) rechoose(q []int32, limit int) {
	var top topk.Heap[int32]
	top.Reset(o.merged, limit+1, o.before)
	for _, s := range o.head {
		if o.flags[s]&orderHead != 0 {
			top.Offer(s)
		}
	}
	for _, s := range q {
		top.Offer(s)
	}
	h := top.Sorted()
	for _, s := range o.head {
		o.flags[s] &^= orderHead
	}
	for _, s := range h {
		o.flags[s] |= orderHead
	}
	o.head, o.merged = h, o.head
	o.cut(limit) // h holds limit+1 rows: len(q) > limit
}

// cut keeps the first n rows of the head: the first of the others
// becomes the bound.
func (o *methodOrder) cut(n int) {
	b := o.head[n]
	o.bounded, o.boundKey, o.boundName, o.boundSlot = true, o.keys[b], o.names[b], b
	for _, s := range o.head[n:] {
		o.flags[s] &^= orderHead
	}
	o.head = o.head[:n]
}

// choose makes the head the first k members, from every slot's key: a
// bounded heap of the k+1 first seen so far, the worst on top.
func (o *methodOrder) choose(k int) {
	o.want = k
	for _, s := range o.head {
		o.flags[s] &^= orderHead
	}
	var top topk.Heap[int32]
	top.Reset(o.head, k+1, o.before)
	for slot, f := range o.flags {
		if f&orderMember != 0 {
			top.Offer(int32(slot))
		}
	}
	h := top.Sorted()
	o.head, o.bounded = h, false
	for _, s := range h {
		o.flags[s] |= orderHead
	}
	if len(h) > k {
		o.cut(k)
	}
}

// cover makes the head hold the first n rows (or every member).
func (o *methodOrder) cover(n int) {
	if n = min(n, o.matched); len(o.head) >= n || !o.bounded {
		return
	}
	o.choose(max(2*n, headMin))
}

// rank is a member's place in the order.
func (o *methodOrder) rank(slot int32) int {
	if o.flags[slot]&orderHead != 0 {
		return sort.Search(len(o.head), func(i int) bool { return !o.before(o.head[i], slot) })
	}
	n := 0
	for s, f := range o.flags {
		if f&orderMember != 0 && o.before(int32(s), slot) {
			n++
		}
	}
	return n
}
