package cli

import (
	"github.com/spf13/cobra"

	"github.com/proftop/proftop/config"
)

// NewReplayCommand returns `proftop replay FILE`.
func NewReplayCommand(s *config.Settings, v *View) *cobra.Command {
	var speed float64
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Show a recorded trace (.trcbin, .trcxml, zipped .trcxml) as if it were live",
		Long: `Play a recorded trace through the same path as a live stream, in the
interface or, with --batch, as text snapshots (the picture at the end of the
file with --json). By default it plays as fast as possible; --speed N paces
events by their timestamps at N times real time (1 is real time).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := Interruptible()
			defer stop()
			return Watch(ctx, newFileSource(args[0], speed, *s), *s, *v, cmd.OutOrStdout())
		},
	}
	cmd.Flags().Float64Var(&speed, "speed", 0, "pace events by their timestamps at this many times real time (0: as fast as possible)")
	return cmd
}
