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
	keep := func(slot int32) {
		if slot >= 0 && int(slot) < len(names) && names[slot] == "" {
			names[slot] = strings.Clone(a.methods.names[slot])
		}
	}
	for i := range sh.nodes {
		keep(sh.nodes[i].slot)
	}
	for i := range sh.mnodes {
		keep(sh.mnodes[i].slot)
	}
	sh.names = names
	a.tree.origin.left.Store(&sh)
	a.leftTrees = append(a.leftTrees, a.tree.origin)
	if len(a.leftTrees) > maxLeftTrees {
		a.leftTrees[0].left.Store(&TreeShape{}) // its pictures' weights weigh no node now
		a.leftTrees = append(a.leftTrees[:0], a.leftTrees[1:]...)
	}
}

// ownShape is the shape a picture's weights are numbered in when it is
// not the live tree's: its own (read back from a bundle), or the one its
// tree left; nil while its tree is live.
func (p *Picture) ownShape() *TreeShape {
	if p.Shape != nil {
		return p.Shape
	}
	if p.origin != nil {
		return p.origin.left.Load()
	}
	return nil
}

// shapeOf is the shape a picture's weights are numbered in: its own, or
// live's. nil when live is not its tree and its tree left none yet (a
// picture taken after live). Its own is looked at after live was taken:
// a restart keeps the shape it replaces before the tree is replaced.
func (p *Picture) shapeOf(live *TreeShape) *TreeShape {
	if sh := p.ownShape(); sh != nil {
		return sh
	}
	if p.origin != nil && live.origin != nil && live.origin != p.origin {
		return nil
	}
	return live
}
