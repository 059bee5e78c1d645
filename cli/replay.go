package cli

import (
	"github.com/spf13/cobra"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
)

// NewReplayCommand returns `proftop replay FILE`.
func NewReplayCommand() *cobra.Command {
	var opts LiveOptions
	var speed float64
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Play a recorded trace (.trcbin, .trcxml, zipped .trcxml) as if it were live",
		Long: `Play a recorded trace through the same path as a live stream. By default
it plays as fast as possible; --speed N paces events by their timestamps at
N times real time (1 is real time).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := Interruptible()
			defer stop()
			src := client.NewFileSource(args[0], speed, decode.Options{})
			return runBatch(ctx, src, opts, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.Float64Var(&speed, "speed", 0, "pace events by their timestamps at this many times real time (0: as fast as possible)")
	f.BoolVar(&opts.Batch, "batch", true, "print text snapshots")
	f.IntVarP(&opts.Count, "iterations", "n", 0, "number of snapshots (0: until the end of the file)")
	f.BoolVar(&opts.JSON, "json", false, "one JSON document per snapshot")
	f.DurationVar(&opts.Interval, "refresh", defaultRefresh, "time between snapshots")
	return cmd
}
