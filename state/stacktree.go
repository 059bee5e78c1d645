package state

import (
	"encoding/binary"
	"math"
	"time"
)

// The call tree: every stack the source reports, folded into a trie of
// frames, root first, one subtree per thread — the sampled stacks of a
// sampling profiler (each with its weight), and, for an instrumenting one,
// the open calls of a thread at each method exit (with the call's self
// time). A node holds the self weight of what ended at it (ns: sampled CPU
// time, or the self time of calls) and its count (samples, or calls);
// totals are sums over subtrees, made when a tree is built.
//
// A second trie, merged over the threads, is kept alongside: every node of
// a thread's subtree knows its counterpart there, so that the tree of all
// threads (or of some) costs one addition per node to build, and no map.
// Nodes are never removed, so their numbers stay valid for the history's
// deltas. Their count is bounded (Options.MaxTreeNodes): a stack that would
// need more is cut at its deepest known frame, and what was cut is counted.
//
// Like the methods, the tree is kept since the start and over the window,
// in one-second buckets; the closed buckets are what the history records.

// treeFig is a weight and a count.
type treeFig struct{ w, n int64 }

func (f *treeFig) add(o treeFig) { f.w += o.w; f.n += o.n }
func (f treeFig) zero() bool     { return f.w == 0 && f.n == 0 }

// NodeFig is what a node of the call tree got over some span: self weight
// W (ns; 0 when the source gives no weight) and count N (samples, calls).
type NodeFig struct {
	Node int32
	W, N int64
}

// frameNode is one node of a thread's subtree. Immutable once made.
type frameNode struct {
	parent int32 // -1: the thread's root
	slot   int32 // method slot; -1 for a thread's root
	merged int32 // counterpart in the merged trie; -1 for a thread's root
	root   int32 // the thread's root node
}

// mergedNode is one node of the trie merged over threads. Immutable once made.
type mergedNode struct {
	parent int32 // -1: a child of the root
	slot   int32
}

// nodeLinks finds a node's children: kept apart from frameNode (which
// shapes share) and small, so that a lookup touches one cache line.
type nodeLinks struct {
	slot    int32 // the node's method slot, as in frameNode
	last    int32 // the child found last (stacks repeat: it is often the next one)
	kid     int32 // its first child (-1: none), the latest found first
	sibling int32 // its parent's next child
}

// nodeFigs are a node's weights since the start (or the latest reset),
// over the closed buckets of the window, and in the open second.
type nodeFigs struct{ cum, win, cur treeFig }

// closedBucket is one second of the window: the nodes that got weight in
// it, varint-packed (the node as its distance from the entry before, its
// weight, its count): about 6 bytes an entry instead of NodeFig's 24, for
// a tree that may have 100,000 nodes touched each second of the window.
type closedBucket struct {
	seq    uint64
	packed []byte
	start  time.Time
}

// appendFig adds one node's figures to a packed bucket; prev is the node
// of the entry before (0 for the first).
func appendFig(b []byte, prev int32, f NodeFig) []byte {
	b = binary.AppendVarint(b, int64(f.Node)-int64(prev))
	b = binary.AppendVarint(b, f.W)
	return binary.AppendVarint(b, f.N)
}

// each calls fn with every entry of the bucket, in the order they were added.
func (b *closedBucket) each(fn func(NodeFig)) {
	p := b.packed
	var node int64
	for len(p) > 0 {
		d, n := binary.Varint(p)
		p = p[n:]
		w, n := binary.Varint(p)
		p = p[n:]
		c, n := binary.Varint(p)
		p = p[n:]
		node += d
		fn(NodeFig{Node: int32(node), W: w, N: c})
	}
}

// stackTree is the trie and its weights. Not safe for concurrent use: the
// aggregator's lock guards it.
type stackTree struct {
	off    bool // none is kept (Options.NoCallTree): calls and stacks pass it by
	limit  int
	nodes  []frameNode
	mnodes []mergedNode
	links  []nodeLinks // by node: how to find its children, on the hot path
	kids   pairTable   // parent node, slot -> node, for parents of many children
	// crowded marks (a bit a node) the parents found to have more children
	// than a walk looks at: their children are looked up in kids at once,
	// not after a walk of cache misses that cannot find them.
	crowded []uint64
	// lastOf is, by method slot, the node plus one where that method was
	// last found or made: a method is mostly called from one caller, and
	// this finds its node with a read of the node itself, not a probe of
	// kids (a cache miss of its own in a wide tree).
	lastOf []int32
	mkids  pairTable // merged parent+1, slot -> merged node
	owners map[int32]*thread

	figs     []nodeFigs // by node
	touched  []int32    // nodes with weight in cur
	cut      treeFig    // stacks cut at the node bound
	used     bool       // a stack has arrived
	weighted bool       // a stack with a weight has arrived

	bucketWidth time.Duration
	buckets     []closedBucket
	maxBuckets  int
	bucketEnd   time.Time
	dueNs       int64       // bucketEnd in nanoseconds, 0 before it is set (as methodTable's)
	origin      *treeOrigin // what the history's pictures of this tree share
	seq         uint64      // of the latest closed bucket
	resets      uint64      // how many times the figures were reset
}

func (st *stackTree) init(window time.Duration, limit int) {
	if st.off {
		st.dueNs = math.MaxInt64 // never due: the methods' window rotates alone
	}
	st.origin = &treeOrigin{}
	st.limit = limit
	st.owners = map[int32]*thread{}
	st.bucketWidth = time.Second
	st.maxBuckets = max(int(window/st.bucketWidth)-1, 1)
}

// full says no node may be added.
func (st *stackTree) full() bool { return len(st.nodes)+len(st.mnodes) >= st.limit }

// threadRoot is the root of a thread's subtree (-1 when the bound is reached).
func (st *stackTree) threadRoot(t *thread) int32 {
	if t.treeRoot > 0 {
		return t.treeRoot - 1
	}
	if st.full() {
		return -1
	}
	n := int32(len(st.nodes))
	st.nodes = append(st.nodes, frameNode{parent: -1, slot: -1, merged: -1, root: n})
	st.grow()
	st.owners[n] = t
	t.treeRoot = n + 1
	return n
}

// grow extends the per-node tables to the nodes.
func (st *stackTree) grow() {
	st.links = append(st.links, nodeLinks{slot: st.nodes[len(st.nodes)-1].slot, last: -1, kid: -1, sibling: -1})
	st.figs = append(st.figs, nodeFigs{})
}

// child is the node for slot under parent, made if need be (-1 when the
// bound is reached).
func (st *stackTree) child(parent, slot int32) int32 {
	links := st.links
	if k := links[parent].last; k >= 0 && links[k].slot == slot {
		return k
	}
	if uint(slot) < uint(len(st.lastOf)) { // a method not tracked (-1) has none
		if k := st.lastOf[slot] - 1; k >= 0 && st.nodes[k].parent == parent && st.nodes[k].slot == slot {
			links[parent].last = k
			return k
		}
	}
	// Most frames have a few callees: a short walk of the children, the
	// latest found first, costs less than a map; a parent of many
	// children falls back to the map.
	if !st.isCrowded(parent) {
		prev, k, n := int32(-1), links[parent].kid, 0
		for ; k >= 0 && n < maxWalk; k, n = links[k].sibling, n+1 {
			if links[k].slot == slot {
				if prev >= 0 { // to the front
					links[prev].sibling, links[k].sibling, links[parent].kid = links[k].sibling, links[parent].kid, k
				}
				links[parent].last = k
				return k
			}
			prev = k
		}
		if k >= 0 {
			st.markCrowded(parent) // more children than a walk looks at
		}
	}
	if k, ok := st.kids.get(parent, slot, st.kidKey); ok {
		links[parent].last = k
		st.remember(slot, k)
		return k
	}
	// Room for the node, and for its counterpart when that is new too.
	need := 1
	if _, ok := st.mkids.get(st.nodes[parent].merged+1, slot, st.mergedKey); !ok {
		need = 2
	}
	if len(st.nodes)+len(st.mnodes)+need > st.limit {
		return -1
	}
	m := st.mergedChild(st.nodes[parent].merged, slot)
	n := int32(len(st.nodes))
	st.nodes = append(st.nodes, frameNode{parent: parent, slot: slot, merged: m, root: st.nodes[parent].root})
	st.grow()
	st.kids.add(n, st.kidKey)
	st.links[parent].last = n
	st.remember(slot, n)
	st.links[n].sibling, st.links[parent].kid = st.links[parent].kid, n
	return n
}

// remember files node as where slot was last found.
func (st *stackTree) remember(slot, node int32) {
	if slot < 0 {
		return
	}
	if int(slot) >= len(st.lastOf) {
		st.lastOf = append(st.lastOf, make([]int32, int(slot)+1-len(st.lastOf))...)
	}
	st.lastOf[slot] = node + 1
}

// kidKey is what a node is filed under in kids: its parent and slot.
func (st *stackTree) kidKey(n int32) (int32, int32) { return st.nodes[n].parent, st.nodes[n].slot }

// mergedKey is what a merged node is filed under in mkids: its parent + 1
// (a child of the root has parent -1) and slot.
func (st *stackTree) mergedKey(n int32) (int32, int32) {
	return st.mnodes[n].parent + 1, st.mnodes[n].slot
}

// maxWalk is how many children child looks at before the map.
const maxWalk = 8

func (st *stackTree) isCrowded(node int32) bool {
	w := int(node) / 64
	return w < len(st.crowded) && st.crowded[w]&(1<<(uint(node)%64)) != 0
}

func (st *stackTree) markCrowded(node int32) {
	w := int(node) / 64
	if w >= len(st.crowded) {
		st.crowded = append(st.crowded, make([]uint64, w+1-len(st.crowded))...)
	}
	st.crowded[w] |= 1 << (uint(node) % 64)
}

func (st *stackTree) mergedChild(parent, slot int32) int32 {
	if k, ok := st.mkids.get(parent+1, slot, st.mergedKey); ok {
		return k
	}
	n := int32(len(st.mnodes))
	st.mnodes = append(st.mnodes, mergedNode{parent: parent, slot: slot})
	st.mkids.add(n, st.mergedKey)
	return n
}

// add gives a node weight w and count n.
func (st *stackTree) add(node int32, w, n int64) {
	f := treeFig{w, n}
	nf := &st.figs[node]
	nf.cum.add(f)
	if nf.cur.zero() {
		st.touched = append(st.touched, node)
	}
	nf.cur.add(f)
	st.used = true
	if w > 0 {
		st.weighted = true
	}
}

// addStack adds a stack of method slots (innermost first) of a thread.
func (st *stackTree) addStack(t *thread, slots []int32, w, n int64) {
	if st.off {
		return
	}
	node := st.threadRoot(t)
	if node < 0 {
		st.cut.add(treeFig{w, n})
		return
	}
	for i := len(slots) - 1; i >= 0; i-- {
		c := st.child(node, slots[i])
		if c < 0 {
			st.cut.add(treeFig{w, n})
			break
		}
		node = c
	}
	st.add(node, w, n)
}

// enter is the node of a call of slot made by a thread: under its caller's
// node, or its root. cut says the bound was reached: the call's weight
// goes to the node returned, its caller.
func (st *stackTree) enter(t *thread, slot int32) (node int32, cut bool) {
	if st.off {
		return -1, false
	}
	parent := int32(-1)
	if n := len(t.calls); n > 0 {
		parent = t.calls[n-1].node
	} else {
		parent = st.threadRoot(t)
	}
	if parent < 0 {
		return -1, true
	}
	if slot < 0 {
		// A method the full table does not track: its time stays with its caller.
		return parent, true
	}
	if c := st.child(parent, slot); c >= 0 {
		return c, false
	}
	return parent, true
}

// exit adds a finished call's self time at its node.
func (st *stackTree) exit(c *openCall, self int64) {
	if c.cut {
		st.cut.add(treeFig{self, 1})
	}
	if c.node >= 0 {
		st.add(c.node, self, 1)
	}
}

// rotate closes the seconds that have passed into the window.
func (st *stackTree) rotate(now time.Time) {
	if st.off {
		st.dueNs = math.MaxInt64 // no second to close: never due
		return
	}
	defer func() { st.dueNs = st.bucketEnd.UnixNano() }()
	if st.bucketEnd.IsZero() {
		st.bucketEnd = now.Truncate(st.bucketWidth).Add(st.bucketWidth)
		return
	}
	for n := 0; !now.Before(st.bucketEnd); n++ {
		if n > st.maxBuckets {
			// Idle for longer than the window: close what is open, the rest has expired.
			st.closeBucket()
			st.bucketEnd = now.Truncate(st.bucketWidth).Add(st.bucketWidth)
			return
		}
		st.closeBucket()
		st.bucketEnd = st.bucketEnd.Add(st.bucketWidth)
	}
}

func (st *stackTree) closeBucket() {
	var packed []byte
	if len(st.buckets) >= st.maxBuckets {
		old := st.buckets[0]
		st.buckets = st.buckets[:copy(st.buckets, st.buckets[1:])]
		old.each(func(f NodeFig) { st.figs[f.Node].win.add(treeFig{-f.W, -f.N}) })
		packed = old.packed[:0]
	}
	var prev int32
	for _, node := range st.touched {
		nf := &st.figs[node]
		c := nf.cur
		packed = appendFig(packed, prev, NodeFig{Node: node, W: c.w, N: c.n})
		prev = node
		nf.win.add(c)
		nf.cur = treeFig{}
	}
	st.touched = st.touched[:0]
	st.seq++
	st.buckets = append(st.buckets, closedBucket{seq: st.seq, packed: packed, start: st.bucketEnd.Add(-st.bucketWidth)})
}

// closedSince copies the weights of the buckets closed after seq, and
// says where each bucket's end in them; and returns the latest bucket's
// number.
func (st *stackTree) closedSince(seq uint64) ([]NodeFig, []TreeSecond, uint64) {
	var out []NodeFig
	var seconds []TreeSecond
	for i := range st.buckets {
		if b := &st.buckets[i]; b.seq > seq {
			b.each(func(f NodeFig) { out = append(out, f) })
			seconds = append(seconds, TreeSecond{Start: b.start.UnixNano(), End: int32(len(out))})
		}
	}
	return out, seconds, st.seq
}

// openStart is when the second still open began, in Unix nanoseconds (0:
// none has begun).
func (st *stackTree) openStart() int64 {
	if st.bucketEnd.IsZero() {
		return 0
	}
	return st.bucketEnd.Add(-st.bucketWidth).UnixNano()
}

// open lists the weights of the second still open (not yet a bucket).
func (st *stackTree) open() []NodeFig {
	out := make([]NodeFig, 0, len(st.touched))
	for _, n := range st.touched {
		if f := st.figs[n].cur; !f.zero() {
			out = append(out, NodeFig{Node: n, W: f.w, N: f.n})
		}
	}
	return out
}

func (st *stackTree) reset() {
	clear(st.figs)
	st.touched = st.touched[:0]
	st.buckets = st.buckets[:0]
	st.cut = treeFig{}
	st.resets++
}

// weights lists the nodes with weight: since the start, or over the window.
func (st *stackTree) weights(recent bool) []NodeFig {
	var out []NodeFig
	for i := range st.figs {
		f := st.figs[i].cum
		if recent {
			f = st.figs[i].win
			f.add(st.figs[i].cur)
		}
		if !f.zero() {
			out = append(out, NodeFig{Node: int32(i), W: f.w, N: f.n})
		}
	}
	return out
}

// shape captures the tries' structure as it is now, for building trees
// off the lock: the node tables are only ever appended to.
func (st *stackTree) shape(names []string) TreeShape {
	threads := make(map[int32]TreeThread, len(st.owners))
	for n, t := range st.owners {
		threads[n] = TreeThread{ID: t.id, Name: t.name}
	}
	return TreeShape{nodes: st.nodes[:len(st.nodes):len(st.nodes)], mnodes: st.mnodes[:len(st.mnodes):len(st.mnodes)],
		names: names, threads: threads, weighted: st.weighted, cut: st.cut, limit: st.limit, origin: st.origin}
}

// TreeShape is the structure of the call tree at one moment: its nodes,
// the names of their methods and their threads. It never changes, and
// stays valid for the weights of any earlier moment.
type TreeShape struct {
	nodes    []frameNode
	mnodes   []mergedNode
	names    []string
	threads  map[int32]TreeThread
	weighted bool
	cut      treeFig
	limit    int
	origin   *treeOrigin // the live tree's, for the pictures taken of it
}

// Nodes is how many nodes the tree has (threads' and merged).
func (s *TreeShape) Nodes() int { return len(s.nodes) + len(s.mnodes) }

// TreeThread is a thread with stacks in the call tree.
type TreeThread struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Total int64  `json:"total,omitempty"` // its weight in the tree built (ns, or counts)
	Count int64  `json:"count,omitempty"` // its samples or calls
	Root  int32  `json:"-"`               // its root node in the shape
}

// TreeAndShape returns the call tree's structure and its weights since the
// start (or the latest reset) or over the window (recent): what
// BuildCallTree needs, taken under the lock so that the tree itself is
// built off it.
func (a *Aggregator) TreeAndShape(recent bool) (TreeShape, []NodeFig) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.methods.shared = true // the names slice is shared from now on
	return a.tree.shape(a.methods.names), a.tree.weights(recent)
}

// TreeSecond is one second of the call tree's weights a picture holds:
// when it began, in Unix nanoseconds, and where its weights end in the
// list (they begin where the second before ends).
type TreeSecond struct {
	Start int64
	End   int32
}

// TreeChange is what the history records of the call tree at a picture.
type TreeChange struct {
	Closed    []NodeFig    // the weights of the seconds closed since the bucket asked for
	Seconds   []TreeSecond // those seconds, oldest first
	Open      []NodeFig    // the weights of the second still open
	OpenStart int64        // when it began, in Unix nanoseconds (0: none has)
	Latest    uint64       // the latest bucket's number
	Resets    uint64       // how many times the figures were reset
	origin    *treeOrigin
}

// TreeDelta returns the call tree's seconds closed since bucket seq (0:
// every bucket still in the window), the second still open, and the
// tree's origin: what the history records.
func (a *Aggregator) TreeDelta(seq uint64) TreeChange {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := TreeChange{Open: a.tree.open(), OpenStart: a.tree.openStart(), Resets: a.tree.resets, origin: a.tree.origin}
	c.Closed, c.Seconds, c.Latest = a.tree.closedSince(seq)
	return c
}

// HasStacks says the source reports stacks the call tree can be made of.
func (a *Aggregator) HasStacks() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tree.used
}
