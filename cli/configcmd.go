package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proftop/proftop/config"
)

// NewConfigCommand returns `proftop config`.
func NewConfigCommand(origins *[]config.Origin, file *string) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective settings and where each came from",
		Long: `Print every setting with its value and its source: a flag, a PROFTOP_*
environment variable, the config file, or the default. Flags win over the
environment, which wins over the file.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintf(w, "config file\t%s\n\n", *file)
			fmt.Fprintln(w, "SETTING\tVALUE\tFROM\tENVIRONMENT")
			for _, o := range *origins {
				value := o.Value
				if o.Key == "token" && value != "" && value != `""` { // "" is how an empty value shows
					value = fmt.Sprintf("(set: %d characters, not shown)", len(value)) // a secret stays off the screen
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", o.Key, value, o.Source, config.EnvName(o.Key))
			}
			return w.Flush()
		},
	}
}
