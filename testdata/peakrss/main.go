// Command peakrss runs a command and writes its peak resident set size,
// in bytes, to the file named by $PEAKRSS_OUT; it passes the command's
// output and exit status through. The end-to-end tests run proftop
// through it: a process started by a large one (a test binary) inherits
// the starter's peak in its own count (Linux records the old address
// space's peak at exec, and Go starts processes with vfork), and this
// starter is small.
package main

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		os.Stderr.WriteString("peakrss: " + err.Error() + "\n")
		os.Exit(127)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		os.WriteFile(os.Getenv("PEAKRSS_OUT"), []byte(strconv.FormatInt(ru.Maxrss<<10, 10)), 0o644)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
