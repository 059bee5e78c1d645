package state

import (
	"bytes"
	"compress/gzip"
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

// applyRecording feeds an rbkit capture (../shared/fixtures/rbkit) to a.
func applyRecording(t *testing.T, a *Aggregator, name string) {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "rbkit/"+name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	d, err := decode.Open(bytes.NewReader(b), decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var evs []decode.Event
	for {
		ev, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, decode.Clone(ev))
	}
	a.Apply(evs, 1, d.Clock(), time.Unix(0, 1795251590000000000))
}

// The rbkit captures make the same picture as a JVM's trace: hot methods
// counted in samples, threads with their share, objects by class, a census
// and the GC pane.
func TestRbkitCapturesMakeThePicture(t *testing.T) {
	a := New(Options{})
	for _, f := range []string{"cpu_sampling.msgpack", "memory_profile.msgpack", "objectspace_dump.msgpack.gz"} {
		applyRecording(t, a, f)
	}
	s := a.Snapshot(time.Unix(0, 1795251590000000000), Query{CallersOf: -1})
	if !s.Sampled || s.TotalSelf != 0 {
		t.Fatalf("sampled %v, total self %v: want samples that stand for no time", s.Sampled, s.TotalSelf)
	}
	byName := map[string]Method{}
	var samples int64
	for _, m := range s.Methods {
		byName[s.MethodName(&m)] = m
		samples += m.Samples
	}
	if samples != 22 || byName["Foo#work"].Samples == 0 || byName["<main>"].TotalSamples != 22 || byName["Integer#times <cfunc>"].TotalSamples == 0 {
		t.Fatalf("methods %v: want 22 samples, Foo#work on top of some, <main> in all", byName)
	}
	if byName["Foo#work"].Line != 34 || byName["Integer#times <cfunc>"].Line != 0 {
		t.Fatalf("lines: Foo#work %d, Integer#times %d; want the method's first line, 34, and none for a C function",
			byName["Foo#work"].Line, byName["Integer#times <cfunc>"].Line)
	}
	if len(s.Threads) != 1 || s.Threads[0].Name != "main" || s.Threads[0].Samples != 22 {
		t.Fatalf("threads %+v", s.Threads)
	}
	if !s.HasObjects {
		t.Fatal("no objects")
	}
	classes := map[string]ObjectClass{}
	for _, c := range s.Objects.Classes {
		classes[c.Class] = c
	}
	if classes[noClass].Allocs == 0 || classes["String"].Allocs == 0 || s.Objects.Untracked == 0 {
		t.Fatalf("classes %v", classes)
	}
	if s.Objects.CensusTotal != 12798 {
		t.Fatalf("census of %d objects, want 12798", s.Objects.CensusTotal)
	}
	if s.GC.Count != 10 || !s.GC.SinceStart || len(s.GC.Pools) != 2 || len(s.GC.Pauses) != 1 || s.GC.Pauses[0] != 2*time.Millisecond {
		t.Fatalf("GC %+v: want 10 collections since start (8 minor, 2 major), one 2 ms marking, two pools", s.GC)
	}
}

// Ruby labels keep their parentheses: only a JVM descriptor is split off.
func TestRubyLabelsAreNotSplitAsDescriptors(t *testing.T) {
	a := New(Options{})
	st := decode.Stack{Methods: []string{"block (2 levels) in Ledger#reconcile", "<top (required)>", "com.acme.A.run(I)V"}, Lines: []int64{0, 0, 0}}
	a.Apply([]decode.Event{&decode.Sample{ThreadIDRef: 1, Time: 1, Stack: st}}, 1, decode.Clock{}, time.Unix(1, 0))
	s := a.Snapshot(time.Unix(1, 0), Query{CallersOf: -1})
	names := map[string]bool{}
	for _, m := range s.Methods {
		names[s.MethodName(&m)] = true
	}
	if !names["block (2 levels) in Ledger#reconcile"] || !names["<top (required)>"] || !names["com.acme.A.run"] {
		t.Fatalf("names %v", names)
	}
}

// A thread of a source that polls no stacks (rbkit) shows the stack of its
// latest sample: its drill-in said "none reported" though every sample
// carries one. A polled thread keeps its poll's.
func TestThreadsShowTheirLatestSampledStack(t *testing.T) {
	a := New(Options{})
	sample := func(at decode.Ticks, methods ...string) decode.Event {
		return &decode.Sample{ThreadIDRef: 7, Time: at, Stack: decode.Stack{Methods: methods, Lines: make([]int64, len(methods))}}
	}
	a.Apply([]decode.Event{sample(1, "Cruncher#crunch", "block in <main>"), sample(2, "Integer#times", "Cruncher#crunch", "block in <main>")},
		1, decode.Clock{}, time.Unix(1, 0))
	s := a.Snapshot(time.Unix(1, 0), Query{CallersOf: -1, StackOf: 7})
	if len(s.Threads) != 1 || s.Threads[0].StackFrom != "latest stack sample" || len(s.Threads[0].Stack) != 3 || s.Threads[0].Stack[0].Method != "Integer#times" {
		t.Fatalf("threads %+v", s.Threads)
	}
}

// A sampled method's line is its first line when the source says its
// lines are such (rbkit's); a label seen at two lines (two blocks of one
// method) has none; a JVM's sampled lines, the lines running, name no method.
func TestSampledMethodLines(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags int32
		lines []int64
		want  int32
	}{
		{"first lines", decode.SampleFirstLines, []int64{12, 12}, 12},
		{"one label at two lines", decode.SampleFirstLines, []int64{12, 40}, 0},
		{"two lines, then the first again", decode.SampleFirstLines, []int64{12, 40, 12}, 0},
		{"unknown, then known", decode.SampleFirstLines, []int64{0, 7}, 7},
		{"lines running", 0, []int64{12, 12}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(Options{})
			var evs []decode.Event
			for i, l := range tc.lines {
				evs = append(evs, &decode.Sample{ThreadIDRef: 1, Time: decode.Ticks(i + 1), Count: 1, Flags: tc.flags,
					Stack: decode.Stack{Methods: []string{"block in Foo#bar", "<main>"}, Lines: []int64{l, 0}}})
			}
			a.Apply(evs, 1, decode.Clock{}, time.Unix(0, 0))
			s := a.Snapshot(time.Unix(0, 0), Query{CallersOf: -1})
			for _, m := range s.Methods {
				if s.MethodName(&m) == "block in Foo#bar" && m.Line != tc.want {
					t.Fatalf("line %d, want %d", m.Line, tc.want)
				}
			}
		})
	}
}

// Another process (another pid) after a reconnection is a new heap: the
// census, the objects and the collections of the one before are forgotten;
// the same process reconnected keeps them.
func TestAnotherProcessForgetsTheHeapOfTheOneBefore(t *testing.T) {
	process := func(pid int32, at int) []decode.Event {
		return []decode.Event{
			&decode.ProcessCreate{PID: pid, Name: "worker.rb", Time: ms(at)},
			&decode.ClassDef{ClassID: 1, Name: "Foo", Time: ms(at)},
			&decode.ObjAlloc{ObjID: 7, ClassIDRef: 1, Time: ms(at + 10)},
			&decode.ObjectCensus{Time: ms(at + 20), Census: int64(at + 20), Class: "Gem::Requirement", Count: 187, Bytes: -1, MaxCount: -1},
			&decode.GCTotals{Time: ms(at + 30), Collector: "minor GC", Count: 113},
			&decode.Collection{Time: ms(at + 40), Collector: "Ruby GC", Pause: 2_000_000, UsedBefore: -1, UsedAfter: -1, Committed: -1},
		}
	}
	a := New(Options{})
	a.Apply(process(100, 0), 1, decode.Clock{}, t0)
	a.Apply(process(100, 1000)[:1], 2, decode.Clock{}, t0) // the same process, reconnected
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if len(s.Objects.Census) != 1 || s.GC.Count != 113 || len(s.GC.Pauses) != 1 {
		t.Fatalf("the same process reconnected: census %v, GC %d collections, %d pauses", s.Objects.Census, s.GC.Count, len(s.GC.Pauses))
	}
	a.Apply([]decode.Event{&decode.ProcessCreate{PID: 200, Name: "worker.rb", Time: ms(5000)}, &decode.ClassDef{ClassID: 1, Name: "Bar", Time: ms(5000)},
		&decode.ObjAlloc{ObjID: 7, ClassIDRef: 1, Time: ms(5010)}}, 3, decode.Clock{}, t0)
	s = a.Snapshot(t0, Query{CallersOf: -1})
	if len(s.Objects.Census) != 0 || s.GC.Count != 0 || len(s.GC.Pauses) != 0 || len(s.GC.Collectors) != 0 {
		t.Fatalf("another process: census %v, GC %d collections, pauses %v, collectors %v", s.Objects.Census, s.GC.Count, s.GC.Pauses, s.GC.Collectors)
	}
	if len(s.Objects.Classes) != 1 || s.Objects.Classes[0].Class != "Bar" || s.Objects.Classes[0].Live != 1 || s.Process.PID != 200 {
		t.Fatalf("another process: classes %+v, pid %d", s.Objects.Classes, s.Process.PID)
	}
}

// Another process's threads are its own: those of the process before,
// which ended with it, are not listed beside them under the same ids and
// names (a Ruby script started again); the same process reconnected
// keeps its threads.
func TestAnotherProcessListsOnlyItsThreads(t *testing.T) {
	process := func(pid int32, at int) []decode.Event {
		return []decode.Event{&decode.ProcessCreate{PID: pid, Name: "app.rb"},
			&decode.ThreadStart{ThreadID: 60, ThreadName: "main"}, &decode.ThreadStart{ThreadID: 61, ThreadName: "poller"},
			&decode.Sample{ThreadIDRef: 60, Time: ms(at), Count: 1, Stack: decode.Stack{Methods: []string{"Calc#heavy"}, Lines: []int64{3}}}}
	}
	names := func(s *Snapshot) (out []string) {
		for _, th := range s.Threads {
			out = append(out, fmt.Sprintf("%d %s %s", th.ID, th.Name, th.State))
		}
		slices.Sort(out)
		return out
	}
	a := New(Options{})
	a.Apply(process(100, 0), 1, decode.Clock{}, t0)
	a.Apply(process(100, 1000), 1, decode.Clock{}, t0) // the same process, reconnected: its stream goes on (client.RbkitSource)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if got := names(s); len(got) != 2 || strings.Contains(strings.Join(got, ","), "ended") {
		t.Fatalf("the same process reconnected: %v", got)
	}
	a.Release(s)
	a.Apply(process(200, 5000), 2, decode.Clock{}, t0)
	s = a.Snapshot(t0, Query{CallersOf: -1})
	if got := names(s); len(got) != 2 || strings.Contains(strings.Join(got, ","), "ended") {
		t.Fatalf("another process: threads %v, want its own two", got)
	}
}

// The agent's cost is a share of CPU between two of one process's
// reports: never between the last of one process and the first of the
// next, whose counters began again.
func TestAnotherProcessBeginsTheAgentsCostAgain(t *testing.T) {
	cost := func(pid int32, at int, agent, process time.Duration) []decode.Event {
		return []decode.Event{&decode.ProcessCreate{PID: pid, Name: "app", Time: ms(at)},
			&decode.AgentCost{Time: ms(at), AgentCPU: decode.Ticks(agent), JFRCPU: 0, AgentThreads: 1, ProcessCPU: decode.Ticks(process)}}
	}
	a := New(Options{})
	a.Apply(append(cost(100, 0, 100*time.Millisecond, 5*time.Second), cost(100, 1000, 200*time.Millisecond, 6*time.Second)...), 1, decode.Clock{}, t0)
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if c := s.AgentCost; c == nil || c.AgentPercent < 9.9 || c.AgentPercent > 10.1 || c.JVMPercent < 99 || c.JVMPercent > 101 {
		t.Fatalf("one process: %+v", c)
	}
	a.Release(s)
	// A JVM restarted, whose agent has run longer and that has used more
	// CPU since it started than the one before.
	a.Apply(cost(200, 2000, 900*time.Millisecond, 30*time.Second), 2, decode.Clock{}, t0)
	s = a.Snapshot(t0, Query{CallersOf: -1})
	if c := s.AgentCost; c == nil || c.AgentCPU != 900*time.Millisecond || c.AgentPercent != 0 || c.JVMPercent != -1 {
		t.Fatalf("the first report of another process: %+v, want no share yet", c)
	}
}

// A process started again under the same pid (pid 1 in a container) is
// told from the one before by its source's id for it: its threads, heap
// and collections are its own; the same id, found again, keeps them.
func TestAnotherProcessUnderTheSamePid(t *testing.T) {
	process := func(id string, at int) []decode.Event {
		return []decode.Event{
			&decode.ProcessCreate{ProcessID: id, PID: 1, Name: "app.rb"},
			&decode.ThreadStart{ThreadID: 60, ThreadName: "main-" + id},
			&decode.GCTotals{Time: ms(at + 30), Collector: "minor GC", Count: 113},
			&decode.ObjectCensus{Time: ms(at + 20), Census: int64(at + 20), Class: "String", Count: 187, Bytes: -1, MaxCount: -1},
		}
	}
	threads := func(s *Snapshot) (out []string) {
		for _, th := range s.Threads {
			out = append(out, th.Name+" "+th.State.String())
		}
		slices.Sort(out)
		return out
	}
	a := New(Options{})
	a.Apply(process("1/1", 0), 1, decode.Clock{}, t0)
	a.Apply([]decode.Event{&decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: 60, ObjIDRef: 0x77, Time: ms(40)}},
		&decode.MonWaited{MonitorWait: decode.MonitorWait{ThreadIDRef: 60, ObjIDRef: 0x77, Time: ms(50)}}}, 1, decode.Clock{}, t0)
	a.Apply(process("1/1", 1000)[:1], 1, decode.Clock{}, t0) // found again
	s := a.Snapshot(t0, Query{CallersOf: -1})
	if got := threads(s); len(got) != 1 || s.GC.Count != 113 || len(s.Objects.Census) != 1 || len(s.Monitors) != 1 {
		t.Fatalf("the same process found again: threads %v, %d collections, census %v, %d monitors", got, s.GC.Count, s.Objects.Census, len(s.Monitors))
	}
	a.Release(s)
	a.Apply(process("1/2", 5000)[:2], 2, decode.Clock{}, t0) // started again, under pid 1
	s = a.Snapshot(t0, Query{CallersOf: -1})
	if got := threads(s); len(got) != 1 || got[0] != "main-1/2 running" || s.GC.Count != 0 || len(s.Objects.Census) != 0 || len(s.Monitors) != 0 {
		t.Fatalf("another process under the same pid: threads %v, %d collections, census %v, monitors %+v", got, s.GC.Count, s.Objects.Census, s.Monitors)
	}
}
