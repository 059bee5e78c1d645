package cli

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/proftop/proftop/internal/gcfloor"
)

func TestLimitMemorySetsTheRuntimesSoftLimitAndTheHeapFloor(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer gcfloor.Set(0)
	gcfloor.Set(0)
	base := gcPercent()
	for _, tc := range []struct {
		limit, want int64
		floored     bool // the collector's percent raised over a small heap
	}{
		{512 << 20, 512 << 20, true},
		{1, 1, false}, // a quarter of the limit: no floor
		{0, math.MaxInt64, true},
	} {
		limitMemory(tc.limit)
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("limitMemory(%d): limit %d, want %d", tc.limit, got, tc.want)
		}
		if p := gcPercent(); base == 100 && liveHeap() < 8<<20 && (p > base) != tc.floored {
			t.Errorf("limitMemory(%d): the collector's percent is %d over a heap of a few MiB (its own: %d)", tc.limit, p, base)
		}
	}
}

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}
