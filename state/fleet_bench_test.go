package state

import (
	"testing"
	"time"
)

// BenchmarkFleetSnapshot summarizes a fleet of 100 JVMs of the simulated
// service (about 50 threads, 300 methods and 20 monitors each, 100,000
// events in): what the fleet overview costs per refresh, on the goroutine
// that builds it.
func BenchmarkFleetSnapshot(b *testing.B) {
	f := NewFleet(100, Options{}.ForFleet())
	for i := range f.Len() {
		simulatedInto(f.Member(i), uint64(i+1), 100_000)
	}
	now := t0
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Second)
		f.Snapshot(now)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/100, "µs/JVM")
}
