// Command proftop is top for a running Java profiler: live panes of threads,
// hot methods, monitor contention and GC, read from a profiler's trace stream.
package main

import (
	"fmt"
	"os"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proftop/proftop/cli"
	"github.com/proftop/proftop/config"
	"github.com/proftop/proftop/internal/textsafe"
)

// Set at release time with -ldflags "-X main.version=... -X main.commit=... -X main.date=...".
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

func newRootCommand() *cobra.Command {
	var (
		settings   config.Settings
		origins    []config.Origin
		configFile string
		usedFile   string
		view       cli.View
	)
	versionText := versionLine()
	cli.Version = versionText
	root := &cobra.Command{
		SuggestionsMinimumDistance: 2,
		Use:                        "proftop",
		Short:                      "top for a running Java profiler",
		Long: `proftop shows what a profiled JVM is doing right now: threads, hot methods,
monitor contention (who blocks whom, with stacks) and GC, live in a terminal.

  proftop --host prod-1      watch the profiler on prod-1 (port 10002)
  proftop --host a,b,c       watch a fleet of JVMs: one row each, enter opens one
  proftop demo               watch the built-in simulated profiler
  proftop replay FILE        watch a recorded trace
  proftop attach PID         load the agent into a local JVM and watch it
  proftop rbkit              watch a Ruby process profiled by rbkit`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          noArgsOrSuggest,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if view.Count < 0 {
				return fmt.Errorf("--iterations (-n) is a number of snapshots, 0 or more (0: until interrupted), not %d", view.Count)
			}
			if view.Top < 0 {
				return fmt.Errorf("--top is a number of rows, 0 or more (0: the default), not %d", view.Top)
			}
			if err := cli.RefuseInheritedFlags(cmd); err != nil || !cli.ReadsSettings(cmd) {
				return err
			}
			file, explicit := configFile, configFile != ""
			if !explicit {
				file = config.DefaultFile(os.Getenv)
			}
			for _, w := range config.UnknownEnv(os.Environ()) {
				fmt.Fprintln(cmd.ErrOrStderr(), "proftop: warning:", textsafe.Inert(w))
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
	root.SetVersionTemplate(versionText + "\n")
	pf := root.PersistentFlags()
	config.Register(pf)
	pf.StringVar(&configFile, "config", "", "config file (default $XDG_CONFIG_HOME/proftop/config.yaml)")
	pf.BoolVar(&view.Batch, "batch", false, "print text snapshots instead of the interactive view (no terminal needed)")
	pf.IntVarP(&view.Count, "iterations", "n", 0, "with --batch: number of snapshots (0: until interrupted, or the end of a file)")
	pf.BoolVar(&view.JSON, "json", false, "with --batch: one JSON document per snapshot, on one line")
	pf.IntVar(&view.Top, "top", 0, "with --batch: rows per table in text (default 20); methods kept in JSON (default all)")
	pf.BoolVar(&view.History, "history", false, "with --batch --json: print the history (a picture a refresh) as JSON lines when the run ends, instead of the snapshots")
	pf.StringVar(&view.Bundle, "bundle", "", "with --batch: write a triage bundle (.tar.gz) to this file when the run ends")
	config.Group(pf, config.BatchGroup, "batch", "iterations", "json", "top", "history", "bundle")
	config.Group(pf, config.ConfigGroup, "config")
	root.SetUsageFunc(cli.Usage)
	root.SetFlagErrorFunc(cli.SuggestFlag) // subcommands inherit it

	decodeCmd, simulateCmd, listCmd, jarCmd := cli.NewDecodeCommand(), cli.NewSimulateCommand(), cli.NewListCommand(), cli.NewAgentJarCommand()
	// export's --format is the profile's, not the trace's: it reads no settings (their defaults serve).
	exportCmd := cli.NewExportCommand(&settings)
	versionCmd := &cobra.Command{
		Use:   "version",
		Short: "Print proftop's version (as --version does)",
		Args:  cobra.NoArgs,
		Run:   func(cmd *cobra.Command, args []string) { fmt.Fprintln(cmd.OutOrStdout(), versionText) },
	}
	cli.ReadsNoSettings(decodeCmd, simulateCmd, listCmd, jarCmd, exportCmd, versionCmd)
	for key, values := range config.Choices() {
		root.RegisterFlagCompletionFunc(key, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	}
	root.AddCommand(versionCmd, decodeCmd, simulateCmd, listCmd, jarCmd,
		cli.NewDemoCommand(&settings, &view),
		cli.NewAttachCommand(&settings, &view),
		cli.NewReplayCommand(&settings, &view),
		cli.NewRbkitCommand(&settings, &view),
		exportCmd,
		cli.NewConfigCommand(&origins, &usedFile))
	// cobra's completion command takes any argument and prints its help:
	// "proftop completion bogus" must be refused, as other typos are.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			// Runnable, so that its arguments are checked at all.
			c.Args = noArgsOrSuggest
			c.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
			// It reads no settings (a broken config file does not stop it),
			// and takes none of proftop's flags.
			cli.ReadsNoSettings(append(c.Commands(), c)...)
		}
	}
	return root
}

// noArgsOrSuggest refuses arguments to the root command, suggesting the
// command a typo was meant to be: "did you mean attach?".
func noArgsOrSuggest(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.Name())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	} else {
		msg += " (proftop --help lists the commands)"
	}
	return fmt.Errorf("%s", msg)
}

// pseudoVersion matches the version Go makes up for an untagged commit
// (v0.0.0-20261123053930-ed550ea3e3f7): the commit says it better.
var pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}`)

// versionLine is what --version prints: the release's version, commit and
// date when set at build time; else, for a go build, the version control
// revision the binary was built from.
func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return versionOf(version, commit, date, info)
}

// versionOf is the version line of a build with these ldflags values and
// this build information (nil: none).
func versionOf(v, c, d string, info *debug.BuildInfo) string {
	if info != nil && c == "none" {
		modified := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				c = s.Value
				if len(c) > 12 {
					c = c[:12]
				}
			case "vcs.time":
				d = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && c != "none" {
			c += "+changes"
		}
		if mv := info.Main.Version; v == "dev" && mv != "" && mv != "(devel)" && !pseudoVersion.MatchString(mv) {
			v = mv // a tagged release, installed with go install
		}
	}
	return fmt.Sprintf("proftop %s (commit %s, built %s)", v, c, d)
}

// errorText is an error as proftop says it: errors quote what a profiler
// or a file said, shown as the screen shows it (a newline in one stays
// "\x0a", so that a peer cannot begin a line of its own), and several
// joined (errors.Join: a fleet's, one a JVM; a config's, one a setting)
// go one a line, the lines after the first indented.
func errorText(err error) string {
	var lines []string
	var add func(error)
	add = func(err error) {
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range joined.Unwrap() {
				add(e)
			}
			return
		}
		lines = append(lines, textsafe.Inert(err.Error()))
	}
	add(err)
	return strings.Join(lines, "\n  ")
}

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "proftop:", errorText(err))
		os.Exit(1)
	}
}
