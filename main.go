// Command proftop is top for a running Java profiler: live panes of threads,
// hot methods, monitor contention and GC, read from a profiler's trace stream.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/proftop/proftop/cli"
	"github.com/proftop/proftop/config"
)

// Set at release time with -ldflags "-X main.version=... -X main.commit=... -X main.date=...".
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

// noConfig marks the commands that read no settings (so that a broken
// config file does not stop them).
const noConfig = "noconfig"

func newRootCommand() *cobra.Command {
	var (
		settings   config.Settings
		origins    []config.Origin
		configFile string
		usedFile   string
		view       cli.View
	)
	root := &cobra.Command{
		Use:   "proftop",
		Short: "top for a running Java profiler",
		Long: `proftop shows what a profiled JVM is doing right now: threads, hot methods,
monitor contention (who blocks whom, with stacks) and GC, live in a terminal.

  proftop --host prod-1      watch the profiler on prod-1 (port 10002)
  proftop demo               watch the built-in simulated profiler
  proftop replay FILE        watch a recorded trace
  proftop attach PID         load the agent into a local JVM and watch it
  proftop rbkit              watch a Ruby process profiled by rbkit`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Annotations[noConfig] != "" {
				return nil
			}
			file, explicit := configFile, configFile != ""
			if !explicit {
				file = config.DefaultFile(os.Getenv)
			}
			var err error
			settings, origins, err = config.Load(cmd.Flags(), file, explicit, os.Getenv)
			usedFile = file
			if _, statErr := os.Stat(file); statErr != nil {
				usedFile = file + " (absent)"
			}
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := cli.Interruptible()
			defer stop()
			return cli.Live(ctx, settings, view, cmd.OutOrStdout())
		},
	}
	root.SetVersionTemplate(fmt.Sprintf("proftop %s (commit %s, built %s)\n", version, commit, date))
	pf := root.PersistentFlags()
	config.Register(pf)
	pf.StringVar(&configFile, "config", "", "config file (default $XDG_CONFIG_HOME/proftop/config.yaml)")
	pf.BoolVar(&view.Batch, "batch", false, "print text snapshots instead of the interactive view (no terminal needed)")
	pf.IntVarP(&view.Count, "iterations", "n", 0, "with --batch: number of snapshots (0: until interrupted, or the end of a file)")
	pf.BoolVar(&view.JSON, "json", false, "with --batch: one JSON document per snapshot, on one line")
	pf.IntVar(&view.Top, "top", 0, "with --batch: rows per table in text (default 20); methods kept in JSON (default all)")

	decodeCmd, simulateCmd, listCmd, jarCmd := cli.NewDecodeCommand(), cli.NewSimulateCommand(), cli.NewListCommand(), cli.NewAgentJarCommand()
	for _, c := range []*cobra.Command{decodeCmd, simulateCmd, listCmd, jarCmd} {
		c.Annotations = map[string]string{noConfig: "yes"}
	}
	root.AddCommand(decodeCmd, simulateCmd, listCmd, jarCmd,
		cli.NewDemoCommand(&settings, &view),
		cli.NewAttachCommand(&settings, &view),
		cli.NewReplayCommand(&settings, &view),
		cli.NewRbkitCommand(&settings, &view),
		cli.NewConfigCommand(&origins, &usedFile))
	return root
}

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "proftop:", err)
		os.Exit(1)
	}
}
