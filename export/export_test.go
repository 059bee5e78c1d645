package export

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/state"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

func frames(names ...string) decode.Stack {
	return decode.Stack{Methods: names, Lines: make([]int64, len(names))}
}

func sampledTree(t *testing.T) *state.CallTree {
	t.Helper()
	a := state.New(state.Options{})
	a.Apply([]decode.Event{
		&decode.Sample{ThreadIDRef: 1, Count: 3, Weight: 3000, Stack: frames("app.parse", "app.handle", "app.main")},
		&decode.Sample{ThreadIDRef: 1, Count: 1, Weight: 1000, Stack: frames("app.handle", "app.main")},
		&decode.Sample{ThreadIDRef: 2, Count: 2, Weight: 2000, Stack: frames("app.write(Ljava/lang/String;)V", "app.handle", "app.main")},
	}, 1, decode.Clock{}, t0)
	shape, figs := a.TreeAndShape(false)
	return state.BuildCallTree(shape, nil, figs)
}

// paths sums a tree's self values by path, root first.
func paths(tr *state.CallTree, weight bool) map[string]int64 {
	out := map[string]int64{}
	for i := 1; i < len(tr.Nodes); i++ {
		v := tr.Nodes[i].SelfN
		if weight {
			v = tr.Nodes[i].Self
		}
		if v != 0 {
			out[strings.Join(tr.Path(int32(i)), ";")] += v
		}
	}
	return out
}

func TestPprofReadsBackWithThePprofLibrary(t *testing.T) {
	tree := sampledTree(t)
	var b bytes.Buffer
	if err := Pprof(&b, tree, Span{From: t0, To: t0.Add(time.Minute), Source: "test", Sampled: true}); err != nil {
		t.Fatal(err)
	}
	back, p, err := ReadPprof(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.SampleType) != 2 || p.SampleType[0].Type != "samples" || p.SampleType[1].Unit != "nanoseconds" || p.DurationNanos != int64(time.Minute) ||
		p.PeriodType == nil || p.PeriodType.Type != "samples" || p.Period != 1 {
		t.Fatalf("sample types %v, period %v × %d, duration %d", p.SampleType, p.PeriodType, p.Period, p.DurationNanos)
	}
	for _, weight := range []bool{false, true} {
		want, got := paths(tree, weight), paths(back, weight)
		if len(want) != 3 || len(got) != len(want) {
			t.Fatalf("paths %v, read back %v", want, got)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%s: %d, read back %d", k, v, got[k])
			}
		}
	}
}

// A profile's time is the span's start, or unset when that is unknown
// (rbkit says nothing of its process's start): never the zero time's
// nanoseconds, which pprof shows as a date in 1754.
func TestPprofTime(t *testing.T) {
	tree := sampledTree(t)
	for _, tc := range []struct {
		name           string
		span           Span
		time, duration int64
	}{
		{"known", Span{From: t0, To: t0.Add(time.Minute)}, t0.UnixNano(), int64(time.Minute)},
		{"unknown start", Span{To: t0}, 0, 0},
		{"a start alone", Span{From: t0}, t0.UnixNano(), 0},
	} {
		var b bytes.Buffer
		if err := Pprof(&b, tree, tc.span); err != nil {
			t.Fatal(err)
		}
		_, p, err := ReadPprof(&b)
		if err != nil {
			t.Fatal(err)
		}
		if p.TimeNanos != tc.time || p.DurationNanos != tc.duration {
			t.Errorf("%s: time %d, duration %d; want %d, %d", tc.name, p.TimeNanos, p.DurationNanos, tc.time, tc.duration)
		}
	}
}

func TestCollapsedStacks(t *testing.T) {
	tree := sampledTree(t)
	var b bytes.Buffer
	if err := Collapsed(&b, tree, ValueCount); err != nil {
		t.Fatal(err)
	}
	want := "app.main;app.handle 1\napp.main;app.handle;app.parse 3\napp.main;app.handle;app.write 2\n"
	if b.String() != want {
		t.Fatalf("collapsed:\n%s\nwant:\n%s", b.String(), want)
	}
	stacks, err := ReadCollapsed(&b)
	if err != nil || len(stacks) != 3 || stacks[1].Value != 3 || len(stacks[1].Frames) != 3 || stacks[1].Frames[0] != "app.main" {
		t.Fatalf("%v %+v", err, stacks)
	}
	b.Reset()
	Collapsed(&b, tree, ValueAuto) // times, in microseconds: 1000 ns is 1 µs
	if !strings.HasPrefix(b.String(), "app.main;app.handle 1\napp.main;app.handle;app.parse 3\n") {
		t.Fatalf("times:\n%s", b.String())
	}
	if got := frameName("a.b(Ljava/lang/String;)V x"); got != "a.b(Ljava/lang/String,)V_x" {
		t.Fatalf("a frame name kept whole: %q", got)
	}
	for _, bad := range []string{"a;b", "a;b x", "a;b -3"} {
		if _, err := ReadCollapsed(strings.NewReader(bad + "\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}

// A method the trace names with its JVM descriptor (overloads apart, as a
// Jinsight trace's are) is exported as Java writes it, as the panes show
// it; pprof keeps the trace's own name as the system name, and a profile
// read back has it.
func TestExportsNameMethodsAsJavaDoes(t *testing.T) {
	raw := "java.lang.Object.wait(J)V"
	tree := &state.CallTree{Weighted: true, Nodes: []state.CallNode{
		{Parent: -1, Name: "all threads", Kids: []int32{1}},
		{Parent: 0, Name: "app.Main.main([Ljava/lang/String;)V", Depth: 1, Kids: []int32{2}},
		{Parent: 1, Name: raw, Depth: 2, Self: 5000, SelfN: 2},
	}}
	var b bytes.Buffer
	if err := Collapsed(&b, tree, ValueCount); err != nil {
		t.Fatal(err)
	}
	if want := "app.Main.main(String[]);java.lang.Object.wait(long) 2\n"; b.String() != want {
		t.Fatalf("collapsed %q, want %q", b.String(), want)
	}
	b.Reset()
	if err := Pprof(&b, tree, Span{}); err != nil {
		t.Fatal(err)
	}
	back, p, err := ReadPprof(&b)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, f := range p.Function {
		names[f.Name] = f.SystemName
	}
	if names["java.lang.Object.wait(long)"] != raw || names["app.Main.main(String[])"] != "app.Main.main([Ljava/lang/String;)V" {
		t.Fatalf("functions (name: system name) %v", names)
	}
	if got := back.Path(2); len(got) != 2 || got[1] != raw {
		t.Fatalf("read back %v, want the trace's own names", got)
	}
}

// A trace's names may hold escape sequences (colours, a window title,
// OSC 52 clipboard writes): both formats write them as visible escapes,
// for collapsed stacks and pprof's text are read on terminals.
func TestExportsWriteNoControlCharacters(t *testing.T) {
	evil := "com.Evil\x1b[31mRed.run\x1b]52;c;aGk=\x07\u202e\x9b"
	tree := &state.CallTree{Weighted: true, Nodes: []state.CallNode{
		{Parent: -1, Name: "all threads", Kids: []int32{1}},
		{Parent: 0, Name: evil, Depth: 1, Self: 5000, SelfN: 2},
	}}
	var collapsed, pprof bytes.Buffer
	if err := Collapsed(&collapsed, tree, ValueCount); err != nil {
		t.Fatal(err)
	}
	if err := Pprof(&pprof, tree, Span{}); err != nil {
		t.Fatal(err)
	}
	_, p, err := ReadPprof(&pprof)
	if err != nil {
		t.Fatal(err)
	}
	written := []string{collapsed.String(), p.Function[0].Name, p.Function[0].SystemName}
	for _, s := range written {
		if strings.ContainsAny(s, "\x1b\x07\u202e\x9b") {
			t.Fatalf("raw control characters written: %q", s)
		}
	}
	if !strings.Contains(written[0], `com.Evil\x1b[31mRed.run\x1b]52,c,aGk=\x07\u202e\x9b 2`) {
		t.Fatalf("collapsed: %q", written[0])
	}
}
