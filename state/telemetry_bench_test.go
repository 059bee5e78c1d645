package state

import (
	"fmt"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// telemetryAggregator has 60 series (as the demo has) with a full
// telemetry window of points.
func telemetryAggregator(b *testing.B) *Aggregator {
	a := New(Options{})
	var evs []decode.Event
	for id := range 60 {
		evs = append(evs, &decode.TelemetrySeries{Series: int64(id), Name: fmt.Sprintf("Tasks (%d)", id), Unit: decode.UnitPlain, Divisor: 1})
	}
	a.Apply(evs, 1, decode.Clock{}, tel0)
	for s := range 300 {
		evs = evs[:0]
		for id := range 60 {
			evs = append(evs, &decode.TelemetryValue{Time: sec(s), Series: int64(id), Value: int64(s * id)})
		}
		a.Apply(evs, 1, decode.Clock{}, tel0)
	}
	return a
}

// A poll's values for 60 series.
func BenchmarkTelemetryApply(b *testing.B) {
	a := telemetryAggregator(b)
	evs := make([]decode.Event, 60)
	for id := range evs {
		evs[id] = &decode.TelemetryValue{Series: int64(id)}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for id, ev := range evs {
			v := ev.(*decode.TelemetryValue)
			v.Time, v.Value = sec(300+i), int64(i*id)
		}
		a.Apply(evs, 1, decode.Clock{}, tel0)
	}
}

// A snapshot after a poll (the series copied) and one with nothing new
// (the previous copy shared), as an interface refreshing every 100 ms
// takes nine of ten.
func BenchmarkTelemetrySnapshot(b *testing.B) {
	for _, changed := range []bool{true, false} {
		b.Run(fmt.Sprintf("changed=%v", changed), func(b *testing.B) {
			a := telemetryAggregator(b)
			ev := []decode.Event{&decode.TelemetryValue{Series: 1}}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if changed {
					ev[0].(*decode.TelemetryValue).Time = sec(300 + i)
					a.Apply(ev, 1, decode.Clock{}, tel0)
				}
				a.Release(a.Snapshot(tel0.Add(time.Duration(i)), Query{CallersOf: -1}))
			}
		})
	}
}
