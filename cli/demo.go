package cli

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/config"
	"github.com/proftop/proftop/simulator"
	"github.com/proftop/proftop/simulator/rbkitsim"
)

// NewDemoCommand returns `proftop demo`.
func NewDemoCommand(s *config.Settings, v *View) *cobra.Command {
	var cfg simulator.ServerConfig
	var rate string
	var rbkit bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch the built-in simulated profiler (a busy Java service with contention and deadlocks)",
		Long: `Start the simulated profiler in this process on a loopback port and watch it:
the same protocol, negotiation and decoding as a real profiler. With --rbkit,
a fake rbkit server (a Ruby ledger script profiled by rbkit, over ZeroMQ)
instead: what proftop rbkit shows, with no Ruby installed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if rbkit {
				// The fake rbkit server speaks rbkit's protocol: what is
				// asked of a JVM's agent means nothing to it.
				for _, name := range []string{"agent", "format", "telemetry", "probe", "agents", "legacy", "aggregated", "rate", "deadlock-every"} {
					if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
						return fmt.Errorf("--%s does not apply to proftop demo --rbkit: it watches a fake rbkit server, not a JVM", name)
					}
				}
				return demoRbkit(cmd, *s, *v, cfg.Seed)
			}
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
			if cfg.Agents > 1 && settings.Agent == "" {
				// Several JVMs: watched as a fleet, one row each, as
				// --host 127.0.0.1:PORT/1,127.0.0.1:PORT/2,… would.
				var hosts []string
				for i := 1; i <= cfg.Agents; i++ {
					hosts = append(hosts, fmt.Sprintf("127.0.0.1:%d/%d", settings.Port, i))
				}
				settings.Host = strings.Join(hosts, ",")
				targets, err := Targets(settings)
				if err != nil {
					return err
				}
				return WatchFleet(ctx, targets, settings, *v, cmd.OutOrStdout())
			}
			return Watch(ctx, client.NewSession(SessionConfig(settings)), settings, *v, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Agents, "agents", 1, "number of simulated JVMs, watched as a fleet (--agent N watches the N-th alone)")
	f.BoolVar(&cfg.Legacy, "legacy", false, "simulate a profiler from before the binary format (XML only)")
	f.StringVar(&rate, "rate", "20000", "events per second, or max")
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed of the simulated activity")
	f.BoolVar(&cfg.Aggregated, "aggregated", false, "report method activity as agMethodEntry aggregates")
	f.DurationVar(&cfg.DeadlockEvery, "deadlock-every", 0, "virtual time between two deadlocks (default 40s; negative: never)")
	f.BoolVar(&rbkit, "rbkit", false, "watch a fake rbkit server (a profiled Ruby process) instead")
	NotApplicable(cmd, "demo watches the simulated profiler it starts, on loopback ports it chooses",
		"host", "hosts", "port", "token", "pub-port", "req-port")
	return cmd
}

// demoRbkit watches the fake rbkit server on loopback ports.
func demoRbkit(cmd *cobra.Command, s config.Settings, v View, seed uint64) error {
	srv, err := rbkitsim.Start(rbkitsim.Config{Workload: true, Seed: seed})
	if err != nil {
		return err
	}
	defer srv.Close()
	s.Host, s.PubPort, s.ReqPort = "127.0.0.1", srv.PubPort(), srv.ReqPort()
	ctx, stop := Interruptible()
	defer stop()
	return Watch(ctx, client.NewRbkitSource(RbkitConfig(s)), s, v, cmd.OutOrStdout())
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
