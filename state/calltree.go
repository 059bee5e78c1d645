package state

import (
	"slices"

	"github.com/proftop/proftop/decode"
)

// Instrumented call trees (a ProfilerJ snapshot's profile): each node is a
// Sample with the SampleCalls flag, turned here into measured calls. A
// source that also samples has a second view of its methods, the sampled
// frames, kept apart (frameSlot) and totalled apart.

// twoViews says the methods come in two views: measured calls, and stack
// samples of the same source.
func (mt *methodTable) twoViews() bool { return mt.measured && mt.sampledToo }

// selfTotals is the self time of every method listed: of the measured
// ones and of the sampled ones; and the stack samples (each on top of one
// method) they count.
type selfTotals struct{ measured, sampled, samples int64 }

// treeNode is what a node of a measured call tree says of its method, in
// ns: calls, its own time, and, when the source says them (else -1), its
// cumulated time, its own CPU time and its cumulated CPU time.
type treeNode struct {
	calls, self, total, cpu, totalCPU int64
}

// treeNodeOf reads a Sample that is a node of a measured call tree.
func treeNodeOf(e *decode.Sample, d func(decode.Ticks) int64) treeNode {
	n := treeNode{calls: max(e.Count, 0), self: max(d(e.Weight), 0), total: -1, cpu: -1, totalCPU: -1}
	if e.Flags&decode.SampleTotal != 0 {
		n.total = max(d(e.Total), 0)
	}
	if e.Flags&decode.SampleCPU != 0 {
		n.cpu = max(d(e.CPU), 0)
	}
	if e.Flags&decode.SampleTotalCPU != 0 {
		n.totalCPU = max(d(e.TotalCPU), 0)
	}
	return n
}

// callTreeNode adds a node of a measured call tree: its stack is the
// node's path, innermost first. The method gets the calls, the own time
// and CPU; the frame below is the caller. Its total time (and CPU) is the
// node's cumulated time as the source measured it, where the method is not
// already on the path below (a recursive call's time is inside the
// outermost one's); a source that does not say it has every method on the
// path (once, however often it recurs) take the node's own time as part of
// its total instead. Summed over the nodes, a method's calls are those of
// every node where it appears, and its total time that of its subtrees.
func (mt *methodTable) callTreeNode(st *decode.Stack, n treeNode) {
	if len(st.Methods) == 0 {
		return
	}
	slots := mt.frameSlots(st, true)
	if len(slots) > 1 && n.calls > 0 {
		mt.called(slots[0], slots[1], n.calls)
	}
	if n.total >= 0 {
		if slots[0] < 0 {
			return // not tracked: its share is left out
		}
		total, cpu := n.total, n.totalCPU
		if slices.Contains(slots[1:], slots[0]) {
			total, cpu = 0, min(cpu, 0) // inside its outermost call, which counts it
		}
		mt.record(slots[0], n.calls, n.self, total, -1, -1, cpu)
		mt.recordOwnCPU(slots[0], n.cpu)
		return
	}
	mt.mark++
	for i, slot := range slots {
		if slot < 0 {
			continue // not tracked: its share is left out
		}
		in := mt.info.at(slot)
		if in.mark == mt.mark {
			continue
		}
		in.mark = mt.mark
		if i == 0 {
			mt.record(slot, n.calls, n.self, n.self, -1, -1, -1)
			mt.recordOwnCPU(slot, n.cpu)
		} else {
			mt.record(slot, 0, 0, n.self, -1, -1, -1)
		}
	}
}
