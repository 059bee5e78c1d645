package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proftop/proftop/config"
)

// The root command's flags are inherited by every subcommand, and most of
// them mean nothing to some: a connection's to replay, all of them to
// decode. Cobra's help lists every inherited flag under every command (40
// of them under proftop decode, which refuses each one); proftop's help
// lists only those a command takes, under headings, and a command refuses
// the others when they are given, rather than ignore them.

// Annotations of a command.
const (
	// readsNoSettings: the command reads no settings, and refuses every
	// flag of the root's.
	readsNoSettings = "proftop-reads-no-settings"
	// notHere lists (comma-separated) the root's flags the command
	// refuses; notHereWhy says why.
	notHere    = "proftop-not-here"
	notHereWhy = "proftop-not-here-why"
)

// ReadsNoSettings marks commands that read no settings (so that a broken
// config file does not stop them) and so take none of the root's flags.
func ReadsNoSettings(cmds ...*cobra.Command) {
	for _, cmd := range cmds {
		annotate(cmd, readsNoSettings, "yes")
	}
}

// ReadsSettings says whether cmd reads the settings (see ReadsNoSettings).
func ReadsSettings(cmd *cobra.Command) bool { return cmd.Annotations[readsNoSettings] == "" }

// NotApplicable marks flags of the root's that mean nothing to cmd, and
// says why (a sentence's end: "replay reads a file"): its help leaves
// them out, and RefuseInheritedFlags refuses them.
func NotApplicable(cmd *cobra.Command, why string, names ...string) {
	annotate(cmd, notHere, strings.Join(names, ","))
	annotate(cmd, notHereWhy, why)
}

// SaysOfFlag gives one of the root's flags the help text it has for cmd,
// where the root's would mislead (rbkit's --host is no agent controller's).
func SaysOfFlag(cmd *cobra.Command, name, usage string) {
	annotate(cmd, flagUsagePrefix+name, usage)
}

const flagUsagePrefix = "proftop-usage-"

func annotate(cmd *cobra.Command, key, value string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[key] = value
}

// applies says whether the root's flag applies to cmd.
func applies(cmd *cobra.Command, f *pflag.Flag) bool {
	if !ReadsSettings(cmd) {
		return false
	}
	return !slices.Contains(strings.Split(cmd.Annotations[notHere], ","), f.Name)
}

// RefuseInheritedFlags fails when a flag of the root command that means
// nothing to cmd was given (proftop simulate --refresh 1s, proftop decode
// --batch, proftop replay --host x): a flag that is silently ignored looks
// as if it worked. Only flags count: a config file's settings are the
// user's for every command.
func RefuseInheritedFlags(cmd *cobra.Command) error {
	var err error
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Changed || err != nil || applies(cmd, f) {
			return
		}
		if why := cmd.Annotations[notHereWhy]; why != "" && ReadsSettings(cmd) {
			err = fmt.Errorf("--%s does not apply to %s: %s", f.Name, cmd.CommandPath(), why)
			return
		}
		err = fmt.Errorf("--%s does not apply to %s (see %s --help)", f.Name, cmd.CommandPath(), cmd.CommandPath())
	})
	return err
}

// Usage writes a command's usage as cobra's does, but with the flags
// under their headings (config.Groups), and only the root's flags that
// apply to the command.
func Usage(cmd *cobra.Command) error {
	w := cmd.OutOrStderr()
	fmt.Fprint(w, "Usage:")
	if cmd.Runnable() {
		fmt.Fprintf(w, "\n  %s", cmd.UseLine())
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n  %s [command]", cmd.CommandPath())
		fmt.Fprint(w, "\n\nAvailable Commands:")
		for _, sub := range cmd.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(w, "\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	if cmd.HasParent() {
		if cmd.HasAvailableLocalFlags() {
			fmt.Fprint(w, "\n\nFlags:\n")
			fmt.Fprint(w, strings.TrimRight(cmd.LocalFlags().FlagUsages(), " \n"))
		}
		var inherited []*pflag.Flag
		cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
			if applies(cmd, f) && !f.Hidden {
				if usage := cmd.Annotations[flagUsagePrefix+f.Name]; usage != "" {
					said := *f
					said.Usage = usage
					f = &said
				}
				inherited = append(inherited, f)
			}
		})
		if len(inherited) > 0 {
			fmt.Fprint(w, "\n\nproftop's flags that apply here:")
			writeGroups(w, inherited)
		}
		if why := cmd.Annotations[notHereWhy]; why != "" && ReadsSettings(cmd) {
			fmt.Fprintf(w, "\n\nThe others (proftop --help) do not: %s.", why)
		}
	} else {
		var flags []*pflag.Flag
		cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				flags = append(flags, f)
			}
		})
		fmt.Fprint(w, "\n\nFlags:")
		writeGroups(w, flags)
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n\nUse \"%s [command] --help\" for more information about a command.", cmd.CommandPath())
	}
	fmt.Fprintln(w)
	return nil
}

// writeGroups writes flags under their headings, in config.Groups' order,
// each group's aligned as one table.
func writeGroups(w io.Writer, flags []*pflag.Flag) {
	for _, group := range append(config.Groups(), "") {
		set := pflag.NewFlagSet(group, pflag.ContinueOnError)
		for _, f := range flags {
			if groupOf(f) == group {
				set.AddFlag(f)
			}
		}
		if !set.HasFlags() {
			continue
		}
		heading := group
		if heading == "" {
			heading = "Other"
		}
		fmt.Fprintf(w, "\n  %s:\n", heading)
		fmt.Fprint(w, strings.TrimRight(indent(set.FlagUsages(), "  "), " \n"))
	}
}

// groupOf is the heading a flag goes under; "" when it has none (one
// that config.Groups does not know counts as none).
func groupOf(f *pflag.Flag) string {
	if g := f.Annotations[config.GroupAnnotation]; len(g) > 0 && slices.Contains(config.Groups(), g[0]) {
		return g[0]
	}
	return ""
}

func indent(text, by string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = by + l
		}
	}
	return strings.Join(lines, "")
}
