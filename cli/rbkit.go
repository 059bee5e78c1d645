package cli

import (
	"fmt"
	"net"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/config"
)

// NewRbkitCommand returns `proftop rbkit`.
func NewRbkitCommand(s *config.Settings, v *View) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rbkit",
		Short: "Watch a Ruby process profiled by rbkit (ZeroMQ ports 5555 and 5556)",
		Long: `Connect to the rbkit profiler in a running Ruby process (rbkit binds
127.0.0.1: tunnel both ports over SSH), check its protocol (2.1), start CPU
sampling and memory profiling, and show its threads, hot methods, objects by
class and garbage collection. Keys toggle CPU sampling (C), memory profiling
(M) and the sampling clock (W), force a GC (X) and take an object-space
snapshot (O).

  proftop rbkit                                 127.0.0.1, ports 5555 and 5556
  proftop rbkit --host localhost --pub-port 6555 --req-port 6556
  proftop rbkit --batch --json -n 3             three JSON snapshots
  proftop rbkit --record ruby                   ruby.msgpack, for proftop replay`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rbkitHost(cmd); err != nil {
				return err
			}
			ctx, stop := Interruptible()
			defer stop()
			return Watch(ctx, client.NewRbkitSource(RbkitConfig(*s)), *s, *v, cmd.OutOrStdout())
		},
	}
	NotApplicable(cmd, "rbkit speaks its own protocol, to one Ruby process on --host's --pub-port and --req-port",
		"hosts", "port", "agent", "token", "format", "telemetry", "probe")
	SaysOfFlag(cmd, "host", "host of the Ruby process whose rbkit server to watch, on --pub-port and --req-port (default 127.0.0.1)")
	SaysOfFlag(cmd, "negotiation-timeout", "how long to wait for the rbkit server's answer to each command (its handshake included)")
	return cmd
}

// rbkitHost refuses a --host rbkit cannot take: rbkit watches one Ruby
// process, on two ports of its own, and a port, an agent or a fleet
// written into --host would be dropped without a word.
func rbkitHost(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("host")
	if f == nil || !f.Changed {
		return nil
	}
	host := f.Value.String()
	if strings.ContainsAny(host, ",/ \t") {
		return fmt.Errorf("--host %q: rbkit watches one Ruby process, on one host (its ports are --pub-port and --req-port)", host)
	}
	if _, port, err := net.SplitHostPort(host); err == nil {
		return fmt.Errorf("--host %q names port %s: rbkit's ports are --pub-port (data) and --req-port (commands)", host, port)
	}
	return nil
}

// RbkitConfig turns settings into an rbkit source's configuration.
func RbkitConfig(s config.Settings) client.RbkitConfig {
	return client.RbkitConfig{
		Host: s.Host, PubPort: s.PubPort, ReqPort: s.ReqPort,
		CommandTimeout: s.NegotiationTimeout, ConnectTimeout: s.ConnectTimeout,
		Reconnect: s.Reconnect, ReconnectMin: s.ReconnectMin, ReconnectMax: s.ReconnectMax,
		Record: s.Record, MaxMessageSize: s.MaxMessageSize,
	}
}
