package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// readBack writes pictures as a bundle does (history.jsonl, then the
// call-tree weights) and reads them back as replay does.
func readBack(t *testing.T, pics []*Picture, live TreeShape) ([]*Picture, *PastTrees) {
	t.Helper()
	var hist, trees bytes.Buffer
	for _, p := range pics {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		hist.Write(append(b, '\n'))
	}
	pt := NewPastTrees(pics, live)
	if err := pt.Write(&trees); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	pt.Write(&again)
	if !bytes.Equal(trees.Bytes(), again.Bytes()) {
		t.Fatal("written twice, the weights differ: a bundle counts them before writing them")
	}
	var out []*Picture
	sc := bufio.NewScanner(&hist)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		p := &Picture{}
		if err := json.Unmarshal(sc.Bytes(), p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := ReadPastTrees(&trees, out); err != nil {
		t.Fatal(err)
	}
	return out, pt
}

// The call tree of every past moment, read back with the part of the
// shape it needs, is the tree the recording aggregator built of it.
func TestPastTreesRoundTrip(t *testing.T) {
	a, h := simulatedHistory(t, 14, HistoryOptions{})
	pics := h.Pictures()
	live := a.TreeShape()
	back, pt := readBack(t, pics, live)
	if pt.Pictures() != len(pics) || pt.Nodes() == 0 || pt.Nodes() > live.Nodes() {
		t.Fatalf("%d pictures with weights of %d, %d nodes of %d", pt.Pictures(), len(pics), pt.Nodes(), live.Nodes())
	}
	for _, tc := range []struct {
		name   string
		i      int
		window time.Duration
		keep   func(TreeThread) bool
	}{
		{"the oldest", 0, 10 * time.Second, nil},
		{"a deadlock", 3, 10 * time.Second, nil},
		{"the newest, the window", len(pics) - 1, 10 * time.Second, nil},
		{"the newest, 3 s", len(pics) - 1, 3 * time.Second, nil},
		{"threads kept by a filter", 9, 10 * time.Second, func(th TreeThread) bool { return strings.HasPrefix(th.Name, "pool-") }},
	} {
		want := PastCallTree(pics, tc.i, tc.window, tc.keep, a.TreeShape)
		got := PastCallTree(back, tc.i, tc.window, tc.keep, func() TreeShape {
			t.Fatal("a picture read back asked for the live tree's shape")
			return TreeShape{}
		})
		if len(want.Nodes) < 10 {
			t.Fatalf("%s: a tree of %d nodes", tc.name, len(want.Nodes))
		}
		if d := treeDiff(want, got); d != "" {
			t.Errorf("%s: %s", tc.name, d)
		}
	}
}

// treeDiff says how two trees differ, by path (their numbering differs).
func treeDiff(want, got *CallTree) string {
	byPath := func(t *CallTree) map[string]CallNode {
		out := map[string]CallNode{}
		for i := range t.Nodes {
			n := t.Nodes[i]
			n.Kids, n.Parent = nil, 0
			out[strings.Join(t.Path(int32(i)), ";")] = n
		}
		return out
	}
	w, g := byPath(want), byPath(got)
	if len(w) != len(g) {
		return "nodes: " + strconv.Itoa(len(g)) + ", want " + strconv.Itoa(len(w))
	}
	for p, n := range w {
		if m, ok := g[p]; !ok || m.Self != n.Self || m.Total != n.Total || m.SelfN != n.SelfN || m.TotalN != n.TotalN || m.Name != n.Name {
			return "at " + p + ": differs"
		}
	}
	if len(want.Threads) != len(got.Threads) || want.Weighted != got.Weighted {
		return "threads or weighting differ"
	}
	for i := range want.Threads {
		a, b := want.Threads[i], got.Threads[i]
		if a.ID != b.ID || a.Name != b.Name || a.Total != b.Total {
			return "thread " + a.Name + " differs"
		}
	}
	return ""
}

func TestPastTreesRefusesBadLines(t *testing.T) {
	pics := []*Picture{{At: t0, Snap: &Snapshot{}}}
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "no shape"},
		{"not JSON", "{", "line 1"},
		{"odd node numbers", `{"nodes":[-1]}`, "two a node"},
		{"a parent after its child", `{"threads":[{"id":1}],"methods":["m"],"nodes":[-1,0,2,0,1,0]}`, "node 1"},
		{"no such thread", `{"nodes":[-1,3]}`, "thread 3"},
		{"no such node", `{"threads":[{"id":1}],"nodes":[-1,0]}` + "\n" + `{"at":"2026-11-21T09:00:00Z","figs":[5,1,1]}`, "node 5"},
		{"figures not in threes", `{"threads":[{"id":1}],"nodes":[-1,0]}` + "\n" + `{"at":"2026-11-21T09:00:00Z","figs":[0,1]}`, "line 2"},
		{"seconds not in twos", `{"threads":[{"id":1}],"nodes":[-1,0]}` + "\n" + `{"at":"2026-11-21T09:00:00Z","figs":[0,1,1],"seconds":[5]}`, "not a start and an end"},
		{"a second past the figures", `{"threads":[{"id":1}],"nodes":[-1,0]}` + "\n" + `{"at":"2026-11-21T09:00:00Z","figs":[0,1,1],"seconds":[5,2]}`, "ends at node 2"},
		{"seconds out of order", `{"threads":[{"id":1}],"nodes":[-1,0]}` + "\n" + `{"at":"2026-11-21T09:00:00Z","figs":[0,1,1],"seconds":[5,1,6,0]}`, "second 1 ends at node 0, after 1"},
	} {
		err := ReadPastTrees(strings.NewReader(tc.text), pics)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A picture keeps its methods' figures since the start beside the
// window's, and they survive the JSON of a bundle.
func TestPictureKeepsFiguresSinceTheStart(t *testing.T) {
	a, h := simulatedHistory(t, 12, HistoryOptions{})
	pics := h.Pictures()
	last := pics[len(pics)-1].Snap
	if len(last.Since) != len(last.Methods) || len(last.Methods) == 0 {
		t.Fatalf("%d figures since the start, %d methods", len(last.Since), len(last.Methods))
	}
	now := a.Snapshot(pics[len(pics)-1].At, Query{CallersOf: -1})
	for i := range last.Methods {
		m, since := &last.Methods[i], &last.Since[i]
		cum := methodByName(now, last.MethodName(m))
		if since.Slot != m.Slot || since.Calls != cum.Calls || since.Self != cum.Self || since.Calls < m.Calls || since.Self < m.Self {
			t.Fatalf("%s: since %+v, cumulative %+v, window %+v", last.MethodName(m), since, cum, m)
		}
	}
	if first := pics[0].Snap; first.Since[0].Calls != first.Methods[0].Calls {
		t.Fatalf("a second in, the window is all there was: %+v and %+v", first.Since[0], first.Methods[0])
	}
	back, _ := readBack(t, pics[len(pics)-1:], a.TreeShape())
	got := back[0].Snap
	for i := range last.Since {
		if got.Since[i] != last.Since[i] || got.Names[i] != last.Names[i] {
			t.Fatalf("read back %+v, want %+v", got.Since[i], last.Since[i])
		}
	}
}

// The thread starts a stream begins with (a bundle's stream gives those of
// the minutes it holds first) do not move the trace's clock: the JVM's
// uptime and how long a deadlock lasted are the events' time.
func TestLeadingThreadStartsDoNotMoveTheClock(t *testing.T) {
	a := New(Options{})
	feed(a, &decode.ProcessCreate{PID: 1, Time: ms(0)},
		&decode.ThreadStart{ThreadID: 1, Time: ms(0)},
		&decode.ThreadStart{ThreadID: 2, Time: ms(90_000)}, // starts 90 s in
		&decode.ThreadCPU{ThreadIDRef: 1, Time: ms(14_000)})
	if s := a.Snapshot(t0, Query{CallersOf: -1}); !s.Clock.Equal(t0.Add(14*time.Second)) || !s.First.Equal(s.Clock) {
		t.Fatalf("clock %v, first %v: want 14 s in", s.Clock.Sub(t0), s.First.Sub(t0))
	}
	// Once the events have begun, a thread start is an event like any other.
	feed(a, &decode.ThreadStart{ThreadID: 3, Time: ms(20_000)})
	if s := a.Snapshot(t0, Query{CallersOf: -1}); !s.Clock.Equal(t0.Add(20 * time.Second)) {
		t.Fatalf("clock %v", s.Clock.Sub(t0))
	}
}

// A past moment's call tree holds the second still open when its picture
// was taken, as the picture's methods do: a replay read whole within a
// second showed an empty or partial tree for the moments it recorded.
// Read back from a bundle, it is the same.
func TestPastTreeHoldsTheSecondStillOpen(t *testing.T) {
	agg, hist := New(Options{}), NewHistory(HistoryOptions{})
	rec := NewRecorder(agg, hist)
	t0 := time.Unix(2_000_000, 0)
	samples := func(at time.Duration, n int, frames ...string) {
		var evs []decode.Event
		for range n {
			evs = append(evs, &decode.Sample{ThreadIDRef: 1, Time: 2, Count: 1, Weight: 10, Stack: decode.Stack{Methods: frames, Lines: make([]int64, len(frames))}})
		}
		agg.Apply(evs, 1, decode.Clock{}, t0.Add(at))
	}
	total := func(tr *CallTree) int64 { _, w := tr.Value(&tr.Nodes[0]); return w }
	agg.Apply([]decode.Event{&decode.ThreadStart{ThreadID: 1, ThreadName: "main", Time: 1}}, 1, decode.Clock{}, t0)
	samples(100*time.Millisecond, 3, "a.B.run", "a.B.main")
	rec.Take(t0.Add(500 * time.Millisecond)) // no second closed yet
	samples(1200*time.Millisecond, 4, "a.B.other", "a.B.main")
	rec.Take(t0.Add(1500 * time.Millisecond)) // the first closed, the second open
	rec.Take(t0.Add(1700 * time.Millisecond)) // nothing new: the open second seen again
	pics := hist.Pictures()
	if len(pics[2].TreeOpen) == 0 || &pics[2].TreeOpen[0] != &pics[1].TreeOpen[0] {
		t.Error("an idle second seen again by the next picture is kept twice")
	}
	pics = pics[:2]
	live := agg.TreeShape()
	back, _ := readBack(t, pics, live)
	for i, want := range []int64{30, 70} {
		if got := total(PastCallTree(pics, i, 10*time.Second, nil, agg.TreeShape)); got != want {
			t.Errorf("picture %d: past tree weighs %d, want %d", i, got, want)
		}
		if got := total(PastCallTree(back, i, 10*time.Second, nil, nil)); got != want {
			t.Errorf("picture %d read back: past tree weighs %d, want %d", i, got, want)
		}
	}
	// The open second of the first picture is in the second's closed
	// figures, counted once.
	shape, window := agg.TreeAndShape(true)
	if got, want := total(PastCallTree(pics, 1, 10*time.Second, nil, agg.TreeShape)), total(BuildCallTree(shape, nil, window)); got != want {
		t.Errorf("the latest picture's past tree weighs %d, the live window's %d", got, want)
	}
}

// A past moment's call tree is the window its picture's methods saw: the
// second still open and the seconds closed before it, as many as the live
// window holds, however the pictures fell (a late tick closes two seconds
// at once, a quick one none). Counting the pictures taken within the
// window instead counted a second or two more: 11 or 12 seconds of 10.
func TestPastTreeIsTheLiveWindowOfItsMoment(t *testing.T) {
	agg, hist := New(Options{}), NewHistory(HistoryOptions{})
	rec := NewRecorder(agg, hist)
	t0 := time.Unix(2_000_000, 0)
	total := func(tr *CallTree) int64 { _, w := tr.Value(&tr.Nodes[0]); return w }
	agg.Apply([]decode.Event{&decode.ThreadStart{ThreadID: 1, ThreadName: "main", Time: 1}}, 1, decode.Clock{}, t0)
	var wants []int64
	// Pictures 1 s apart, but for a late tick (at 12.95 s after 10.5 s)
	// and a quick one (13.05 s).
	at := []time.Duration{}
	for k := range 30 {
		switch k {
		case 11:
		case 12:
			at = append(at, 12950*time.Millisecond, 13050*time.Millisecond)
		default:
			at = append(at, time.Duration(k)*time.Second+500*time.Millisecond)
		}
	}
	next := 0 // the next second to sample
	for _, moment := range at {
		for ; time.Duration(next)*time.Second+100*time.Millisecond <= moment; next++ {
			agg.Apply([]decode.Event{&decode.Sample{ThreadIDRef: 1, Time: 2, Count: 1, Weight: 10,
				Stack: decode.Stack{Methods: []string{"a.B.run"}, Lines: []int64{0}}}}, 1, decode.Clock{}, t0.Add(time.Duration(next)*time.Second+100*time.Millisecond))
		}
		rec.Take(t0.Add(moment))
		shape, window := agg.TreeAndShape(true)
		wants = append(wants, total(BuildCallTree(shape, nil, window)))
	}
	pics := hist.Pictures()
	back, _ := readBack(t, pics, agg.TreeShape())
	for i, want := range wants {
		if got := total(PastCallTree(pics, i, 10*time.Second, nil, agg.TreeShape)); got != want {
			t.Errorf("picture %d (%v): past tree weighs %d, the live window then %d", i, pics[i].At.Sub(t0), got, want)
		}
		if got := total(PastCallTree(back, i, 10*time.Second, nil, nil)); got != want {
			t.Errorf("picture %d read back: past tree weighs %d, the live window then %d", i, got, want)
		}
	}
}
