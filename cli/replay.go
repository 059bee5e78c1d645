package cli

import (
	"github.com/spf13/cobra"

	"github.com/proftop/proftop/config"
)

// NewReplayCommand returns `proftop replay FILE`.
func NewReplayCommand(s *config.Settings, v *View) *cobra.Command {
	var speed float64
	var follow bool
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Show a recorded trace or a snapshot (.trcbin, .trcxml, zipped .trcxml, Jinsight .trc, ProfilerJ .xml) as if it were live",
		Long: `Play a recorded trace through the same path as a live stream, in the
interface or, with --batch, as text snapshots (the picture at the end of the
file with --json). The format is told from the content, not the name: TPTP
binary or XML traces (zipped too), JinsightLive .trc traces, ProfilerJ
snapshots (a still picture). By default it plays as fast as possible;
--speed N paces events by their timestamps at N times real time (1 is real
time). --follow reads a file that is still being written, like tail -f:
what is there, then what is added as it comes; a file truncated or
replaced is read again from its start.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := Interruptible()
			defer stop()
			return Watch(ctx, newFileSource(args[0], speed, follow, *s), *s, *v, cmd.OutOrStdout())
		},
	}
	cmd.Flags().Float64Var(&speed, "speed", 0, "pace events by their timestamps at this many times real time (0: as fast as possible)")
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep reading the file as it grows (like tail -f); start over when it is truncated or replaced")
	return cmd
}
