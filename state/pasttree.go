package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// The call trees of past moments, carried by a bundle. A picture's Tree
// numbers the nodes of the tree that recorded it, which only that
// aggregator knows: a bundle writes, beside the history, the part of the
// tree's shape its pictures give weight to (those nodes and their
// ancestors, numbered anew), then each picture's weights in that
// numbering. Read back, the pictures share that shape, and a reopened
// bundle's past moments have their call trees. The file is bounded as the
// history is: its weights are the pictures' own (counted in the history's
// bytes), its nodes at most the tree's bound.
//
// As JSON lines: first the shape —
//
//	{"weighted":true,"methods":["a.B.c",…],"threads":[{"id":7,"name":"main"},…],
//	 "nodes":[-1,0, 0,3, …]}
//
// two numbers a node, parents before their children: its parent (-1 for
// a thread's root) and its method (for a root, its thread) — then a line
// a picture with weights, {"at":…,"reset":false,"figs":[node,w,n,…],
// "seconds":[start,end,…],"open":[node,w,n,…],"openAt":start}: the
// seconds its figs hold (when each began, in Unix ns, and where its
// weights end, counted in nodes), the second still open and when it began.
// A bundle of an earlier proftop has neither seconds nor openAt.

// PastTrees is a history's call-tree weights, ready to be written.
type PastTrees struct {
	shape   *TreeShape
	pics    []*Picture
	renum   []int32 // node in shape -> node written (-1: left out)
	nodes   []int32 // nodes written, in shape's numbering
	methods []int32 // slots written, in order
	threads []int32 // roots written, in order
	byRoot  map[int32]int32
	bySlot  map[int32]int32
}

// NewPastTrees gathers the weights of the pictures of the latest tree
// they were recorded in (a picture read back has its own shape, one taken
// before the source started over has the shape its tree left, the others
// are live's): the pictures of an earlier tree are left out.
func NewPastTrees(pics []*Picture, live TreeShape) *PastTrees {
	pt := &PastTrees{byRoot: map[int32]int32{}, bySlot: map[int32]int32{}}
	weighed := func(p *Picture) bool { return len(p.Tree) > 0 || len(p.TreeOpen) > 0 || p.TreeReset }
	for i := len(pics) - 1; i >= 0 && pt.shape == nil; i-- {
		if p := pics[i]; weighed(p) {
			pt.shape = p.shapeOf(&live) // nil: taken after live, left out
		}
	}
	for _, p := range pics {
		if !weighed(p) || p.shapeOf(&live) != pt.shape {
			continue // another tree's
		}
		pt.pics = append(pt.pics, p)
	}
	if pt.shape == nil {
		return pt
	}
	sh := pt.shape
	pt.renum = make([]int32, len(sh.nodes))
	for i := range pt.renum {
		pt.renum[i] = -1
	}
	// Mark the nodes weighed and their ancestors, then number them in the
	// shape's order: parents come before their children there too.
	for _, p := range pt.pics {
		for _, list := range [][]NodeFig{p.Tree, p.TreeOpen} {
			for _, f := range list {
				for n := f.Node; n >= 0 && int(n) < len(sh.nodes) && pt.renum[n] < 0; n = sh.nodes[n].parent {
					pt.renum[n] = 0
				}
			}
		}
	}
	for n := range pt.renum {
		if pt.renum[n] < 0 {
			continue
		}
		pt.renum[n] = int32(len(pt.nodes))
		pt.nodes = append(pt.nodes, int32(n))
		fn := &sh.nodes[n]
		if fn.parent < 0 {
			pt.byRoot[int32(n)] = int32(len(pt.threads))
			pt.threads = append(pt.threads, int32(n))
		} else if _, ok := pt.bySlot[fn.slot]; !ok {
			pt.bySlot[fn.slot] = int32(len(pt.methods))
			pt.methods = append(pt.methods, fn.slot)
		}
	}
	return pt
}

// Pictures is how many pictures have weights to write.
func (pt *PastTrees) Pictures() int { return len(pt.pics) }

// Nodes is how many nodes are written.
func (pt *PastTrees) Nodes() int { return len(pt.nodes) }

type pastShapeJSON struct {
	Weighted bool         `json:"weighted"`
	Methods  []string     `json:"methods"`
	Threads  []TreeThread `json:"threads"`
	Nodes    []int32      `json:"nodes"`
}

type pastFigsJSON struct {
	At    time.Time `json:"at"`
	Reset bool      `json:"reset,omitempty"`
	Figs  []int64   `json:"figs"`
	// Seconds are Picture.TreeSeconds, two numbers each: when the second
	// began, and where its weights end in Figs (in nodes, not numbers).
	Seconds []int64 `json:"seconds,omitempty"`
	Open    []int64 `json:"open,omitempty"`   // the second still open (Picture.TreeOpen)
	OpenAt  int64   `json:"openAt,omitempty"` // when it began (Picture.TreeOpenStart)
}

// Write writes the shape, then a line a picture. It writes the same
// bytes every time (a bundle counts them first).
func (pt *PastTrees) Write(w io.Writer) error {
	if pt.shape == nil {
		return nil
	}
	sh := pt.shape
	head := pastShapeJSON{Weighted: sh.weighted, Methods: make([]string, len(pt.methods)),
		Threads: make([]TreeThread, len(pt.threads)), Nodes: make([]int32, 0, 2*len(pt.nodes))}
	for i, slot := range pt.methods {
		if int(slot) < len(sh.names) {
			head.Methods[i] = sh.names[slot]
		}
	}
	for i, root := range pt.threads {
		t := sh.threads[root]
		head.Threads[i] = TreeThread{ID: t.ID, Name: t.Name}
	}
	for _, n := range pt.nodes {
		fn := &sh.nodes[n]
		if fn.parent < 0 {
			head.Nodes = append(head.Nodes, -1, pt.byRoot[n])
		} else {
			head.Nodes = append(head.Nodes, pt.renum[fn.parent], pt.bySlot[fn.slot])
		}
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(head); err != nil {
		return err
	}
	var figs, open, seconds []int64
	numbered := func(out []int64, list []NodeFig) []int64 {
		for _, f := range list {
			if f.Node >= 0 && int(f.Node) < len(pt.renum) {
				out = append(out, int64(pt.renum[f.Node]), f.W, f.N)
			}
		}
		return out
	}
	for _, p := range pt.pics {
		figs, seconds = figs[:0], seconds[:0]
		begin := int32(0)
		for _, s := range p.TreeSeconds {
			// A second's end is counted in what is written: a weight of a
			// node left out is not.
			if s.End >= begin && int(s.End) <= len(p.Tree) {
				figs = numbered(figs, p.Tree[begin:s.End])
				begin = s.End
			}
			seconds = append(seconds, s.Start, int64(len(figs)/3))
		}
		figs = numbered(figs, p.Tree[begin:])
		open = numbered(open[:0], p.TreeOpen)
		line := pastFigsJSON{At: p.At, Reset: p.TreeReset, Figs: figs, Seconds: seconds, Open: open, OpenAt: p.TreeOpenStart}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// maxPastTreeLine bounds a line read back: the shape's line holds up to
// the tree's bound of nodes and their methods' names.
const maxPastTreeLine = 64 << 20

// ReadPastTrees reads what Write wrote and gives each picture of pics (by
// its time) its weights, in the shape read, which they share.
func ReadPastTrees(r io.Reader, pics []*Picture) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxPastTreeLine)
	if !sc.Scan() {
		return scanErr(sc.Err(), 1)
	}
	var head pastShapeJSON
	if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
		return fmt.Errorf("line 1: %v", err)
	}
	shape, err := head.shape()
	if err != nil {
		return fmt.Errorf("line 1: %v", err)
	}
	byTime := make(map[int64]*Picture, len(pics))
	for _, p := range pics {
		byTime[p.At.UnixNano()] = p
		p.Shape = shape // a picture without weights too: its window may hold some
	}
	for n := 2; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var f pastFigsJSON
		if err := json.Unmarshal(line, &f); err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		p := byTime[f.At.UnixNano()]
		if p == nil {
			continue // a picture the history.jsonl read does not have
		}
		p.TreeReset, p.Shape = f.Reset, shape
		if p.Tree, err = readNodeFigs(f.Figs, shape, n, "figs"); err != nil {
			return err
		}
		if p.TreeOpen, err = readNodeFigs(f.Open, shape, n, "open"); err != nil {
			return err
		}
		if p.TreeSeconds, err = readSeconds(f.Seconds, len(p.Tree), n); err != nil {
			return err
		}
		p.TreeOpenStart = f.OpenAt
		p.bytes = pictureBytes(p)
	}
	return scanErr(sc.Err(), 0)
}

// readNodeFigs reads a line's list of weights, a node, a weight and a count
// each, the nodes of shape.
func readNodeFigs(nums []int64, shape *TreeShape, line int, field string) ([]NodeFig, error) {
	if len(nums)%3 != 0 {
		return nil, fmt.Errorf("line %d: %q: %d numbers, not a node, a weight and a count each", line, field, len(nums))
	}
	out := make([]NodeFig, 0, len(nums)/3)
	for i := 0; i < len(nums); i += 3 {
		node := nums[i]
		if node < 0 || node >= int64(len(shape.nodes)) {
			return nil, fmt.Errorf("line %d: %q: node %d, of %d", line, field, node, len(shape.nodes))
		}
		out = append(out, NodeFig{Node: int32(node), W: nums[i+1], N: nums[i+2]})
	}
	return out, nil
}

// readSeconds reads a line's seconds, a start and an end each, the ends
// in order and within the figs' nodes.
func readSeconds(nums []int64, nodes int, line int) ([]TreeSecond, error) {
	if len(nums)%2 != 0 {
		return nil, fmt.Errorf("line %d: \"seconds\": %d numbers, not a start and an end each", line, len(nums))
	}
	out := make([]TreeSecond, 0, len(nums)/2)
	prev := int64(0)
	for i := 0; i < len(nums); i += 2 {
		end := nums[i+1]
		if end < prev || end > int64(nodes) {
			return nil, fmt.Errorf("line %d: \"seconds\": second %d ends at node %d, after %d, of %d", line, i/2, end, prev, nodes)
		}
		out = append(out, TreeSecond{Start: nums[i], End: int32(end)})
		prev = end
	}
	return out, nil
}

func scanErr(err error, line int) error {
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("a line is longer than %d bytes", maxPastTreeLine)
	case err != nil:
		return err
	case line == 1:
		return errors.New("empty: no shape on its first line")
	}
	return nil
}

// shape rebuilds the tree's shape: the threads' subtrees as written, and
// the trie merged over them.
func (h *pastShapeJSON) shape() (*TreeShape, error) {
	if len(h.Nodes)%2 != 0 {
		return nil, fmt.Errorf("%d numbers for the nodes, not two a node", len(h.Nodes))
	}
	n := len(h.Nodes) / 2
	sh := &TreeShape{nodes: make([]frameNode, 0, n), names: h.Methods, threads: map[int32]TreeThread{}, weighted: h.Weighted}
	var mkids pairTable
	mergedKey := func(m int32) (int32, int32) { return sh.mnodes[m].parent + 1, sh.mnodes[m].slot }
	for i := range n {
		parent, x := h.Nodes[2*i], h.Nodes[2*i+1]
		if parent < 0 {
			if x < 0 || int(x) >= len(h.Threads) {
				return nil, fmt.Errorf("node %d: thread %d, of %d", i, x, len(h.Threads))
			}
			t := h.Threads[x]
			sh.threads[int32(i)] = TreeThread{ID: t.ID, Name: t.Name}
			sh.nodes = append(sh.nodes, frameNode{parent: -1, slot: -1, merged: -1, root: int32(i)})
			continue
		}
		if int(parent) >= i || x < 0 || int(x) >= len(h.Methods) {
			return nil, fmt.Errorf("node %d: parent %d, method %d", i, parent, x)
		}
		p := &sh.nodes[parent]
		m, ok := mkids.get(p.merged+1, x, mergedKey)
		if !ok {
			m = int32(len(sh.mnodes))
			sh.mnodes = append(sh.mnodes, mergedNode{parent: p.merged, slot: x})
			mkids.add(m, mergedKey)
		}
		sh.nodes = append(sh.nodes, frameNode{parent: parent, slot: x, merged: m, root: p.root})
	}
	return sh, nil
}

// PastCallTree builds the call tree of the window that ended at the i-th
// picture, of the threads keep accepts (nil: all): in the shape the
// pictures were read back with, or else in live's, the tree that
// recorded them.
func PastCallTree(pics []*Picture, i int, window time.Duration, keep func(TreeThread) bool, live func() TreeShape) *CallTree {
	lists := TreeAt(pics, i, window)
	sh := pics[i].ownShape()
	if sh == nil { // the live tree's, unless a restart comes meanwhile
		l := live()
		if sh = pics[i].shapeOf(&l); sh == nil {
			sh = &TreeShape{}
		}
	}
	return BuildCallTree(*sh, keep, lists...)
}

// TreeShape returns the call tree's structure as it is now, for the
// weights the history recorded.
func (a *Aggregator) TreeShape() TreeShape {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.methods.shared = true // the names slice is shared from now on
	return a.tree.shape(a.methods.names)
}
