// Command proftop is top for a running Java profiler: live panes of threads,
// hot methods, monitor contention and GC, read from a profiler's trace stream.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/proftop/proftop/cli"
)

// Set at release time with -ldflags "-X main.version=... -X main.commit=... -X main.date=...".
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "proftop",
		Short:         "top for a running Java profiler",
		Long:          "proftop shows what a profiled JVM is doing right now: threads, hot methods,\nmonitor contention (who blocks whom, with stacks) and GC, live in a terminal.",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate(fmt.Sprintf("proftop %s (commit %s, built %s)\n", version, commit, date))
	root.AddCommand(cli.NewDecodeCommand())
	return root
}

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "proftop:", err)
		os.Exit(1)
	}
}
