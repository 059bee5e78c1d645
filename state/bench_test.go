package state

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
)

// simulatedBatches pre-generates n events of the simulated service in
// batches of 4096, as the client hands them over.
func simulatedBatches(n int, aggregated bool) []*decode.Batch {
	w := simulator.NewWorld(simulator.Config{Seed: 1, Start: t0, Aggregated: aggregated})
	var out []*decode.Batch
	for n > 0 {
		b := &decode.Batch{}
		for range min(n, 4096) {
			b.Add(w.Next())
		}
		n -= b.Len()
		out = append(out, b)
	}
	return out
}

// BenchmarkIngest: target at least 5 M events/s.
func BenchmarkIngest(b *testing.B) {
	batches := simulatedBatches(1<<20, false)
	a := New(Options{})
	now := t0
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		for _, bt := range batches {
			now = now.Add(time.Millisecond)
			a.Apply(bt.Events(), 1, decode.Clock{}, now)
			events += bt.Len()
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}

// rss is the resident set size of this process, from /proc (Linux).
func rss(b *testing.B) int64 {
	runtime.GC()
	debug.FreeOSMemory()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kb, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return kb << 10
		}
	}
	b.Skip("no VmRSS")
	return 0
}

// BenchmarkMemoryFlat feeds 50 M events of the simulated service (thread
// churn, GC, contention, deadlocks) through the aggregator, taking and
// releasing a snapshot every 100,000 events as the interface would, and
// compares the resident memory after 5 M and after 50 M events. Target:
// within 10%. Run with -benchtime 1x.
func BenchmarkMemoryFlat(b *testing.B) {
	for b.Loop() {
		w := simulator.NewWorld(simulator.Config{Seed: 3, Start: t0})
		a := New(Options{})
		var batch decode.Batch
		var prev *Snapshot
		clock := decode.Clock{}
		var at5M int64
		for n := 1; n <= 50_000_000; n++ {
			batch.Add(w.Next())
			if batch.Len() == 4096 {
				a.Apply(batch.Events(), 1, clock, w.Now())
				batch.Reset()
			}
			if n%100_000 == 0 {
				s := a.Snapshot(w.Now(), Query{Recent: true, CallersOf: -1})
				a.Release(prev)
				prev = s
			}
			if n == 5_000_000 {
				at5M = rss(b)
			}
		}
		at50M := rss(b)
		s := a.Snapshot(w.Now(), Query{CallersOf: -1})
		b.ReportMetric(float64(at5M)/(1<<20), "MiB-RSS-at-5M")
		b.ReportMetric(float64(at50M)/(1<<20), "MiB-RSS-at-50M")
		b.ReportMetric(100*float64(at50M-at5M)/float64(at5M), "growth-%")
		b.ReportMetric(float64(len(s.Threads)), "threads")
		b.ReportMetric(float64(len(s.Methods)), "methods")
		b.ReportMetric(float64(len(s.Monitors)), "monitors")
	}
}
