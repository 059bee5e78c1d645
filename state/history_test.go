package state

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
)

// simulatedHistory feeds seconds of the simulated service (a deadlock 2 s
// in, for 4 s, every 8 s) through an aggregator, a picture a second.
func simulatedHistory(t testing.TB, seconds int, opts HistoryOptions) (*Aggregator, *History) {
	t.Helper()
	w := simulator.NewWorld(simulator.Config{Seed: 1, Start: t0, DeadlockEvery: 8 * time.Second, DeadlockFor: 4 * time.Second})
	a := New(Options{})
	h := NewHistory(opts)
	r := NewRecorder(a, h)
	var b decode.Batch
	for s := 1; s <= seconds; s++ {
		end := t0.Add(time.Duration(s) * time.Second)
		for w.Now().Before(end) {
			b.Add(w.Next())
			if b.Len() == 4096 {
				a.Apply(b.Events(), 1, decode.Clock{}, w.Now())
				b.Reset()
			}
		}
		a.Apply(b.Events(), 1, decode.Clock{}, end)
		b.Reset()
		r.Take(end)
	}
	return a, h
}

func TestHistoryMarksDeadlocksAndKeepsTheirStacks(t *testing.T) {
	_, h := simulatedHistory(t, 20, HistoryOptions{})
	pics := h.Pictures()
	if len(pics) != 20 {
		t.Fatalf("%d pictures", len(pics))
	}
	var marked []int
	for i, p := range pics {
		if p.Marks&MarkDeadlock != 0 {
			marked = append(marked, i)
			if len(p.Snap.Deadlocks) == 0 {
				t.Fatalf("picture %d is marked but shows no deadlock", i)
			}
		}
		if p.Bytes() <= 0 || !p.Snap.picture {
			t.Fatalf("picture %d: %d bytes", i, p.Bytes())
		}
	}
	// Two deadlocks begin in 20 s (at about 2 s and 10 s), each marked once.
	if len(marked) != 2 {
		t.Fatalf("deadlock marks at %v", marked)
	}
	// The picture after a deadlock cleared shows none: it is the past.
	cleared := false
	for _, p := range pics[marked[0]:marked[1]] {
		cleared = cleared || len(p.Snap.Deadlocks) == 0
	}
	if !cleared {
		t.Fatal("the first deadlock never cleared")
	}
	ds := h.Deadlocks()
	if len(ds) != 2 {
		t.Fatalf("%d deadlocks recorded", len(ds))
	}
	for _, d := range ds {
		if len(d.Stacks) != 2 || len(d.Stacks[0]) == 0 || len(d.Stacks[1]) == 0 || !d.Last.After(d.First) {
			t.Fatalf("deadlock %+v", d)
		}
	}
	// Every table is cut to the rows asked for, deadlocked threads first.
	_, small := simulatedHistory(t, 4, HistoryOptions{Rows: 5})
	for _, p := range small.Pictures() {
		if len(p.Snap.Threads) > 5 || len(p.Snap.Methods) > 5 || len(p.Snap.Monitors) > 5 || p.Of.Threads <= 5 {
			t.Fatalf("%d threads, %d methods, %d monitors kept of %+v", len(p.Snap.Threads), len(p.Snap.Methods), len(p.Snap.Monitors), p.Of)
		}
		for _, d := range p.Snap.Deadlocks {
			for _, id := range d.Threads {
				if threadOfID(p.Snap.Threads, id) == nil {
					t.Fatalf("deadlocked thread %d not kept", id)
				}
			}
		}
	}
}

func TestHistoryBounds(t *testing.T) {
	_, h := simulatedHistory(t, 10, HistoryOptions{Span: 4 * time.Second})
	pics := h.Pictures()
	if len(pics) != 5 || pics[len(pics)-1].At.Sub(pics[0].At) != 4*time.Second {
		t.Fatalf("span: %d pictures", len(pics))
	}
	_, h = simulatedHistory(t, 10, HistoryOptions{MaxBytes: 1})
	if h.Len() != 1 {
		t.Fatalf("bytes: %d pictures kept with a 1-byte bound", h.Len())
	}
	_, h = simulatedHistory(t, 10, HistoryOptions{})
	n, bytes, covers, capacity := h.Usage()
	if n != 10 || bytes <= 0 || covers != 9*time.Second || capacity < 15*time.Minute {
		t.Fatalf("usage %d pictures, %d bytes, covering %v, room for %v", n, bytes, covers, capacity)
	}
}

// The call tree of a past moment is the window's that ended then.
func TestHistoryCallTreeOfAPastMoment(t *testing.T) {
	a, h := simulatedHistory(t, 12, HistoryOptions{})
	pics := h.Pictures()
	shape, _ := a.TreeAndShape(true)
	past := BuildCallTree(shape, nil, TreeAt(pics, 5, 10*time.Second)...)
	all := BuildCallTree(shape, nil, TreeAt(pics, 11, time.Hour)...)
	if past.Nodes[0].TotalN == 0 || all.Nodes[0].TotalN <= past.Nodes[0].TotalN {
		t.Fatalf("calls to picture 5: %d; to the end: %d", past.Nodes[0].TotalN, all.Nodes[0].TotalN)
	}
	_, cum := a.TreeAndShape(false)
	whole := BuildCallTree(shape, nil, cum)
	// Every closed second was recorded once: the last picture's deltas add
	// up to what the aggregator counted, less the second still open.
	if all.Nodes[0].TotalN > whole.Nodes[0].TotalN || all.Nodes[0].TotalN < whole.Nodes[0].TotalN*8/10 {
		t.Fatalf("history %d calls, aggregator %d", all.Nodes[0].TotalN, whole.Nodes[0].TotalN)
	}
}

func TestPictureJSONRoundTrip(t *testing.T) {
	_, h := simulatedHistory(t, 4, HistoryOptions{})
	for _, p := range h.Pictures() {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var back Picture
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		again, _ := json.Marshal(&back)
		if string(again) != string(b) {
			t.Fatalf("round trip differs:\n%s\n%s", b, again)
		}
		if !back.Snap.picture || len(back.Snap.Methods) != len(p.Snap.Methods) || back.Snap.MethodName(&back.Snap.Methods[0]) == "" {
			t.Fatal("methods lost")
		}
		if back.Snap.KeptOf() != p.Snap.KeptOf() || p.Snap.KeptOf().Threads == 0 {
			t.Fatalf("the rows there were: %+v read back, %+v written", back.Snap.KeptOf(), p.Snap.KeptOf())
		}
	}
	var p Picture
	if err := json.Unmarshal([]byte(`{"at":"2026-01-01T00:00:00Z"}`), &p); err == nil {
		t.Fatal("a picture without its snapshot was read")
	}
}

// A picture keeps a telemetry series' latest points only: the snapshot's
// copy of every window, a second apart, would otherwise be kept for
// minutes; what it keeps counts against the history's bound.
func TestPictureKeepsTheLatestTelemetryPoints(t *testing.T) {
	points := make([]Point, 300)
	for i := range points {
		points[i] = Point{At: t0.Add(time.Duration(i) * time.Second), Value: int64(i)}
	}
	s := &Snapshot{Telemetry: []Series{{Name: "Heap used", Points: points, Older: make([]Bucket, 40)}}}
	p := NewPicture(s, t0, 100)
	got := p.Snap.Telemetry[0]
	if len(got.Points) != pictureSeriesPoints || got.Points[len(got.Points)-1].Value != 299 || got.Older != nil {
		t.Fatalf("kept %d points ending %v, %d older", len(got.Points), got.Points[len(got.Points)-1], len(got.Older))
	}
	if len(s.Telemetry[0].Points) != 300 {
		t.Fatal("the snapshot's series were changed")
	}
	bare := NewPicture(&Snapshot{}, t0, 100)
	h := NewHistory(HistoryOptions{})
	h.Add(p)
	h.Add(bare)
	if p.Bytes() <= bare.Bytes() {
		t.Fatalf("the series count for nothing: %d bytes against %d", p.Bytes(), bare.Bytes())
	}
}

// A picture keeps the busiest groups of virtual threads, each listing its
// first threads: a listing may hold thousands, a picture a second.
func TestPictureKeepsTheBusiestVirtualGroups(t *testing.T) {
	groups := make([]VirtualGroup, 300)
	for i := range groups {
		groups[i] = VirtualGroup{Count: int64(300 - i), Threads: make([]VirtualThread, 500)}
	}
	p := NewPicture(&Snapshot{VirtualGroups: groups}, t0, 100)
	got := p.Snap.VirtualGroups
	if len(got) != 100 || got[0].Count != 300 || len(got[0].Threads) != pictureGroupThreads || len(groups[0].Threads) != 500 {
		t.Fatalf("kept %d groups, the first of %d with %d threads", len(got), got[0].Count, len(got[0].Threads))
	}
}

// A recording read to its end stays at its last moment: a picture a step
// after that would be the same moment again, and a minute back in the
// history would land on it. On the wall clock, time passes with or
// without events (the window empties), and every step is a picture.
func TestRecordingAtItsEndAddsNoPictures(t *testing.T) {
	for _, traceTime := range []bool{true, false} {
		a := New(Options{TraceTime: traceTime})
		h := NewHistory(HistoryOptions{})
		r := NewRecorder(a, h)
		w := simulator.NewWorld(simulator.Config{Seed: 1, Start: t0})
		apply := func(n int) {
			var b decode.Batch
			for range n {
				b.Add(w.Next())
			}
			a.Apply(b.Events(), 1, decode.Clock{}, t0)
		}
		apply(500)
		took := []bool{r.Take(t0.Add(time.Second)) != nil, r.Take(t0.Add(2*time.Second)) != nil}
		apply(1)
		took = append(took, r.Take(t0.Add(3*time.Second)) != nil)
		if want := []bool{true, !traceTime, true}; !slices.Equal(took, want) {
			t.Errorf("trace time %v: pictures taken %v, want %v", traceTime, took, want)
		}
	}
}

// A recording read at once keeps a picture a second of its own time,
// dated by it, and one of its end: not one a second of the reading, nor
// one a batch (a quiet JVM's recording of 8 s, 453 events, was one batch,
// and kept one picture), nor none where the event that reaches a
// picture's moment opens its batch (a paced or followed file's batches).
func TestRecordingKeepsAPictureASecondOfItsOwnTime(t *testing.T) {
	for _, perBatch := range []int{1, 1000, 1 << 30} {
		a := New(Options{TraceTime: true})
		h := NewHistory(HistoryOptions{})
		a.RecordOnTraceTime(NewRecorder(a, h), time.Second)
		w := simulator.NewWorld(simulator.Config{Seed: 1, Start: t0})
		src := &listSource{ch: make(chan *client.Batch)}
		go func() {
			sendSeconds(src.ch, w, t0.Add(6*time.Second), perBatch, false)
			close(src.ch)
		}()
		a.Feed(src)
		pics := h.Pictures()
		end := a.Snapshot(time.Now(), Query{}).Clock
		if len(pics) < 5 || len(pics) > 7 || !pics[len(pics)-1].At.Equal(end) {
			t.Fatalf("batches of %d: %d pictures, the last at %v; the recording ends at %v", perBatch, len(pics), pics[len(pics)-1].At, end)
		}
		for i, p := range pics {
			if !p.At.Equal(p.Snap.Clock) || p.At.Before(t0) || p.At.After(end) {
				t.Errorf("batches of %d: picture %d at %v, of trace time %v", perBatch, i, p.At, p.Snap.Clock)
			}
			if gap := p.At.Sub(pics[max(i-1, 0)].At); i > 0 && i < len(pics)-1 && (gap < 900*time.Millisecond || gap > 1100*time.Millisecond) {
				t.Errorf("batches of %d: pictures %d and %d %v apart", perBatch, i-1, i, gap)
			}
		}
	}
}

// A followed file that starts over (truncated, replaced) is another
// recording: its history begins again with it. Its pictures, of times the
// old one's had passed, were never taken.
func TestRecordingStartedOverBeginsItsHistoryAgain(t *testing.T) {
	a := New(Options{TraceTime: true})
	h := NewHistory(HistoryOptions{})
	a.RecordOnTraceTime(NewRecorder(a, h), time.Second)
	src := &listSource{ch: make(chan *client.Batch)}
	go func() {
		for run := range 2 {
			// The second file was recorded an hour before the first.
			start := t0.Add(-time.Duration(run) * time.Hour)
			w := simulator.NewWorld(simulator.Config{Seed: 1, Start: start})
			sendSeconds(src.ch, w, start.Add(4*time.Second), 500, run == 1)
		}
		close(src.ch)
	}()
	a.Feed(src)
	pics := h.Pictures()
	if len(pics) < 3 || len(pics) > 5 || !pics[len(pics)-1].At.Before(t0) {
		t.Fatalf("%d pictures after the start over, from %v to %v; want those of the second file, an hour before the first", len(pics), pics[0].At, pics[len(pics)-1].At)
	}
}

// sendSeconds sends the simulated service's events until end, in batches
// of perBatch; the first says the source started over when restart.
func sendSeconds(ch chan<- *client.Batch, w *simulator.World, end time.Time, perBatch int, restart bool) {
	b := &client.Batch{Stream: 1, Restart: restart}
	for w.Now().Before(end) {
		b.Add(w.Next())
		if b.Len() == perBatch {
			ch <- b
			b = &client.Batch{Stream: 1}
		}
	}
	ch <- b
}

// The picture of a run's end is not taken less than half a step after
// the latest: two pictures of one moment, a millisecond apart, were
// written by a run that ended just after a picture was taken.
func TestTheEndsPictureKeepsAStepFromTheLatest(t *testing.T) {
	agg, hist := New(Options{}), NewHistory(HistoryOptions{})
	rec := NewRecorder(agg, hist)
	agg.Apply([]decode.Event{&decode.ThreadStart{ThreadID: 1, ThreadName: "t", Time: 1}}, 1, decode.Clock{}, t0)
	for _, tc := range []struct {
		after time.Duration
		taken bool
	}{
		{0, true}, // the first: nothing before it
		{time.Millisecond, false},
		{499 * time.Millisecond, false},
		{500 * time.Millisecond, true},
		{2500 * time.Millisecond, true}, // a slow refresh's end, below: half a second, not half its step
	} {
		step := time.Second
		if tc.after > time.Second {
			step = 4 * time.Second
		}
		if got := rec.TakeFinal(t0.Add(tc.after), step) != nil; got != tc.taken {
			t.Fatalf("%v after the first picture: taken %v, want %v", tc.after, got, tc.taken)
		}
	}
	if n := len(hist.Pictures()); n != 3 {
		t.Fatalf("%d pictures, want 3", n)
	}
}
