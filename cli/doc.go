// Package cli holds proftop's subcommands, one file each. main.go builds the
// root command and wires them in.
package cli
