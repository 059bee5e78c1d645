package state

import (
	"fmt"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// BenchmarkSnapshotRecent is a snapshot of the default view alone, the
// window holding 100,000 methods (the wide trace, aggregated), with calls
// to n of them arriving between two snapshots taken 100 ms apart (the
// fastest refresh), every tenth crossing into a new second: the oldest
// second, all 100,000 methods, leaves the window then. The previous
// snapshot is released each time, as the interface does.
func BenchmarkSnapshotRecent(b *testing.B) {
	a := New(Options{})
	at := t0
	i := 0
	wideTrace(func(evs []decode.Event) {
		if i%25 == 0 {
			at = at.Add(time.Second)
		}
		a.Apply(evs, 1, decode.Clock{}, at)
		i++
	})
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("changed=%d", n), func(b *testing.B) {
			evs := make([]decode.Event, 0, 2*n)
			ticket := int32(1 << 28)
			prev := a.Snapshot(at, Query{Recent: true, CallersOf: -1})
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				evs = evs[:0]
				at = at.Add(100 * time.Millisecond)
				tt := decode.Ticks(at.UnixNano())
				for m := range n {
					ticket++
					evs = append(evs, &decode.MethodEntry{ThreadIDRef: int64(m%100 + 1), MethodIDRef: int64(m*7919%100_000 + 1), Ticket: ticket, Time: tt},
						&decode.MethodExit{ThreadIDRef: int64(m%100 + 1), Ticket: ticket, Time: tt + 50})
				}
				a.Apply(evs, 1, decode.Clock{}, at)
				start := processCPU()
				b.StartTimer()
				s := a.Snapshot(at, Query{Recent: true, CallersOf: -1})
				a.Release(prev)
				prev = s
				b.StopTimer()
				cpu += processCPU() - start
				b.StartTimer()
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/1000, "cpu-ms/snapshot")
		})
	}
}
