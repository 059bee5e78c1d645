//go:build !unix

package state

import "time"

// processCPU is unknown here: the benchmarks report 0 CPU time.
func processCPU() time.Duration { return 0 }
