package state

import (
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
