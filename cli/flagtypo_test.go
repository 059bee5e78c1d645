package cli

import (
	"errors"
	"testing"

	"github.com/spf13/cobra"
)

// A mistyped flag is told the flag it was likely meant to be, among those
// that apply to the command; one nothing resembles, where to look.
func TestSuggestFlag(t *testing.T) {
	root := &cobra.Command{Use: "proftop"}
	root.PersistentFlags().Duration("refresh", 0, "")
	root.PersistentFlags().Bool("batch", false, "")
	sub := &cobra.Command{Use: "replay", Run: func(*cobra.Command, []string) {}}
	sub.Flags().Bool("follow", false, "")
	root.AddCommand(sub)
	for _, tc := range []struct {
		cmd       *cobra.Command
		err, want string
	}{
		{root, "unknown flag: --refersh", "unknown flag: --refersh; did you mean --refresh?"},
		{root, "unknown flag: --bacth=true", "unknown flag: --bacth=true; did you mean --batch?"},
		{sub, "unknown flag: --folow", "unknown flag: --folow; did you mean --follow?"},
		{sub, "unknown flag: --bach", "unknown flag: --bach; did you mean --batch?"},
		{root, "unknown flag: --colour-scheme", "unknown flag: --colour-scheme (proftop --help lists the flags)"},
		{root, "unknown shorthand flag: 'z' in -z", "unknown shorthand flag: 'z' in -z"},
	} {
		if got := SuggestFlag(tc.cmd, errors.New(tc.err)).Error(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.err, got, tc.want)
		}
	}
}
