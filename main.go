// Command proftop is top for a running Java profiler: live panes of threads,
// hot methods, monitor contention and GC, read from a profiler's trace stream.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/proftop/proftop/cli"
	"github.com/proftop/proftop/client"
)

// Set at release time with -ldflags "-X main.version=... -X main.commit=... -X main.date=...".
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

func newRootCommand() *cobra.Command {
	var opts cli.LiveOptions
	var format string
	var noReconnect bool
	root := &cobra.Command{
		Use:           "proftop",
		Short:         "top for a running Java profiler",
		Long:          "proftop shows what a profiled JVM is doing right now: threads, hot methods,\nmonitor contention (who blocks whom, with stacks) and GC, live in a terminal.",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Session.Host == "" {
				return cmd.Help()
			}
			switch client.FormatChoice(format) {
			case client.FormatAuto, client.FormatBinary, client.FormatXML:
				opts.Session.Format = client.FormatChoice(format)
			default:
				return fmt.Errorf("--format %q: want auto, binary or xml", format)
			}
			opts.Session.Reconnect = !noReconnect
			ctx, stop := cli.Interruptible()
			defer stop()
			return cli.RunLive(ctx, opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := root.Flags()
	f.StringVar(&opts.Session.Host, "host", "", "host of the profiler's agent controller")
	f.IntVar(&opts.Session.Port, "port", 10002, "port of the agent controller")
	f.StringVar(&opts.Session.Agent, "agent", "", "agent to attach to when there are several: id, pid or name")
	f.StringVar(&opts.Session.Token, "token", "", "token for an agent controller that requires one")
	f.StringVar(&format, "format", "auto", "trace format: auto (ask for binary, accept xml), binary or xml")
	f.StringVar(&opts.Session.Record, "record", "", "write the data stream as received to this file (.trcbin or .trcxml)")
	f.BoolVar(&opts.Batch, "batch", false, "print text snapshots instead of the interactive view (no terminal needed)")
	f.IntVarP(&opts.Count, "iterations", "n", 0, "with --batch: number of snapshots (0: until interrupted)")
	f.BoolVar(&opts.JSON, "json", false, "with --batch: one JSON document per snapshot")
	f.DurationVar(&opts.Interval, "refresh", time.Second, "time between snapshots")
	f.DurationVar(&opts.Session.ConnectTimeout, "connect-timeout", 5*time.Second, "how long to wait for the connection")
	f.DurationVar(&opts.Session.NegotiationTimeout, "negotiation-timeout", 3*time.Second, "how long to wait for each command's answer (setOutputFormat included)")
	f.BoolVar(&noReconnect, "no-reconnect", false, "exit on the first connection failure instead of retrying")
	root.SetVersionTemplate(fmt.Sprintf("proftop %s (commit %s, built %s)\n", version, commit, date))
	root.AddCommand(cli.NewDecodeCommand(), cli.NewSimulateCommand(), cli.NewReplayCommand())
	return root
}

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "proftop:", err)
		os.Exit(1)
	}
}
