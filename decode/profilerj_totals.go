package decode

import "fmt"

// A node of the instrumented call tree says its time three ways: its own
// (methodElapsed), its cumulated (cumulatedElapsed: its own and its
// callees', profiled or not), and, through its children, its profiled
// callees'; CPU time likewise (method, cumulated). Once a node's children
// are read, its cumulated figures are known (the file's, else its own
// plus its children's), checked against the others, and added to its
// parent's. Figures that contradict each other make the file absurd.

// nodeClosed completes a node of the instrumented tree when its element
// ends.
func (p *pjParser) nodeClosed(n *ProfilerJNode) error {
	switch {
	case n.CumulatedElapsed != absent:
		n.total = n.CumulatedElapsed
	case n.MethodElapsed != absent:
		n.total = n.MethodElapsed + n.children
	default:
		n.total = n.children
	}
	n.totalCPU = n.Cumulated
	if n.totalCPU == absent && n.Method != absent {
		n.totalCPU = n.Method + n.childrenCPU
	}
	if err := p.consistent(n, "methodElapsed", n.MethodElapsed, "cumulatedElapsed", n.CumulatedElapsed, n.children); err != nil {
		return err
	}
	if err := p.consistent(n, "method", n.Method, "cumulated", n.Cumulated, n.childrenCPU); err != nil {
		return err
	}
	if n.parent < 0 {
		return nil
	}
	parent := p.snap.nodes[n.parent]
	parent.children += n.total
	if n.totalCPU != absent {
		parent.childrenCPU += n.totalCPU
	}
	if parent.children > maxMicros || parent.childrenCPU > maxMicros {
		// Each is at most a century: two never overflow, and a sum beyond
		// a century is absurd already.
		return p.failAt(parent, "", "its calls' times add up to more than a century")
	}
	return nil
}

// consistent checks one pair of a node's figures (elapsed, or CPU):
// its own time within its cumulated time, its calls' cumulated times
// within it too, and both together.
func (p *pjParser) consistent(n *ProfilerJNode, ownName string, own int64, cumName string, cum, calls int64) error {
	if cum == absent {
		return nil
	}
	switch {
	case own != absent && own > cum:
		return p.failAt(n, ownName, fmt.Sprintf("%s=%d is above %s=%d: a method's own time is part of its cumulated time", ownName, own, cumName, cum))
	case calls > cum:
		return p.failAt(n, cumName, fmt.Sprintf("%s=%d is below its calls' %s, which add up to %d", cumName, cum, cumName, calls))
	case own != absent && own+calls > cum:
		return p.failAt(n, cumName, fmt.Sprintf("%s=%d is below %s=%d and its calls' %s (%d) together", cumName, cum, ownName, own, cumName, calls))
	}
	return nil
}

// failAt makes an error about a node, at the place its element begins.
func (p *pjParser) failAt(n *ProfilerJNode, field, detail string) error {
	return &Error{Err: ErrValue, Offset: n.off, Line: int(n.line), Column: int(n.col), Element: "profile", Field: field, Detail: detail, Fatal: true}
}
