package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/proftop/proftop/internal/gcfloor"
)

func TestLimitMemorySetsTheRuntimesSoftLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer gcfloor.Set(0)
	for _, tc := range []struct {
		limit, want int64
	}{
		{512 << 20, 512 << 20},
		{1, 1},
		{0, math.MaxInt64},
	} {
		limitMemory(tc.limit)
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("limitMemory(%d): limit %d, want %d", tc.limit, got, tc.want)
		}
	}
}

func TestLimitMemorySetsTheHeapFloor(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer gcfloor.Set(0)
	gcfloor.Set(0)
	if p := metric("/gc/gogc:percent"); p != 100 {
		t.Skipf("GOGC is %d: the figures below assume 100", p)
	}
	runtime.GC()
	if live := metric("/gc/heap/live:bytes"); live > 4<<20 {
		t.Skipf("the test's own heap is %d bytes live: too big to tell a floor of 32 MiB", live)
	}
	for _, tc := range []struct {
		limit   int64
		floored bool // the heap may grow to the floor before a collection
	}{
		{512 << 20, true},
		{1, false}, // a quarter of the limit: no floor
		{0, true},
		{64 << 20, true}, // a quarter of the limit: 16 MiB
	} {
		limitMemory(tc.limit)
		goal, p := metric("/gc/heap/goal:bytes"), metric("/gc/gogc:percent")
		switch {
		case tc.floored && (p <= 100 || goal < 12<<20 || goal > 36<<20):
			t.Errorf("limitMemory(%d): percent %d, heap goal %d: want the goal at the floor", tc.limit, p, goal)
		case !tc.floored && p != 100:
			t.Errorf("limitMemory(%d): percent %d, want 100 (no floor)", tc.limit, p)
		}
	}
}

func metric(name string) int64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}
