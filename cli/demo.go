package cli

import (
	"fmt"
	"net"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/config"
	"github.com/proftop/proftop/simulator"
)

// NewDemoCommand returns `proftop demo`.
func NewDemoCommand(s *config.Settings, v *View) *cobra.Command {
	var cfg simulator.ServerConfig
	var rate string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch the built-in simulated profiler (a busy Java service with contention and deadlocks)",
		Long: `Start the simulated profiler in this process on a loopback port and watch it:
the same protocol, negotiation and decoding as a real profiler.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := parseRate(rate, &cfg); err != nil {
				return err
			}
			srv := simulator.NewServer(cfg)
			addr, err := srv.Listen("127.0.0.1:0")
			if err != nil {
				return err
			}
			defer srv.Close()
			settings := *s
			settings.Host, settings.Port = "127.0.0.1", addr.(*net.TCPAddr).Port
			ctx, stop := Interruptible()
			defer stop()
			return Watch(ctx, client.NewSession(SessionConfig(settings)), settings, *v, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Agents, "agents", 1, "number of simulated JVMs")
	f.BoolVar(&cfg.Legacy, "legacy", false, "simulate a profiler from before the binary format (XML only)")
	f.StringVar(&rate, "rate", "20000", "events per second, or max")
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed of the simulated activity")
	f.BoolVar(&cfg.Aggregated, "aggregated", false, "report method activity as agMethodEntry aggregates")
	f.DurationVar(&cfg.DeadlockEvery, "deadlock-every", 0, "virtual time between two deadlocks (default 40s; negative: never)")
	return cmd
}

func parseRate(rate string, cfg *simulator.ServerConfig) error {
	if rate == "max" {
		cfg.Saturate = true
		return nil
	}
	n, err := strconv.Atoi(rate)
	if err != nil || n <= 0 {
		return fmt.Errorf("--rate %q: want a positive number of events per second, or max", rate)
	}
	cfg.Rate = n
	return nil
}
