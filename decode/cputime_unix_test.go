//go:build unix

package decode

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, user and system: on a
// shared machine it measures the work better than the wall clock does.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
