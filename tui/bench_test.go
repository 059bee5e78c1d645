package tui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/state"
)

// frameTimer adds up the CPU time of the timed parts of a benchmark.
type frameTimer struct {
	b       *testing.B
	cpu     time.Duration
	started time.Duration
}

func newFrameTimer(b *testing.B) *frameTimer { return &frameTimer{b: b, started: processCPU()} }

func (t *frameTimer) stop() {
	t.b.StopTimer()
	t.cpu += processCPU() - t.started
}

func (t *frameTimer) start() {
	t.started = processCPU()
	t.b.StartTimer()
}

// report gives the wall and CPU milliseconds per frame.
func (t *frameTimer) report() {
	t.cpu += processCPU() - t.started
	t.b.ReportMetric(float64(t.b.Elapsed().Microseconds())/float64(t.b.N)/1000, "ms/frame")
	t.b.ReportMetric(float64(t.cpu.Microseconds())/float64(t.b.N)/1000, "cpu-ms/frame")
}

// bigPicture is an aggregator holding 10,000 threads, 100,000 methods with
// calls and 1,000 monitors, half of them contended.
func bigPicture(b *testing.B) *state.Aggregator {
	const threads, methods, classes, monitors = 10_000, 100_000, 2_000, 1_000
	agg := state.New(state.Options{})
	var evs []decode.Event
	flush := func() {
		agg.Apply(evs, 1, decode.Clock{}, t0)
		evs = evs[:0]
	}
	for c := range classes {
		evs = append(evs, &decode.ClassDef{ClassID: int64(c + 1), Name: fmt.Sprintf("com.example.module%d.Service%d", c%37, c)})
	}
	for m := range methods {
		evs = append(evs, &decode.MethodDef{Name: fmt.Sprintf("operation%d", m), ClassIDRef: int64(m%classes + 1), MethodID: int64(m + 1), StartLineNumber: int64(m % 900)})
	}
	for t := range threads {
		evs = append(evs, &decode.ThreadStart{ThreadID: int64(t + 1), ThreadName: fmt.Sprintf("worker-%d", t), GroupName: "main", Time: decode.Ticks(t)})
	}
	flush()
	now := decode.Ticks(1_000_000)
	for m := range methods {
		th := int64(m%threads + 1)
		evs = append(evs, &decode.MethodEntry{ThreadIDRef: th, MethodIDRef: int64(m + 1), Ticket: int32(m + 1), Time: now},
			&decode.MethodExit{ThreadIDRef: th, Ticket: int32(m + 1), Time: now + decode.Ticks(m%5000), ThreadCPUTime: now})
		now += 10
		if len(evs) > 8192 {
			flush()
		}
	}
	st := decode.Stack{Methods: make([]string, 12), Lines: make([]int64, 12)}
	for i := range st.Methods {
		st.Methods[i] = fmt.Sprintf("com.example.module%d.Service%d.operation%d", i, i, i)
	}
	for mon := range monitors {
		owner := int64(mon%threads + 1)
		evs = append(evs, &decode.ObjAlloc{ObjID: int64(0x1000 + mon), ClassIDRef: int64(mon%classes + 1)})
		if mon%2 == 0 {
			waiter := int64((mon+threads/2)%threads + 1)
			evs = append(evs, &decode.MonContendedEnter{ThreadIDRef: waiter, ObjIDRef: int64(0x1000 + mon), ThreadOwner: owner, Time: now, Stack: st})
		} else {
			evs = append(evs, &decode.MonWait{MonitorWait: decode.MonitorWait{ThreadIDRef: owner, ObjIDRef: int64(0x1000 + mon), Timeout: 100, Time: now, Stack: st}})
		}
	}
	flush()
	return agg
}

// BenchmarkSnapshotAndView: target at most 5 ms at 200×60 with 10k
// threads, 100k methods and 1k monitors, for a snapshot and a full render
// of the four panes (no pane cached: each snapshot is new).
func BenchmarkSnapshotAndView(b *testing.B) {
	agg := bigPicture(b)
	src := &fakeSource{st: streamingStatus()}
	m := New(Config{Refresh: time.Second}, src, agg)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	s := agg.Snapshot(t0, m.query())
	if len(s.Threads) != 10_000 || s.MethodCount() != 100_000 || len(s.Monitors) != 1_000 {
		b.Fatalf("%d threads, %d methods, %d monitors", len(s.Threads), s.MethodCount(), len(s.Monitors))
	}
	b.ReportAllocs()
	at := t0
	timer := newFrameTimer(b)
	for b.Loop() {
		at = at.Add(time.Second)
		m.fetched++
		m.Update(snapshotMsg{seq: m.fetched, snap: agg.Snapshot(at, m.query()), status: src.st})
		if len(m.View().Content) == 0 {
			b.Fatal("empty view")
		}
	}
	timer.report()
}

// BenchmarkViewOnly is a render with nothing new: every pane from its cache.
func BenchmarkViewOnly(b *testing.B) {
	agg := bigPicture(b)
	src := &fakeSource{st: streamingStatus()}
	m := New(Config{Refresh: time.Second}, src, agg)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	m.fetched++
	m.Update(snapshotMsg{seq: m.fetched, snap: agg.Snapshot(t0, m.query()), status: src.st})
	b.ReportAllocs()
	for b.Loop() {
		m.View()
	}
}

// BenchmarkSnapshotAndViewWithTraffic is the same with 10,000 calls over
// 5,000 methods and 500 threads arriving between two frames (their
// aggregation, which happens on another goroutine, is not timed).
func BenchmarkSnapshotAndViewWithTraffic(b *testing.B) {
	agg := bigPicture(b)
	src := &fakeSource{st: streamingStatus()}
	m := New(Config{Refresh: time.Second}, src, agg)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	var evs []decode.Event
	ticket := int32(1 << 24)
	now := decode.Ticks(1 << 40)
	at := t0
	b.ReportAllocs()
	timer := newFrameTimer(b)
	for b.Loop() {
		timer.stop()
		evs = evs[:0]
		for i := range 10_000 {
			ticket++
			now += 100
			th, meth := int64(i%500+1), int64((int(ticket)*7919)%100_000+1)
			evs = append(evs, &decode.MethodEntry{ThreadIDRef: th, MethodIDRef: meth, Ticket: ticket, Time: now},
				&decode.MethodExit{ThreadIDRef: th, Ticket: ticket, Time: now + 50, ThreadCPUTime: now})
		}
		at = at.Add(time.Second)
		agg.Apply(evs, 1, decode.Clock{}, at)
		timer.start()
		m.fetched++
		m.Update(snapshotMsg{seq: m.fetched, snap: agg.Snapshot(at, m.query()), status: src.st})
		if len(m.View().Content) == 0 {
			b.Fatal("empty view")
		}
	}
	timer.report()
}

// BenchmarkSnapshotAndViewRecent is the default view, the methods of the
// last 10 s: every one of the 100,000 methods is called once in every 10 s
// (10,000 distinct ones a second, in turn), so that all of them are in the
// window at every frame, and a frame comes every second, as by default.
// Between two frames (not timed: the aggregation runs on its own
// goroutine) a second's calls arrive and the oldest second leaves the
// window. Target: at most 3 ms per frame at 200×60.
func BenchmarkSnapshotAndViewRecent(b *testing.B) {
	const methods, perSecond = 100_000, 10_000
	agg := bigPicture(b)
	src := &fakeSource{st: streamingStatus()}
	m := New(Config{Refresh: time.Second, Recent: true}, src, agg)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	var evs []decode.Event
	ticket := int32(1 << 24)
	now := decode.Ticks(1 << 40)
	at := t0
	second := 0
	oneSecond := func() {
		evs = evs[:0]
		for i := range perSecond {
			ticket++
			now += 100
			th, meth := int64(i%500+1), int64((second*perSecond+i)%methods+1)
			evs = append(evs, &decode.MethodEntry{ThreadIDRef: th, MethodIDRef: meth, Ticket: ticket, Time: now},
				&decode.MethodExit{ThreadIDRef: th, Ticket: ticket, Time: now + 50, ThreadCPUTime: now})
		}
		second++
		at = at.Add(time.Second)
		agg.Apply(evs, 1, decode.Clock{}, at)
	}
	for range methods / perSecond {
		oneSecond()
	}
	if s := agg.Snapshot(at, m.query()); s.MethodCount() != methods || !s.Recent {
		b.Fatalf("%d methods in the window (recent %v), want %d", s.MethodCount(), s.Recent, methods)
	}
	b.ReportAllocs()
	timer := newFrameTimer(b)
	for b.Loop() {
		timer.stop()
		oneSecond()
		timer.start()
		m.fetched++
		m.Update(snapshotMsg{seq: m.fetched, snap: agg.Snapshot(at, m.query()), status: src.st})
		if len(m.View().Content) == 0 {
			b.Fatal("empty view")
		}
	}
	timer.report()
}
