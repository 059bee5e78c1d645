//go:build !unix

package tui

import "time"

// processCPU is not measured on this platform; the header shows 0.
func processCPU() time.Duration { return 0 }
