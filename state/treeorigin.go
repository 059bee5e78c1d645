package state

import (
	"strings"
	"sync/atomic"
)

// treeOrigin is the call tree a picture's weights are numbered in. The
// pictures of one tree share it; while the tree is live its shape is the
// aggregator's, and once a restart makes the tree anew (the source started
// over), the shape the old tree left is kept here, so that the pictures
// taken of it still name its methods. Pictures are never changed: they
// find the shape through their origin.
type treeOrigin struct {
	left atomic.Pointer[TreeShape] // nil while the tree is live
}

// maxLeftTrees bounds the trees left by restarts whose shapes are kept
// for the history's pictures: a file replaced again and again keeps the
// latest few, and the moments before them show no call tree.
const maxLeftTrees = 4

// leaveTree keeps the shape of the tree a restart replaces in its origin,
// for the pictures taken of it, and drops the shape of the oldest tree
// kept beyond maxLeftTrees. Only the names the tree's nodes use are kept,
// copied: the old method table's names share its keys' bytes.
func (a *Aggregator) leaveTree() {
	sh := a.tree.shape(nil)
	names := make([]string, len(a.methods.names))
	for _, nodes := range [][]int32{slotsOf(sh.nodes), mergedSlotsOf(sh.mnodes)} {
		for _, slot := range nodes {
			if slot >= 0 && int(slot) < len(names) && names[slot] == "" {
				names[slot] = strings.Clone(a.methods.names[slot])
			}
		}
	}
	sh.names = names
	a.tree.origin.left.Store(&sh)
	a.leftTrees = append(a.leftTrees, a.tree.origin)
	if len(a.leftTrees) > maxLeftTrees {
		a.leftTrees[0].left.Store(&TreeShape{}) // its pictures' weights weigh no node now
		a.leftTrees = append(a.leftTrees[:0], a.leftTrees[1:]...)
	}
}

func slotsOf(nodes []frameNode) []int32 {
	out := make([]int32, len(nodes))
	for i := range nodes {
		out[i] = nodes[i].slot
	}
	return out
}

func mergedSlotsOf(nodes []mergedNode) []int32 {
	out := make([]int32, len(nodes))
	for i := range nodes {
		out[i] = nodes[i].slot
	}
	return out
}

// shapeOf is the shape a picture's weights are numbered in: its own (read
// back from a bundle), the one its tree left, or live's. nil when live is
// not its tree and its tree left none yet (a picture taken after live).
func (p *Picture) shapeOf(live *TreeShape) *TreeShape {
	if p.Shape != nil {
		return p.Shape
	}
	if p.origin != nil {
		if sh := p.origin.left.Load(); sh != nil {
			return sh
		}
		if live.origin != nil && live.origin != p.origin {
			return nil
		}
	}
	return live
}
