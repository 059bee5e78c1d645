//go:build !unix

package decode

import "time"

// processCPU is unknown here: the CPU-time metrics are left out.
func processCPU() time.Duration { return 0 }
