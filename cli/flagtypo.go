package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// SuggestFlag makes an unknown flag's error name the flag it was likely
// meant to be, as a mistyped command's does ("did you mean attach?"):
// "unknown flag: --refersh; did you mean --refresh?". Only the flags that
// apply to the command are suggested.
func SuggestFlag(cmd *cobra.Command, err error) error {
	const prefix = "unknown flag: --"
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return err
	}
	typed := strings.SplitN(strings.TrimPrefix(msg, prefix), "=", 2)[0]
	best, bestDistance := "", 3 // at most two edits away
	consider := func(f *pflag.Flag) {
		if f.Hidden || (cmd.InheritedFlags().Lookup(f.Name) == f && !applies(cmd, f)) {
			return
		}
		if d := editDistance(typed, f.Name); d < bestDistance {
			best, bestDistance = f.Name, d
		}
	}
	cmd.LocalFlags().VisitAll(consider)
	cmd.InheritedFlags().VisitAll(consider)
	if best == "" {
		return fmt.Errorf("%w (%s --help lists the flags)", err, cmd.CommandPath())
	}
	return fmt.Errorf("%w; did you mean --%s?", err, best)
}

// editDistance is the Levenshtein distance between two flag names.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
