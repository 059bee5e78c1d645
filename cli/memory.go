package cli

import (
	"math"
	"runtime/debug"

	"github.com/proftop/proftop/internal/gcfloor"
)

// heapFloor is the heap below which the collector does not run (see
// gcfloor), at most a quarter of the memory limit: a small picture is not
// collected again and again while it grows, for at most this much memory.
const heapFloor = 32 << 20

// limitMemory sets the Go runtime's soft memory limit to limit bytes (none
// for 0): as the heap nears it the garbage collector runs more often, instead
// of letting a large picture (100,000 methods, 10,000 threads) grow to
// twice its live size between two collections. It is soft: proftop goes
// above it rather than stop, the tables' own bounds keep it finite. It sets
// the heap's floor with it.
func limitMemory(limit int64) {
	if limit <= 0 {
		limit = math.MaxInt64
	}
	debug.SetMemoryLimit(limit)
	gcfloor.Set(min(heapFloor, limit/4))
}
