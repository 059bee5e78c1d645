package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proftop/proftop/config"
)

// SuggestFlag makes an unknown flag's error name the flag it was likely
// meant to be, as a mistyped command's does ("did you mean attach?"):
// "unknown flag: --refersh; did you mean --refresh?". Only the flags that
// apply to the command are suggested, a few edits away as a mistyped
// setting's are (config.Nearest).
func SuggestFlag(cmd *cobra.Command, err error) error {
	const prefix = "unknown flag: --"
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return err
	}
	typed, _, _ := strings.Cut(strings.TrimPrefix(msg, prefix), "=")
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden && (cmd.InheritedFlags().Lookup(f.Name) != f || applies(cmd, f)) {
			names = append(names, f.Name)
		}
	}
	cmd.LocalFlags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	if best := config.Nearest(typed, names); best != "" {
		return fmt.Errorf("%w; did you mean --%s?", err, best)
	}
	return fmt.Errorf("%w (%s --help lists the flags)", err, cmd.CommandPath())
}
