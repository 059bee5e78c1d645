package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestLimitMemorySetsTheRuntimesSoftLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
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
