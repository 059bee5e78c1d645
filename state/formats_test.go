package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/internal/fixtures"
)

// picture decodes a file (told by content) into an aggregator, as replay
// does, and returns its cumulative snapshot.
func picture(t *testing.T, path string, q Query) (*Snapshot, *Aggregator) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return pictureOf(t, data, q)
}

func pictureOf(t *testing.T, data []byte, q Query) (*Snapshot, *Aggregator) {
	t.Helper()
	d, err := decode.Open(bytes.NewReader(data), decode.Options{Modified: time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	agg := New(Options{})
	var b decode.Batch
	for {
		ev, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b.Add(ev)
	}
	agg.Apply(b.Events(), 1, d.Clock(), time.Now())
	return agg.Snapshot(time.Now(), q), agg
}

func methodInView(s *Snapshot, name string, sampler bool) *Method {
	for i := range s.Methods {
		if s.MethodName(&s.Methods[i]) == name && s.Methods[i].Sampler == sampler {
			return &s.Methods[i]
		}
	}
	return nil
}

// A ProfilerJ snapshot's call tree: a method's calls are the sum over every
// node where it appears, its self time the nodes' own time, its total time
// and CPU the nodes' cumulated figures as the file says them (eventLoop's
// 900 ms, of which 850 ms its own and 1 ms its call's), its own CPU the
// nodes' own, its callers the nodes' parents; a constructor is named
// <init>. The sampler's hits are the second view, each thread's CPU time
// shared among them.
func TestProfilerJCallTreeAndSamplerViews(t *testing.T) {
	s, agg := picture(t, "../testdata/profilerj/snapshot-synthetic.xml", Query{CallersOf: -1})
	if !s.Views {
		t.Fatal("the snapshot's two views are not told")
	}
	ms := time.Millisecond
	for _, tc := range []struct {
		name        string
		calls       int64
		self, total time.Duration
		cpu, ownCPU time.Duration
	}{
		{"java.awt.AWTEvent.<init>", 100, 8 * ms, 8 * ms, 0, 0},
		{"com.terrasoft.profilerj.tutorial.Example01.runLoop", 605, 1600 * ms, 1600 * ms, 468750 * time.Microsecond, 468750 * time.Microsecond},
		{"java.awt.event.PaintEvent.<init>", 88, 3 * ms, 16 * ms, 0, 0},
		{"java.awt.EventQueue.dispatchEvent", 4999, 180 * ms, 880 * ms, 453125 * time.Microsecond, 15625 * time.Microsecond},
		{"com.terrasoft.profilerj.tutorial.Example01.main", 1, 248 * ms, 1250 * ms, 62500 * time.Microsecond, 0},
		{"sun.awt.windows.WToolkit.eventLoop", 1, 850 * ms, 900 * ms, 15625 * time.Microsecond, 15625 * time.Microsecond},
		{"com.terrasoft.profilerj.tutorial.Example01.<init>", 1, 2 * ms, 2 * ms, 0, 0},
	} {
		m := methodInView(s, tc.name, false)
		if m == nil || m.Calls != tc.calls || m.Self != tc.self || m.Total != tc.total || m.CPU != tc.cpu || m.OwnCPU != tc.ownCPU || m.Timed {
			t.Errorf("%s: %+v, want %d calls, self %v, total %v, CPU %v, own CPU %v", tc.name, m, tc.calls, tc.self, tc.total, tc.cpu, tc.ownCPU)
		}
	}
	if !s.MethodCPU || !s.MethodOwnCPU {
		t.Fatal("the file's CPU figures are not told")
	}
	if methodInView(s, decode.UnprofiledFrame, false) != nil {
		t.Fatal("the time of unprofiled callees is a method")
	}
	// Callers of AWTEvent, from the tree: ComponentEvent 88 times, WToolkit.eventLoop 12.
	aw := methodInView(s, "java.awt.AWTEvent.<init>", false)
	callers := agg.Snapshot(time.Now(), Query{CallersOf: aw.Slot}).Callers
	if len(callers) != 2 || callers[0].Name != "java.awt.event.ComponentEvent.<init>" || callers[0].Calls != 88 ||
		callers[1].Name != "sun.awt.windows.WToolkit.eventLoop" || callers[1].Calls != 12 {
		t.Fatalf("callers %+v", callers)
	}
	// The sampler: runLoop on top of 6 hits of AWT-EventQueue-0 (8 RUNNABLE hits, 468.75 ms of CPU)
	// and 2 of main (2 hits, 62.5 ms).
	rl := methodInView(s, "com.terrasoft.profilerj.tutorial.Example01.runLoop", true)
	if rl == nil || rl.Calls != 0 || rl.Samples != 8 || rl.Self != time.Duration(6*468_750_000/8+62_500_000) {
		t.Fatalf("sampled runLoop %+v", rl)
	}
	var measured, sampled time.Duration
	for i := range s.Methods {
		if s.Methods[i].Sampler {
			sampled += s.Methods[i].Self
		} else {
			measured += s.Methods[i].Self
		}
	}
	if s.TotalSelf != measured || s.SamplerSelf != sampled || s.Percent(rl) < 77 || s.Percent(rl) > 79 {
		t.Fatalf("totals %v/%v, want %v/%v; runLoop %.1f%%", s.TotalSelf, s.SamplerSelf, measured, sampled, s.Percent(rl))
	}
	if !s.Sampled {
		t.Fatal("the sampler's samples are not told")
	}
}

// Threads with their CPU time, alive or ended; allocations as a census;
// coverage by class.
func TestProfilerJThreadsObjectsCoverage(t *testing.T) {
	s, _ := picture(t, "../testdata/profilerj/snapshot-synthetic.xml", Query{CallersOf: -1})
	got := map[string]Thread{}
	for _, th := range s.Threads {
		got[th.Name] = th
	}
	if len(got) != 3 || got["AWT-EventQueue-0"].CPU != 468750*time.Microsecond || got["AWT-Windows"].State != ThreadRunning ||
		got["main"].State != ThreadEnded || got["main"].CPU != 62500*time.Microsecond || got["main"].Method != "" {
		t.Fatalf("threads %+v", s.Threads)
	}
	if !s.HasObjects || s.Objects.CensusTotal != 307 || len(s.Objects.Classes) != 6 || len(s.Objects.Census) != 7 {
		t.Fatalf("objects %+v", s.Objects)
	}
	if len(s.Coverage) != 2 {
		t.Fatalf("coverage %+v", s.Coverage)
	}
	ex := s.Coverage[0]
	if ex.Class != "com.terrasoft.profilerj.tutorial.Example01" || ex.Source != "Example01.java" || len(ex.Methods) != 4 ||
		ex.Lines != 17 || ex.Hit != 12 || ex.Invoked != 3 {
		t.Fatalf("Example01 %+v", ex)
	}
	main := ex.Methods[1]
	if main.Name != "main" || main.Lines != 7 || main.Hit != 5 || len(main.Never) != 1 || main.Never[0] != (LineRange{21, 22}) {
		t.Fatalf("main %+v", main)
	}
	report := ex.Methods[3]
	if len(report.Never) != 2 || report.Never[0] != (LineRange{35, 36}) || report.Never[1] != (LineRange{38, 38}) {
		t.Fatalf("report %+v", report)
	}
}

// A later report of a method replaces the earlier; unreadable footprints
// are said; rows built before are not changed by later reports.
func TestCoverageReplacesAndShares(t *testing.T) {
	agg := New(Options{})
	cov := func(count int64, foot string) *decode.Coverage {
		return &decode.Coverage{Time: 1, Class: "C", Method: "m", Signature: "()V", FirstLine: 10, Count: count, Footprints: foot}
	}
	agg.Apply([]decode.Event{cov(1, "1 0 0 -1 0")}, 1, decode.Clock{}, time.Now())
	first := agg.Snapshot(time.Now(), Query{CallersOf: -1}).Coverage
	agg.Apply([]decode.Event{cov(2, "1 1 0 -1 1"), &decode.Coverage{Class: "C", Method: "n", Footprints: "1 x"}}, 1, decode.Clock{}, time.Now())
	second := agg.Snapshot(time.Now(), Query{CallersOf: -1}).Coverage
	if m := first[0].Methods[0]; len(first[0].Methods) != 1 || m.Hit != 1 || m.Lines != 4 || len(m.Never) != 2 || m.Never[0] != (LineRange{11, 12}) || m.Never[1] != (LineRange{14, 14}) {
		t.Fatalf("first %+v", first)
	}
	if m := second[0].Methods[0]; m.Hit != 3 || m.Count != 2 || len(m.Never) != 1 || !second[0].Methods[1].Unreadable || second[0].Invoked != 1 {
		t.Fatalf("second %+v", second)
	}
}

// The Jinsight fixture: calls paired through the rebuilt stacks, as many
// as the trace's enters per method, and the same picture from its
// big-endian copy.
func TestJinsightPicture(t *testing.T) {
	data, err := os.ReadFile(fixtures.Path(t, "jinsight/trace-linux-x86_64-tagobjects.trc"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := pictureOf(t, data, Query{CallersOf: -1})
	var calls int64
	for i := range s.Methods {
		calls += s.Methods[i].Calls
	}
	if calls != 1414 || s.Unpaired != 0 || len(s.Threads) != 4 {
		t.Fatalf("%d calls, %d unpaired exits, %d threads", calls, s.Unpaired, len(s.Threads))
	}
	// Demo.fib calls nothing but itself: its total is the time of its
	// outermost calls, all of it its own, not the sum over every level of
	// the recursion.
	fib := methodInView(s, "Demo.fib", false)
	if fib == nil || fib.Calls == 0 || fib.Self <= 0 || fib.Total != fib.Self {
		t.Fatalf("Demo.fib %+v", fib)
	}
	if !s.HasObjects || s.Objects.CensusTotal != 252 {
		t.Fatalf("objects %+v", s.Objects)
	}
	// The trace has no CPU time, and ended (TRACE_END) with its threads
	// alive: what they did after is unknown, not running.
	if s.ThreadCPU || s.MethodCPU {
		t.Fatal("CPU time told of a trace that has none")
	}
	for _, th := range s.Threads {
		if th.State != ThreadUnknown || th.CPUKnown {
			t.Fatalf("thread %+v", th)
		}
	}
	doc, err := json.Marshal(s)
	if err != nil || strings.Contains(string(doc), `"cpuNs"`) {
		t.Fatalf("CPU time in the JSON: %v %.300s", err, doc)
	}
	// The objects are known from the census alone: live as it counted
	// them, allocations unknown; no sentinel for what it does not say.
	node := s.Objects.Classes[slices.IndexFunc(s.Objects.Classes, func(c ObjectClass) bool { return c.Class == "Demo$Node" })]
	if node.Live != 250 || !node.Counted {
		t.Fatalf("Demo$Node %+v", node)
	}
	objects, _ := json.Marshal(s.Objects)
	for _, absent := range []string{`"allocated"`, `"bytes":-1`, `"maxCount":-1`, `"live":0`} {
		if strings.Contains(string(objects), absent) {
			t.Fatalf("%s in the JSON: %s", absent, objects)
		}
	}
	var back Objects
	if err := json.Unmarshal(objects, &back); err != nil || back.Census[0].Bytes != -1 || back.Census[0].MaxCount != -1 {
		t.Fatalf("read back: %+v (%v)", back.Census, err)
	}
}

// A thread's CPU time is in JSON when the source measures it, and read
// back as measured; left out, and read back as unknown, when not.
func TestThreadCPUInJSON(t *testing.T) {
	for _, th := range []Thread{{ID: 1, CPU: 0, CPUKnown: true}, {ID: 2, CPU: 5, CPUKnown: true}, {ID: 3}} {
		b, err := json.Marshal(th)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"cpuNs"`) != th.CPUKnown {
			t.Fatalf("%s", b)
		}
		var back Thread
		if err := json.Unmarshal(b, &back); err != nil || back.CPU != th.CPU || back.CPUKnown != th.CPUKnown || back.ID != th.ID {
			t.Fatalf("%s read back as %+v (%v)", b, back, err)
		}
	}
}

// Restart forgets everything; tables released before never patch the
// new picture.
func TestRestartForgetsEverything(t *testing.T) {
	s, agg := picture(t, "../testdata/profilerj/snapshot-synthetic.xml", Query{CallersOf: -1})
	agg.Release(s)
	agg.Restart()
	empty := agg.Snapshot(time.Now(), Query{CallersOf: -1})
	if len(empty.Threads) != 0 || len(empty.Methods) != 0 || empty.HasObjects || len(empty.Coverage) != 0 || empty.Views {
		t.Fatalf("after a restart: %d threads, %d methods", len(empty.Threads), len(empty.Methods))
	}
	agg.Release(empty)
	agg.Apply([]decode.Event{&decode.Sample{ThreadIDRef: 1, Time: 1, Count: 1, Weight: 5, Stack: decode.Stack{Methods: []string{"a.B.c"}, Lines: []int64{0}}}},
		2, decode.Clock{}, time.Now())
	after := agg.Snapshot(time.Now(), Query{CallersOf: -1})
	if len(after.Methods) != 1 || after.MethodName(&after.Methods[0]) != "a.B.c" {
		t.Fatalf("%+v", after.Methods)
	}
}

// A snapshot's recursive call: a method inside itself (a calls b calls a)
// counts its cumulated time and CPU once, at its outermost node; the call
// tree keeps the time its method spent in unprofiled callees under it.
func TestProfilerJRecursionAndUnprofiledCallees(t *testing.T) {
	doc := `<doc><profile><thread name="t" cpuTime="1">
<profile name="p.A.a()" signature="()V" count="1" cumulatedElapsed="100" methodElapsed="30" cumulated="50" method="10">
  <profile name="p.A.b()" signature="()V" count="2" cumulatedElapsed="60" methodElapsed="20" cumulated="40" method="15">
    <profile name="p.A.a()" signature="()V" count="3" cumulatedElapsed="40" methodElapsed="40" cumulated="25" method="25"/>
  </profile>
</profile>
</thread></profile></doc>`
	s, agg := pictureOf(t, []byte(doc), Query{CallersOf: -1})
	a := methodInView(s, "p.A.a", false)
	if a == nil || a.Calls != 4 || a.Self != 70*time.Microsecond || a.Total != 100*time.Microsecond ||
		a.CPU != 50*time.Microsecond || a.OwnCPU != 35*time.Microsecond {
		t.Fatalf("a %+v", a)
	}
	b := methodInView(s, "p.A.b", false)
	if b == nil || b.Total != 60*time.Microsecond || b.CPU != 40*time.Microsecond {
		t.Fatalf("b %+v", b)
	}
	// a's 100 µs: 30 its own, 60 in b; 10 in callees it did not profile.
	shape, weights := agg.TreeAndShape(false)
	tree := BuildCallTree(shape, nil, weights)
	var unprofiled int64
	for i := range tree.Nodes {
		if n := &tree.Nodes[i]; n.Name == decode.UnprofiledFrame {
			unprofiled = n.Self
		}
	}
	if unprofiled != 10_000 {
		t.Fatalf("unprofiled callees: %d ns", unprofiled)
	}
}

// After a restart, the call tree is the new source's alone: none of the
// old nodes (whose method slots would name the new table's methods) and
// none of the old threads.
func TestRestartForgetsTheCallTree(t *testing.T) {
	agg := New(Options{})
	sample := func(stream int, thread int64, frames ...string) {
		agg.Apply([]decode.Event{
			&decode.ThreadStart{ThreadID: thread, ThreadName: "t" + frames[0], Time: 1},
			&decode.Sample{ThreadIDRef: thread, Time: 2, Count: 1, Weight: 5, Stack: decode.Stack{Methods: frames, Lines: make([]int64, len(frames))}},
		}, stream, decode.Clock{}, time.Now())
	}
	sample(1, 1, "old.A.top", "old.A.main")
	agg.Restart()
	sample(2, 7, "new.B.top", "new.B.main")
	shape, figs := agg.TreeAndShape(false)
	tree := BuildCallTree(shape, nil, figs)
	var names []string
	for i := 1; i < len(tree.Nodes); i++ {
		names = append(names, tree.Nodes[i].Name)
	}
	slices.Sort(names)
	if want := []string{"new.B.main", "new.B.top"}; !slices.Equal(names, want) {
		t.Errorf("call tree after a restart: %q, want %q", names, want)
	}
	if _, total := tree.Value(&tree.Nodes[0]); !tree.Weighted || total != 5 {
		t.Errorf("call tree after a restart weighs %d (weighted: %v), want one sample's 5", total, tree.Weighted)
	}
}

// The history's pictures taken before a restart keep the call tree they
// were recorded in: their past trees name the old methods, and a bundle
// writes the trees of the new source's pictures.
func TestRestartKeepsThePastTreesOfBefore(t *testing.T) {
	agg, hist := New(Options{}), NewHistory(HistoryOptions{})
	rec := NewRecorder(agg, hist)
	t0 := time.Unix(1_000_000, 0)
	second := func(stream int, at time.Duration, thread int64, frames ...string) {
		agg.Apply([]decode.Event{
			&decode.ThreadStart{ThreadID: thread, ThreadName: "t" + frames[0], Time: 1},
			&decode.Sample{ThreadIDRef: thread, Time: 2, Count: 1, Weight: 5, Stack: decode.Stack{Methods: frames, Lines: make([]int64, len(frames))}},
		}, stream, decode.Clock{}, t0.Add(at))
		agg.Apply(nil, stream, decode.Clock{}, t0.Add(at+1500*time.Millisecond)) // the second closes
		rec.Take(t0.Add(at + 1500*time.Millisecond))
	}
	check := func(when string, pics []*Picture, i int, weight int64, want ...string) {
		t.Helper()
		tree := PastCallTree(pics, i, 10*time.Second, nil, agg.TreeShape)
		var names []string
		for j := 1; j < len(tree.Nodes); j++ {
			names = append(names, tree.Nodes[j].Name)
		}
		slices.Sort(names)
		if _, total := tree.Value(&tree.Nodes[0]); !slices.Equal(names, want) || total != weight {
			t.Errorf("%s, picture %d: past call tree %q weighing %d, want %q weighing %d", when, i, names, total, want, weight)
		}
	}
	second(1, 0, 1, "old.A.top", "old.A.main")
	held := hist.Pictures() // as the interface holds them, stepping through the history
	agg.Restart()
	agg.Apply([]decode.Event{&decode.ThreadStart{ThreadID: 7, ThreadName: "t", Time: 1},
		&decode.Sample{ThreadIDRef: 7, Time: 2, Count: 1, Weight: 5, Stack: decode.Stack{Methods: []string{"new.C.x", "new.C.y"}, Lines: []int64{0, 0}}}},
		2, decode.Clock{}, t0.Add(1600*time.Millisecond))
	// Before the next picture: the old one names the old tree's methods,
	// in the history's slice and in the one held since.
	check("before the next picture", hist.Pictures(), 0, 5, "old.A.main", "old.A.top")
	check("held since before the restart", held, 0, 5, "old.A.main", "old.A.top")
	second(2, 2*time.Second, 7, "new.B.top", "new.B.main", "new.B.run")
	pics := hist.Pictures()
	if len(pics) != 2 || !pics[1].TreeReset || pics[0] != held[0] {
		t.Fatalf("%d pictures, the second reset: %v, the first the same picture: %v", len(pics), len(pics) > 1 && pics[1].TreeReset, pics[0] == held[0])
	}
	check("after", pics, 0, 5, "old.A.main", "old.A.top")
	check("after", pics, 1, 10, "new.B.main", "new.B.run", "new.B.top", "new.C.x", "new.C.y")
	if pt := NewPastTrees(pics, agg.TreeShape()); pt.Pictures() != 1 {
		t.Errorf("a bundle's past trees: %d pictures, want the new source's one", pt.Pictures())
	}
}

// After a restart nothing of the source before shows: not its vital
// signs, probes, deadlocks, the agent's cost, its virtual threads, nor
// when it began.
func TestRestartForgetsWhatTheSourceSaidOfItself(t *testing.T) {
	a := New(Options{})
	evs := []decode.Event{
		&decode.TelemetrySeries{Time: sec(0), Series: 1, Name: "CPU load (process)", Unit: decode.UnitPercent, Divisor: 100},
		&decode.TelemetryValue{Time: sec(1), Series: 1, Value: 1000},
		&decode.Probe{Time: sec(1), Name: "jfr:bank.Transfer#state", Count: 3, Total: 30, Max: 20},
		&decode.AgentCost{Time: sec(1), AgentCPU: 1, JFRCPU: 1, AgentThreads: 1, JFRThreads: 1, ProcessCPU: 10},
		&decode.AgentCost{Time: sec(2), AgentCPU: 2, JFRCPU: 2, AgentThreads: 1, JFRThreads: 1, ProcessCPU: 20},
		&decode.VirtualThreads{Time: sec(2), Count: 5, Started: 5, Ended: 0},
		&decode.ThreadStart{ThreadID: 1, ThreadName: "a", Time: sec(0)},
		&decode.ThreadStart{ThreadID: 2, ThreadName: "b", Time: sec(0)},
		&decode.MonContendedEnter{ThreadIDRef: 1, ObjIDRef: 0xa, ThreadOwner: 2, Time: sec(2)},
		&decode.MonContendedEnter{ThreadIDRef: 2, ObjIDRef: 0xb, ThreadOwner: 1, Time: sec(2)},
	}
	a.Apply(evs, 1, decode.Clock{}, tel0.Add(3*time.Second))
	said := func(s *Snapshot) []string {
		var out []string
		for what, has := range map[string]bool{"telemetry": len(s.Telemetry) > 0, "probes": len(s.Probes) > 0,
			"deadlocks": len(s.Deadlocks) > 0, "recent deadlocks": len(s.RecentDeadlocks) > 0, "agent cost": s.AgentCost != nil,
			"virtual threads": s.Virtual != nil, "first event": !s.First.IsZero()} {
			if has {
				out = append(out, what)
			}
		}
		slices.Sort(out)
		return out
	}
	before := a.Snapshot(tel0.Add(3*time.Second), Query{CallersOf: -1})
	if got := said(before); len(got) != 6 { // no deadlock has ended: none is recent
		t.Fatalf("before the restart the picture shows only %q", got)
	}
	a.Release(before)
	a.Restart()
	after := a.Snapshot(tel0.Add(3*time.Second), Query{CallersOf: -1})
	if got := said(after); len(got) > 0 {
		t.Errorf("after a restart the picture still shows the old source's %q", got)
	}
}

// A file replaced again and again keeps the shapes of the latest few
// trees it left: the pictures of older ones show no call tree, and the
// shapes kept hold only the names their nodes use.
func TestRestartsKeepTheLatestTreesLeft(t *testing.T) {
	agg, hist := New(Options{}), NewHistory(HistoryOptions{})
	rec := NewRecorder(agg, hist)
	t0 := time.Unix(1_000_000, 0)
	for i := range maxLeftTrees + 2 {
		at := time.Duration(i) * 2 * time.Second
		name := fmt.Sprintf("gen%d.A.run", i)
		agg.Apply([]decode.Event{
			&decode.MethodDef{MethodID: 99, Name: "unused", ClassIDRef: 1}, // in the method table, in no node
			&decode.ThreadStart{ThreadID: 1, ThreadName: "t", Time: 1},
			&decode.Sample{ThreadIDRef: 1, Time: 2, Count: 1, Weight: 5, Stack: decode.Stack{Methods: []string{name}, Lines: []int64{0}}},
		}, i+1, decode.Clock{}, t0.Add(at))
		agg.Apply(nil, i+1, decode.Clock{}, t0.Add(at+1500*time.Millisecond))
		rec.Take(t0.Add(at + 1500*time.Millisecond))
		if i < maxLeftTrees+1 {
			agg.Restart()
		}
	}
	pics := hist.Pictures()
	for i := range pics {
		tree := PastCallTree(pics, i, 10*time.Second, nil, agg.TreeShape)
		kept := i >= 1 // the first tree left is the one dropped
		if got := len(tree.Nodes) > 1; got != kept {
			t.Errorf("picture %d: a call tree of %d nodes, kept: %v", i, len(tree.Nodes), kept)
		}
		if kept && tree.Nodes[1].Name != fmt.Sprintf("gen%d.A.run", i) {
			t.Errorf("picture %d: %q", i, tree.Nodes[1].Name)
		}
	}
	if len(agg.leftTrees) != maxLeftTrees {
		t.Fatalf("%d trees left kept, want %d", len(agg.leftTrees), maxLeftTrees)
	}
	for _, o := range agg.leftTrees {
		for _, name := range o.left.Load().names {
			if strings.Contains(name, "unused") {
				t.Errorf("a tree left keeps the name of a method none of its nodes is: %q", name)
			}
		}
	}
}

// A snapshot's two views of its methods (measured calls and the
// sampler's hits) stay apart through JSON, as a bundle's history keeps
// them: read back without the mark, the sampler's rows joined the
// measured ones (runLoop twice in one table, its share over both).
func TestProfilerJViewsSurviveJSON(t *testing.T) {
	s, _ := picture(t, "../testdata/profilerj/snapshot-synthetic.xml", Query{CallersOf: -1})
	samplerRows := 0
	for i := range s.Methods {
		if s.Methods[i].Sampler {
			samplerRows++
		}
	}
	if samplerRows == 0 {
		t.Fatal("the snapshot has no sampler rows")
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Snapshot
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got := 0
	for i := range back.Methods {
		if back.Methods[i].Sampler {
			got++
		}
	}
	if got != samplerRows {
		t.Fatalf("%d sampler rows read back of %d", got, samplerRows)
	}
}
