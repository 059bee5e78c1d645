package state

import "github.com/proftop/proftop/decode"

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

// callTreeNode adds a node of a measured call tree: its stack is the
// node's path, innermost first; calls the calls of the innermost frame's
// method from the frame below, self the time spent in it alone. The method
// gets the calls and the self time, every method on the path (once,
// however often it recurs) the self time as part of its total, and the
// frame below is the caller. Summed over the nodes, a method's calls are
// those of every node where it appears, and its total time that of its
// subtrees.
func (mt *methodTable) callTreeNode(st *decode.Stack, calls, self int64) {
	if len(st.Methods) == 0 {
		return
	}
	slots := mt.stackBuf[:0]
	for _, f := range st.Methods[:min(len(st.Methods), maxStackDepth)] {
		slots = append(slots, mt.frameSlot(f, true))
	}
	mt.stackBuf = slots
	mt.mark++
	for i, slot := range slots {
		if slot < 0 {
			continue // not tracked: its share is left out
		}
		in := &mt.info[slot]
		if in.mark == mt.mark {
			continue
		}
		in.mark = mt.mark
		if i == 0 {
			mt.record(slot, calls, self, self, -1, -1, -1)
		} else {
			mt.record(slot, 0, 0, self, -1, -1, -1)
		}
	}
	if len(slots) > 1 && calls > 0 {
		mt.called(slots[0], slots[1], calls)
	}
}
