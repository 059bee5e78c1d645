//go:build unix

package state

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, user and system, all
// threads (the garbage collector's included).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
