package state

import (
	"context"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
)

// simulatedInto feeds n events of the simulated service (seed) into a,
// with a deadlock from 20 s of virtual time on.
func simulatedInto(a *Aggregator, seed uint64, n int) {
	w := simulator.NewWorld(simulator.Config{Seed: seed, Start: t0, DeadlockEvery: 20 * time.Second, DeadlockFor: 30 * time.Second})
	var b decode.Batch
	for range n {
		b.Add(w.Next())
		if b.Len() == 4096 {
			a.Apply(b.Events(), 1, decode.Clock{}, t0)
			b.Reset()
		}
	}
	a.Apply(b.Events(), 1, decode.Clock{}, t0)
}

// A summary says what the panes say: counted from the same snapshot.
func TestSummaryAgreesWithTheSnapshot(t *testing.T) {
	a := New(Options{})
	simulatedInto(a, 1, 200_000)
	snap := a.Snapshot(t0, Query{Recent: true, CallersOf: -1})
	sum := Summarize(snap)
	live, cpu, blocked := 0, 0.0, 0
	for _, th := range snap.Threads {
		if th.State != ThreadEnded {
			live++
			if th.CPUPercent.Known() {
				cpu += float64(th.CPUPercent)
			}
		}
	}
	for _, m := range snap.Monitors {
		for _, w := range m.Waiters {
			if !w.Waiting {
				blocked++
			}
		}
	}
	if sum.Threads != live || sum.CPUPercent != cpu || sum.Blocked != blocked || blocked == 0 {
		t.Fatalf("threads %d (want %d), CPU %v (want %v), blocked %d (want %d)", sum.Threads, live, sum.CPUPercent, cpu, sum.Blocked, blocked)
	}
	if len(sum.Deadlocks) != 1 || sum.GCPercent != snap.GC.Percent || sum.Events != snap.Events {
		t.Fatalf("deadlocks %d, GC %v, events %d", len(sum.Deadlocks), sum.GCPercent, sum.Events)
	}
	for i := range snap.Methods {
		if m := &snap.Methods[i]; m.Self > sum.TopMethodSelf {
			t.Fatalf("%s has more self time than the top method %s", snap.MethodName(m), sum.TopMethod)
		}
	}
	for i := range snap.Monitors {
		if m := &snap.Monitors[i]; m.BlockedSum > sum.TopLockBlocked {
			t.Fatalf("%s was blocked on longer than the top lock %s", MonitorName(m), sum.TopLock)
		}
	}
	if sum.TopMethod == "" || sum.TopLock == "" || sum.TopMethodPercent <= 0 || sum.TopMethodPercent > 100 {
		t.Fatalf("%+v", sum)
	}
	// An aggregator that has seen nothing has nothing to summarize.
	if empty := New(Options{}).Summary(t0); empty.HasData() || empty.TopMethod != "" || empty.Threads != 0 {
		t.Fatalf("%+v", empty)
	}
}

func TestFleetOptionsLowerOnlyTheDefaults(t *testing.T) {
	o := Options{MaxMonitors: 50_000, Window: time.Minute}.ForFleet().withDefaults()
	d := Options{}.withDefaults()
	if o.MaxMonitors != 50_000 || o.Window != time.Minute {
		t.Fatalf("explicit limits changed: %+v", o)
	}
	for name, pair := range map[string][2]int{
		"ended threads":   {o.MaxEndedThreads, d.MaxEndedThreads},
		"history":         {o.History, d.History},
		"threads":         {o.MaxThreads, d.MaxThreads},
		"tracked objects": {o.MaxTrackedObjects, d.MaxTrackedObjects},
		"classes":         {o.MaxClasses, d.MaxClasses},
		"allocations":     {o.MaxRecentAllocations, d.MaxRecentAllocations},
		"series":          {o.MaxSeries, d.MaxSeries},
		"methods":         {o.MaxMethods, d.MaxMethods},
		"virtual listed":  {o.MaxVirtualListed, d.MaxVirtualListed},
		"virtual groups":  {o.MaxVirtualGroups, d.MaxVirtualGroups},
		"telemetry bytes": {int(o.TelemetryMemory), int(d.TelemetryMemory)},
	} {
		if pair[0] <= 0 || pair[0] >= pair[1] {
			t.Errorf("%s: %d in a fleet, %d alone", name, pair[0], pair[1])
		}
	}
}

// listSource is a source whose batches are made in advance: n events of
// the simulated service (seed), its channel closed after them.
type listSource struct{ ch chan *client.Batch }

func newListSource(seed uint64, n int) *listSource {
	w := simulator.NewWorld(simulator.Config{Seed: seed, Start: t0})
	s := &listSource{ch: make(chan *client.Batch, n/100+1)}
	for n > 0 {
		b := &client.Batch{Stream: 1}
		for range min(n, 100) {
			b.Add(w.Next())
		}
		n -= b.Len()
		s.ch <- b
	}
	close(s.ch)
	return s
}

func (s *listSource) Run(context.Context) error     { return nil }
func (s *listSource) Batches() <-chan *client.Batch { return s.ch }
func (s *listSource) Recycle(*client.Batch)         {}
func (s *listSource) Status() client.Status         { return client.Status{} }

func TestFleetFeedsEachJVMFromItsSource(t *testing.T) {
	f := NewFleet(3, Options{}.ForFleet())
	srcs := make([]*listSource, 3)
	for i := range srcs {
		srcs[i] = newListSource(uint64(i+1), 1000*(i+1))
	}
	f.Feed(func(i int) client.Source { return srcs[i] })
	snap := f.Snapshot(t0)
	for i, s := range snap.JVMs {
		if s.Events != int64(1000*(i+1)) {
			t.Errorf("JVM %d: %d events, want %d", i, s.Events, 1000*(i+1))
		}
	}
	if d := snap.Deadlocked(); len(d) != 0 {
		t.Fatalf("deadlocked %v", d)
	}
}

// The JVM's CPU share is known once a thread's is, from its second CPU
// reading: before, the overview said 0% (and the JSON cpuKnown) for a JVM
// at 272%.
func TestSummarySaysWhenTheCPUIsKnown(t *testing.T) {
	a := New(Options{})
	w := simulator.NewWorld(simulator.Config{Seed: 1, Start: t0})
	var b decode.Batch
	feed := func(until time.Duration) {
		for w.Now().Before(t0.Add(until)) {
			b.Add(w.Next())
			if b.Len() == 4096 {
				a.Apply(b.Events(), 1, decode.Clock{}, w.Now())
				b.Reset()
			}
		}
		a.Apply(b.Events(), 1, decode.Clock{}, t0.Add(until))
		b.Reset()
	}
	feed(200 * time.Millisecond)
	if sum := a.Summary(t0.Add(200 * time.Millisecond)); sum.CPUKnown || sum.CPUPercent != 0 || sum.Threads == 0 {
		t.Fatalf("after one reading: CPU %v%%, known %v, of %d threads", sum.CPUPercent, sum.CPUKnown, sum.Threads)
	}
	feed(5 * time.Second)
	if sum := a.Summary(t0.Add(5 * time.Second)); !sum.CPUKnown || sum.CPUPercent <= 0 {
		t.Fatalf("after 5 s: CPU %v%%, known %v", sum.CPUPercent, sum.CPUKnown)
	}
}
