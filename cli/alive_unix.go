//go:build unix

package cli

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// processAlive says whether a process exists (a zombie counts as gone).
func processAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	// The state follows the command name, which is in parentheses.
	if i := strings.LastIndexByte(string(data), ')'); i >= 0 && i+2 < len(data) {
		return data[i+2] != 'Z' && data[i+2] != 'X'
	}
	return true
}
