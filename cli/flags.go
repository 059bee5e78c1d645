package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// RefuseInheritedFlags fails when a flag of the root command that means
// nothing to cmd was given (proftop simulate --refresh 1s, proftop decode
// --batch): a flag that is silently ignored looks as if it worked.
func RefuseInheritedFlags(cmd *cobra.Command) error {
	var err error
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if f.Changed && err == nil {
			err = fmt.Errorf("--%s does not apply to proftop %s (see proftop %s --help)", f.Name, cmd.Name(), cmd.Name())
		}
	})
	return err
}
