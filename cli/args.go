package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// exactlyOne accepts one argument, and names it when it is missing:
// "replay needs FILE, the trace to replay".
func exactlyOne(name, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch len(args) {
		case 1:
			return nil
		case 0:
			return fmt.Errorf("%s needs %s, %s (proftop %s --help says more)", cmd.Name(), name, what, cmd.Name())
		}
		return fmt.Errorf("%s takes one %s, %s; got %d arguments: %q", cmd.Name(), name, what, len(args), args)
	}
}
