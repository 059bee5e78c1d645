package cli

import (
	"math"
	"runtime/debug"
)

// limitMemory sets the Go runtime's soft memory limit to mib MiB (none for
// 0): as the heap nears it the garbage collector runs more often, instead
// of letting a large picture (100,000 methods, 10,000 threads) grow to
// twice its live size between two collections. It is soft: proftop goes
// above it rather than stop, the tables' own bounds keep it finite.
func limitMemory(mib int) {
	limit := int64(math.MaxInt64)
	if mib > 0 {
		limit = int64(mib) << 20
	}
	debug.SetMemoryLimit(limit)
}
