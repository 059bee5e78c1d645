package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/proftop/proftop/agent"
	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/config"
	"github.com/proftop/proftop/internal/textsafe"
)

// NewAttachCommand returns `proftop attach PID`.
func NewAttachCommand(s *config.Settings, v *View) *cobra.Command {
	var agentOptions string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "attach PID",
		Short: "Load proftop's agent into a running JVM on this machine and watch it",
		Long: `Load proftop's JVM agent (embedded in this binary) into a running JVM through
the HotSpot attach mechanism, and watch it. No JDK tool is needed. The JVM
must run as the same user (or proftop as root); the agent listens on a free
loopback port and admits only clients with its token, which it leaves in
/tmp/proftop-UID, a directory only the JVM's user may read. See proftop list
for the JVMs that can be attached.`,
		Args: exactlyOne("PID", "the process id of the JVM to watch, as proftop list shows them"),
		RunE: func(cmd *cobra.Command, args []string) error {
			pid, err := strconv.Atoi(args[0])
			if err != nil || pid <= 0 {
				return fmt.Errorf("%q is not a process id", args[0])
			}
			// What Watch would refuse, refused before an agent is loaded
			// into someone's JVM for nothing.
			if err := v.check(); err != nil {
				return err
			}
			if err := recordable(s.Record); err != nil {
				return err
			}
			at, err := agent.Attach(pid, agent.AttachOptions{AgentOptions: agentOptions, Timeout: timeout})
			if err != nil {
				return err
			}
			for _, note := range at.Notes {
				fmt.Fprintf(cmd.ErrOrStderr(), "proftop: process %d: %s\n", pid, textsafe.Inert(note))
			}
			settings := *s
			settings.Host, settings.Port = "127.0.0.1", at.Port
			if at.Token != "" {
				settings.Token = at.Token // handed over in the JVM's private directory
			}
			ctx, stop := Interruptible()
			defer stop()
			cfg := SessionConfig(settings)
			cfg.Gone = func() (bool, string) {
				if processAlive(pid) {
					return false, ""
				}
				return true, fmt.Sprintf("JVM %d exited", pid)
			}
			return Watch(ctx, client.NewSession(cfg), settings, *v, cmd.OutOrStdout())
		},
	}
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		jvms, _ := agent.List()
		var out []cobra.Completion
		for _, j := range jvms {
			if j.Attachable {
				out = append(out, cobra.CompletionWithDesc(strconv.Itoa(j.PID), j.Main))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	cmd.Flags().StringVar(&agentOptions, "agent-options", "", "options for the agent, comma-separated: threshold=DURATION (shortest monitor contention or wait recorded, default 0ms), park=DURATION (shortest park recorded, default 0ms), sample=DURATION (sampling period, default 20ms), poll=DURATION (thread polls, default 1s), idle=DURATION (a client silent this long before it monitors is dropped, default 60s), backlog=SIZE (a client this far behind is dropped, default 16m); host, token and tokenfile as -javaagent takes them (README)")
	cmd.Flags().DurationVar(&timeout, "attach-timeout", 10*time.Second, "how long to wait for the JVM to answer and for the agent to listen")
	// The agent attach loads picks its own loopback port: where to connect
	// is not the user's to say.
	NotApplicable(cmd, "proftop connects to the agent it loads, on the loopback port the agent chooses",
		"host", "hosts", "port", "agent", "pub-port", "req-port")
	return cmd
}

// NewListCommand returns `proftop list`.
func NewListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the JVMs on this machine that proftop attach can watch",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			jvms, err := agent.List()
			if err != nil {
				return err
			}
			if len(jvms) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no JVM is running on this machine (that this user can see)")
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "PID\tUSER\tMAIN\tATTACHABLE")
			for _, j := range jvms {
				attachable := "yes"
				if !j.Attachable {
					attachable = "no (another user)"
				}
				// Any user's command line: shown inert.
				fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", j.PID, textsafe.Inert(j.User), textsafe.Inert(j.Main), attachable)
			}
			return w.Flush()
		},
	}
}

// NewAgentJarCommand returns `proftop agent-jar [PATH]`.
func NewAgentJarCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "agent-jar [PATH]",
		Short: "Write the embedded JVM agent to a file, for java -javaagent:PATH",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "proftop-agent.jar"
			if len(args) == 1 {
				path = args[0]
				if st, err := os.Stat(path); err == nil && st.IsDir() {
					path = filepath.Join(path, "proftop-agent.jar")
				}
			}
			if err := os.WriteFile(path, agent.Jar, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d bytes): start a JVM with -javaagent:%s[=port=10002,...]\n", path, len(agent.Jar), path)
			return nil
		},
	}
}
