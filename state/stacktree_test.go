package state

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/proftop/proftop/decode"
)

// treeText renders a call tree as indented lines: "name self/total".
func treeText(t *CallTree) string {
	var b strings.Builder
	var walk func(i int32, depth int)
	walk = func(i int32, depth int) {
		n := &t.Nodes[i]
		s, tot := t.Value(n)
		fmt.Fprintf(&b, "%s%s %d/%d\n", strings.Repeat("  ", depth), n.Name, s, tot)
		for _, k := range n.Kids {
			walk(k, depth+1)
		}
	}
	walk(0, 0)
	return b.String()
}

func frames(names ...string) decode.Stack {
	return decode.Stack{Methods: names, Lines: make([]int64, len(names))}
}

func TestCallTreeFromSamples(t *testing.T) {
	a := New(Options{})
	evs := []decode.Event{
		&decode.ThreadStart{ThreadID: 1, ThreadName: "worker-1"},
		&decode.ThreadStart{ThreadID: 2, ThreadName: "worker-2"},
		// Innermost first: main -> handle -> parse on top.
		&decode.Sample{ThreadIDRef: 1, Count: 3, Weight: 30, Stack: frames("app.parse", "app.handle", "app.main")},
		&decode.Sample{ThreadIDRef: 1, Count: 1, Weight: 10, Stack: frames("app.handle", "app.main")},
		&decode.Sample{ThreadIDRef: 2, Count: 2, Weight: 20, Stack: frames("app.write", "app.handle", "app.main")},
		&decode.Sample{ThreadIDRef: 2, Count: 1, Weight: 40, Stack: frames("app.gc")},
	}
	a.Apply(evs, 1, decode.Clock{}, t0)
	shape, figs := a.TreeAndShape(false)
	tree := BuildCallTree(shape, nil, figs)
	want := `all threads 0/100
  app.main 0/60
    app.handle 10/60
      app.parse 30/30
      app.write 20/20
  app.gc 40/40
`
	if got := treeText(tree); got != want {
		t.Fatalf("tree:\n%s\nwant:\n%s", got, want)
	}
	if !tree.Weighted || len(tree.Threads) != 2 || tree.Threads[0].Name != "worker-2" || tree.Threads[0].Total != 60 {
		t.Fatalf("threads %+v", tree.Threads)
	}
	// One thread only: its own tree, named after it.
	one := BuildCallTree(shape, func(th TreeThread) bool { return th.Name == "worker-1" }, figs)
	want = `worker-1 0/40
  app.main 0/40
    app.handle 10/40
      app.parse 30/30
`
	if got := treeText(one); got != want {
		t.Fatalf("worker-1's tree:\n%s\nwant:\n%s", got, want)
	}
	if one.AllThreads != 2 || len(one.Threads) != 1 {
		t.Fatalf("threads %d of %d", len(one.Threads), one.AllThreads)
	}
	if p := one.Path(3); strings.Join(p, ";") != "app.main;app.handle;app.parse" {
		t.Fatalf("path %v", p)
	}
}

// TestCallTreeShowsSamplesWithoutCPU: a sampled-CPU tree whose samples
// of a thread measured no CPU (in native code, or an interval its polls
// saw no CPU in) still shows them, at no time: the root counts their
// samples, and its children add up to it.
func TestCallTreeShowsSamplesWithoutCPU(t *testing.T) {
	a := New(Options{})
	a.Apply([]decode.Event{
		&decode.ThreadStart{ThreadID: 1, ThreadName: "worker"},
		&decode.ThreadStart{ThreadID: 2, ThreadName: "reader"},
		&decode.Sample{ThreadIDRef: 1, Count: 3, Weight: 30, Stack: frames("app.parse", "app.main")},
		&decode.Sample{ThreadIDRef: 2, Count: 5, Weight: 0, Stack: frames("java.io.BufferedInputStream.fill", "app.read")},
	}, 1, decode.Clock{}, t0)
	shape, figs := a.TreeAndShape(false)
	tree := BuildCallTree(shape, nil, figs)
	want := `all threads 0/30
  app.main 0/30
    app.parse 30/30
  app.read 0/0
    java.io.BufferedInputStream.fill 0/0
`
	if got := treeText(tree); got != want {
		t.Fatalf("tree:\n%s\nwant:\n%s", got, want)
	}
	root, kids := tree.Nodes[0].TotalN, int64(0)
	for _, k := range tree.Nodes[0].Kids {
		kids += tree.Nodes[k].TotalN
	}
	if root != 8 || kids != root || tree.Pruned != 0 {
		t.Fatalf("root counts %d samples, its children %d, %d pruned", root, kids, tree.Pruned)
	}
}

func TestCallTreeFromEntriesAndExits(t *testing.T) {
	a := New(Options{})
	ms := func(n int64) decode.Ticks { return decode.Ticks(n * int64(time.Millisecond)) }
	evs := []decode.Event{
		&decode.ClassDef{ClassID: 1, Name: "app.Server"},
		&decode.MethodDef{ClassIDRef: 1, MethodID: 1, Name: "serve"},
		&decode.MethodDef{ClassIDRef: 1, MethodID: 2, Name: "read"},
		&decode.MethodDef{ClassIDRef: 1, MethodID: 3, Name: "write"},
		&decode.ThreadStart{ThreadID: 7, ThreadName: "io"},
		&decode.MethodEntry{ThreadIDRef: 7, MethodIDRef: 1, Ticket: 1, Time: ms(0)},
		&decode.MethodEntry{ThreadIDRef: 7, MethodIDRef: 2, Ticket: 2, Time: ms(1)},
		&decode.MethodExit{ThreadIDRef: 7, Ticket: 2, Time: ms(4)}, // read: 3 ms
		&decode.MethodEntry{ThreadIDRef: 7, MethodIDRef: 3, Ticket: 3, Time: ms(4)},
		&decode.MethodExit{ThreadIDRef: 7, Ticket: 3, Time: ms(6)}, // write: 2 ms
		&decode.MethodEntry{ThreadIDRef: 7, MethodIDRef: 2, Ticket: 4, Time: ms(6)},
		&decode.MethodExit{ThreadIDRef: 7, Ticket: 4, Time: ms(7)},  // read: 1 ms
		&decode.MethodExit{ThreadIDRef: 7, Ticket: 1, Time: ms(10)}, // serve: 10 ms, 4 of them its own
	}
	a.Apply(evs, 1, decode.Clock{}, t0)
	shape, figs := a.TreeAndShape(false)
	tree := BuildCallTree(shape, nil, figs)
	want := fmt.Sprintf(`io %d/%d
  app.Server.serve %d/%d
    app.Server.read %d/%d
    app.Server.write %d/%d
`, 0, ms(10), ms(4), ms(10), ms(4), ms(4), ms(2), ms(2))
	if got := treeText(tree); got != want {
		t.Fatalf("tree:\n%s\nwant:\n%s", got, want)
	}
	if n := tree.Nodes[2]; n.SelfN != 2 || n.TotalN != 2 {
		t.Fatalf("read: %d calls", n.SelfN)
	}
}

// The node bound cuts stacks at their deepest known frame and counts them.
func TestCallTreeBound(t *testing.T) {
	a := New(Options{MaxTreeNodes: 6})
	evs := []decode.Event{
		&decode.Sample{ThreadIDRef: 1, Count: 1, Weight: 5, Stack: frames("c", "b", "a")}, // 1 root + 3 + 3 merged: cut after b
		&decode.Sample{ThreadIDRef: 1, Count: 1, Weight: 5, Stack: frames("b", "a")},
	}
	a.Apply(evs, 1, decode.Clock{}, t0)
	shape, figs := a.TreeAndShape(false)
	if shape.Nodes() > 6 {
		t.Fatalf("%d nodes, bound 6", shape.Nodes())
	}
	tree := BuildCallTree(shape, nil, figs)
	if tree.CutN != 1 || tree.Nodes[0].TotalN != 2 {
		t.Fatalf("cut %d, total %d\n%s", tree.CutN, tree.Nodes[0].TotalN, treeText(tree))
	}
}

// The window keeps the last seconds; closed seconds are handed to the
// history once each.
func TestCallTreeWindowAndDeltas(t *testing.T) {
	a := New(Options{Window: 3 * time.Second})
	s := func(w decode.Ticks) []decode.Event {
		return []decode.Event{&decode.Sample{ThreadIDRef: 1, Count: 1, Weight: w, Stack: frames("m")}}
	}
	a.Apply(s(1), 1, decode.Clock{}, t0)
	a.Apply(s(10), 1, decode.Clock{}, t0.Add(1*time.Second))
	a.Apply(s(100), 1, decode.Clock{}, t0.Add(2*time.Second))
	c := a.TreeDelta(0)
	if c.Latest != 2 || sum(c.Closed) != 11 || len(c.Seconds) != 2 || c.Seconds[1].Start != t0.Add(time.Second).UnixNano() || c.OpenStart != t0.Add(2*time.Second).UnixNano() {
		t.Fatalf("delta %+v", c)
	}
	seq := c.Latest
	a.Apply(s(1000), 1, decode.Clock{}, t0.Add(3*time.Second))
	if c := a.TreeDelta(seq); c.Latest != 3 || sum(c.Closed) != 100 || len(c.Seconds) != 1 || c.Seconds[0].End != int32(len(c.Closed)) {
		t.Fatalf("second delta %+v", c)
	}
	shape, recent := a.TreeAndShape(true)
	if got := BuildCallTree(shape, nil, recent).Nodes[0].Total; got != 1110 {
		t.Fatalf("window total %d, want 1110 (the 2 closed seconds of a 3 s window and the open one)", got)
	}
	_, cum := a.TreeAndShape(false)
	if got := BuildCallTree(shape, nil, cum).Nodes[0].Total; got != 1111 {
		t.Fatalf("cumulative total %d", got)
	}
}

func sum(figs []NodeFig) int64 {
	var n int64
	for _, f := range figs {
		n += f.W
	}
	return n
}

// A snapshot with an instrumented call tree and a sampler's hits of the
// same calls (ProfilerJ): the call tree is the measured one, not both
// added up.
func TestCallTreeOfASnapshotKeepsTheMeasuredCalls(t *testing.T) {
	a := New(Options{})
	measured := decode.SampleCalls | decode.SampleAggregate
	evs := []decode.Event{
		&decode.ThreadStart{ThreadID: 1, ThreadName: "main"},
		&decode.Sample{ThreadIDRef: 1, Flags: measured, Count: 1, Weight: 10, Stack: frames("app.main")},
		&decode.Sample{ThreadIDRef: 1, Flags: measured, Count: 4, Weight: 30, Stack: frames("app.work", "app.main")},
		&decode.Sample{ThreadIDRef: 1, Flags: decode.SampleAggregate, Count: 7, Weight: 25, Stack: frames("app.work", "app.main")},
	}
	a.Apply(evs, 1, decode.Clock{}, t0)
	shape, figs := a.TreeAndShape(false)
	tree := BuildCallTree(shape, nil, figs)
	want := `main 0/40
  app.main 10/40
    app.work 30/30
`
	if got := treeText(tree); got != want {
		t.Fatalf("got\n%swant\n%s", got, want)
	}
}

// A closed bucket gives back its entries as they went in: nodes in any
// order (the distance from the one before may be negative), weights from
// none to a day's worth of nanoseconds.
func TestClosedBucketRoundTrip(t *testing.T) {
	in := []NodeFig{{Node: 7, W: 3, N: 1}, {Node: 2, W: 0, N: 5}, {Node: 1 << 30, W: 86_400e9, N: 1 << 40}, {Node: 0, W: -4, N: 0}, {Node: 99, W: 1, N: 1}}
	var b closedBucket
	var prev int32
	for _, f := range in {
		b.packed = appendFig(b.packed, prev, f)
		prev = f.Node
	}
	var out []NodeFig
	b.each(func(f NodeFig) { out = append(out, f) })
	if !slices.Equal(in, out) {
		t.Fatalf("packed %v, got back %v", in, out)
	}
	if len(b.packed) >= len(in)*int(unsafe.Sizeof(NodeFig{})) {
		t.Errorf("%d entries packed in %d bytes: no smaller than unpacked", len(in), len(b.packed))
	}
}

// A method called under many callers in turn, under a caller of more
// children than a walk looks at: the node remembered for the method
// (lastOf) is of another caller most times, and the lookup must not take
// it; each caller keeps its own node of the method.
func TestCallTreeMethodUnderManyCallers(t *testing.T) {
	const callers, rounds = maxWalk + 3, 3
	a := New(Options{})
	var evs []decode.Event
	for range rounds {
		for c := range callers {
			evs = append(evs, &decode.Sample{ThreadIDRef: 1, Count: 1, Weight: 1, Stack: frames("x", fmt.Sprintf("caller%d", c))})
		}
	}
	a.Apply(evs, 1, decode.Clock{}, t0)
	shape, figs := a.TreeAndShape(false)
	tree := BuildCallTree(shape, nil, figs)
	root := tree.Nodes[0]
	if len(root.Kids) != callers {
		t.Fatalf("%d callers under the thread, want %d:\n%s", len(root.Kids), callers, treeText(tree))
	}
	for _, k := range root.Kids {
		caller := tree.Nodes[k]
		if len(caller.Kids) != 1 {
			t.Fatalf("%s has %d callees, want x alone:\n%s", caller.Name, len(caller.Kids), treeText(tree))
		}
		if x := tree.Nodes[caller.Kids[0]]; x.Name != "x" || x.SelfN != rounds {
			t.Fatalf("under %s: %s with %d samples, want x with %d:\n%s", caller.Name, x.Name, x.SelfN, rounds, treeText(tree))
		}
	}
	// The thread's root, its callers and their x; the merged trie's callers and their x.
	if n, want := shape.Nodes(), 1+2*callers+2*callers; n != want {
		t.Fatalf("%d nodes, want %d", n, want)
	}
}

// With no call tree kept (a batch run, which shows none), the methods,
// threads and their window are what they are with one, and the tree is
// empty; its seconds are never due, so that the methods' window rotates
// on their own seconds alone (not at every event, walking the threads).
func TestNoCallTreeLeavesTheRestAsItIs(t *testing.T) {
	evs := []decode.Event{&decode.ClassDef{ClassID: 1, Name: "app.Work"}}
	for m := range 40 {
		evs = append(evs, &decode.MethodDef{ClassIDRef: 1, MethodID: int64(m + 1), Name: fmt.Sprintf("step%d", m)})
	}
	for th := range 4 {
		evs = append(evs, &decode.ThreadStart{ThreadID: int64(th + 1), ThreadName: fmt.Sprintf("worker-%d", th)})
	}
	now, ticket := decode.Ticks(t0.UnixNano()), int32(0)
	for i := range 3000 { // three seconds: buckets close, none expires
		th, outer, inner := int64(i%4+1), int64(i%40+1), int64((i*7)%40+1)
		evs = append(evs,
			&decode.MethodEntry{ThreadIDRef: th, MethodIDRef: outer, Ticket: ticket + 1, Time: now},
			&decode.MethodEntry{ThreadIDRef: th, MethodIDRef: inner, Ticket: ticket + 2, Time: now + 100},
			&decode.MethodExit{ThreadIDRef: th, Ticket: ticket + 2, Time: now + 400_000},
			&decode.MethodExit{ThreadIDRef: th, Ticket: ticket + 1, Time: now + 500_000})
		ticket += 2
		now += decode.Ticks(time.Millisecond)
	}
	with, without := New(Options{TraceTime: true}), New(Options{TraceTime: true, NoCallTree: true})
	with.Apply(evs, 1, decode.Clock{}, t0)
	without.Apply(evs, 1, decode.Clock{}, t0)
	q := Query{Recent: true, CallersOf: -1}
	a, b := with.Snapshot(t0, q), without.Snapshot(t0, q)
	if len(a.Methods) == 0 || len(a.Methods) != len(b.Methods) || a.TotalSelf != b.TotalSelf || len(a.Threads) != len(b.Threads) {
		t.Fatalf("with a tree %d methods (self %v), without %d (self %v)", len(a.Methods), a.TotalSelf, len(b.Methods), b.TotalSelf)
	}
	for i := range a.Methods {
		if x, y := a.Methods[i], b.Methods[i]; x.Calls != y.Calls || x.Self != y.Self || x.Total != y.Total {
			t.Fatalf("method %d: %+v with a tree, %+v without", i, x, y)
		}
	}
	if shape, _ := without.TreeAndShape(false); shape.Nodes() != 0 {
		t.Fatalf("%d nodes kept", shape.Nodes())
	}
	if _, _ = with.TreeAndShape(false); without.tree.dueNs != math.MaxInt64 {
		t.Fatalf("the tree's seconds are due at %d", without.tree.dueNs)
	}
}
