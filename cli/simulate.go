package cli

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/proftop/proftop/simulator"
)

// NewSimulateCommand returns `proftop simulate`.
func NewSimulateCommand() *cobra.Command {
	var (
		listen     string
		cfg        simulator.ServerConfig
		rate       string
		quiet      bool
		aggregated bool
		port       int
	)
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Run a simulated profiler (agent controller) that serves realistic JVM activity",
		Long: `Run a simulated profiler: an agent controller speaking proftop's protocol
(docs/protocol.md) that streams the activity of a plausible Java service —
dozens of threads, method calls, monitor contention with stacks, waits, GC,
and now and then a deadlock — deterministic for a seed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := parseRate(rate, &cfg); err != nil {
				return err
			}
			where, err := listenAddress(listen, port, cmd.Flags().Changed("listen"), cmd.Flags().Changed("port"))
			if err != nil {
				return err
			}
			cfg.Aggregated = aggregated
			if !quiet {
				cfg.Logf = func(format string, args ...any) {
					fmt.Fprintf(cmd.ErrOrStderr(), "simulate: "+format+"\n", args...)
				}
			}
			srv := simulator.NewServer(cfg)
			addr, err := srv.Listen(where)
			if err != nil {
				return err
			}
			formats := "binary and xml"
			if cfg.Legacy {
				formats = "xml only (legacy)"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "simulated profiler listening on %s: %d agent(s), %s, %s events/s, seed %d\n",
				addr, len(srv.Agents()), formats, rate, cfg.Seed)
			stop := make(chan os.Signal, 1)
			signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
			<-stop
			return srv.Close()
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:10002", "address to listen on: HOST:PORT, or a HOST alone (on --port)")
	f.IntVar(&port, "port", 10002, "port to listen on (on the host of --listen)")
	f.BoolVar(&cfg.Legacy, "legacy", false, "behave like a profiler from before the binary format: XML only, setOutputFormat unrecognized")
	f.IntVar(&cfg.Agents, "agents", 1, "number of simulated JVMs (agents) on the controller; each connection streams its own (watch them as a fleet: --host 127.0.0.1/1,127.0.0.1/2,…)")
	f.StringVar(&rate, "rate", "20000", "events per second per client, or max to send as fast as the client reads")
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed of the simulated activity")
	f.BoolVar(&aggregated, "aggregated", false, "report method activity as agMethodEntry aggregates instead of entry/exit pairs")
	f.StringVar(&cfg.Token, "token", "", "require this token from clients")
	f.DurationVar(&cfg.DeadlockEvery, "deadlock-every", 0, "virtual time between two deadlocks (default 40s; negative: never)")
	f.DurationVar(&cfg.DeadlockFor, "deadlock-for", 0, "how long a deadlock lasts before its threads are killed (default 15s)")
	f.BoolVarP(&quiet, "quiet", "q", false, "do not log connections")
	return cmd
}

// listenAddress is where simulate listens: --listen as HOST:PORT or as a
// host alone, whose port is --port's. A port in both must be the same
// (0 in --listen takes --port's).
func listenAddress(listen string, port int, listenSet, portSet bool) (string, error) {
	host, p, err := net.SplitHostPort(listen)
	if err != nil {
		// A host alone: "0.0.0.0", "::1", "[::1]", "localhost".
		host = strings.TrimSuffix(strings.TrimPrefix(listen, "["), "]")
		if host == "" || strings.ContainsAny(host, "[]") || (strings.Contains(host, ":") && net.ParseIP(host) == nil) {
			return "", fmt.Errorf("--listen %q: want HOST:PORT or a HOST alone: %w", listen, err)
		}
		return net.JoinHostPort(host, strconv.Itoa(port)), nil
	}
	if !portSet {
		return listen, nil
	}
	if listenSet && p != "0" && p != strconv.Itoa(port) {
		return "", fmt.Errorf("--port %d and --listen %s name two ports: give one", port, listen)
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), nil
}
