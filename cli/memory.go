package cli

import (
	"math"
	"runtime/debug"
)

// limitMemory sets the Go runtime's soft memory limit to limit bytes (none
// for 0): as the heap nears it the garbage collector runs more often, instead
// of letting a large picture (100,000 methods, 10,000 threads) grow to
// twice its live size between two collections. It is soft: proftop goes
// above it rather than stop, the tables' own bounds keep it finite.
func limitMemory(limit int64) {
	if limit <= 0 {
		limit = math.MaxInt64
	}
	debug.SetMemoryLimit(limit)
}
