package tui

import "github.com/proftop/proftop/internal/textsafe"

// inert makes a name that came from the profiler safe to print: control
// characters, escape sequences, bidirectional overrides and invalid UTF-8
// become visible escapes, so that nothing in a thread or method name can
// act on the terminal. Clean strings are returned as they are.
func inert(s string) string { return textsafe.Inert(s) }

// Inert is inert for the writers of text files (bundles): a name from the
// profiler never acts on the terminal of whoever reads the file.
func Inert(s string) string { return inert(s) }
