package state

import "github.com/proftop/proftop/decode"

// The aggregator's working set outgrows the caches in a wide picture
// (10,000 threads, 100,000 methods, a call tree of 200,000 nodes), and
// each method event then waits on a handful of cache misses one after
// another: its thread, its open calls, its method's figures, the call
// tree's lookup. warm reads those of a run of events first, in a loop
// whose iterations do not depend on each other, so that the processor
// has the misses of many events in flight at once; applying them then
// finds the lines in the cache. It only reads, and what it reads for a
// later event may be out of date by then (an earlier event of the run
// changes it): that costs a wasted read, never a wrong figure.

// warmRun is how many events are warmed before they are applied: enough
// misses in flight to cover the memory's latency, few enough that their
// lines are still in the cache when applied.
const warmRun = 64

// warm reads ahead what applying events will touch.
func (a *Aggregator) warm(events []decode.Event) {
	var sink int64
	threads, mt, tree := &a.threads.byID, &a.methods, &a.tree
	for _, ev := range events {
		switch e := ev.(type) {
		case *decode.MethodEntry:
			t := threads.get(e.ThreadIDRef)
			if t == nil {
				continue
			}
			parent := t.treeRoot - 1
			if n := len(t.calls); n > 0 {
				parent = t.calls[n-1].node
			}
			slot, ok := mt.ids.get(e.MethodIDRef)
			if !ok || slot < 0 || int(slot) >= mt.stats.len() {
				continue
			}
			sink += mt.stats.at(slot).line
			if parent >= 0 && int(parent) < len(tree.links) {
				sink += int64(tree.links[parent].last)
				k := int32(-1)
				if int(slot) < len(tree.lastOf) {
					k = tree.lastOf[slot] - 1
				}
				if k < 0 || int(k) >= len(tree.nodes) || tree.nodes[k].parent != parent {
					k = tree.kids.peek(parent, slot)
				}
				if k >= 0 && int(k) < len(tree.nodes) {
					sink += int64(tree.nodes[k].slot) // the pair the lookup checks
				}
			}
		case *decode.MethodExit:
			t := threads.get(e.ThreadIDRef)
			if t == nil || len(t.calls) == 0 {
				continue
			}
			c := &t.calls[len(t.calls)-1]
			if c.node >= 0 && int(c.node) < len(tree.figs) {
				sink += tree.figs[c.node].cur.n
			}
			if c.slot >= 0 && int(c.slot) < mt.stats.len() {
				sink += mt.stats.at(c.slot).cum.calls
			}
		}
	}
	a.warmSink = sink
}
