package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/proftop/proftop/bundle"
	"github.com/proftop/proftop/config"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/export"
	"github.com/proftop/proftop/internal/atomicfile"
	"github.com/proftop/proftop/internal/textsafe"
	"github.com/proftop/proftop/state"
)

// NewExportCommand returns `proftop export SOURCE --format pprof|collapsed -o FILE`.
func NewExportCommand(s *config.Settings) *cobra.Command {
	var format, out, value string
	cmd := &cobra.Command{
		Use:   "export SOURCE -o FILE",
		Short: "Write the call tree of a trace or a bundle as a pprof profile or collapsed stacks",
		Long: `Read a trace to its end, or a triage bundle, and write its call tree since
the start: the stacks of a sampling profiler with their sampled CPU time
(rbkit's counted), or the calls of an instrumenting one (method entries
and exits) with their self time. A trace is any replay reads, told by its
content: TPTP binary or XML (zipped or gzipped too), a JinsightLive .trc,
a ProfilerJ snapshot, an rbkit recording (.msgpack).

  --format pprof       a gzipped pprof profile: go tool pprof, and every pprof viewer
  --format collapsed   one line per stack, root first, "frame;frame;frame value":
                       flamegraph.pl, speedscope (--value: time in µs, or counts)`,
		Args: exactlyOne("SOURCE", "the trace or bundle to export"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "pprof" && format != "collapsed" {
				return fmt.Errorf("--format %q: want pprof or collapsed", format)
			}
			v, err := export.ParseValue(value)
			if err != nil {
				return err
			}
			if format == "pprof" && cmd.Flags().Changed("value") {
				// A pprof profile holds both values, time and count, as its sample types: the viewer chooses.
				return fmt.Errorf("--value applies to --format collapsed only: a pprof profile holds both time and count, and its viewer chooses (go tool pprof -sample_index=...)")
			}
			tree, span, cut, err := exportTree(args[0], *s)
			if err != nil {
				return err
			}
			if format == "collapsed" && v == export.ValueTime && !tree.Weighted {
				// Every line would count 0: an empty file said nothing of why.
				return fmt.Errorf("--value time: the stacks of %s have no times (they are counted: --value count)", textsafe.Inert(args[0]))
			}
			write := func(w io.Writer) error { return export.Collapsed(w, tree, v) }
			if format == "pprof" {
				write = func(w io.Writer) error { return export.Pprof(w, tree, span) }
			}
			if err := writeOut(out, write, cmd.OutOrStdout()); err != nil {
				return err
			}
			if cut != nil {
				// Written, and said: the exit status tells a script the
				// profile is of part of the trace.
				return fmt.Errorf("%w (the profile written holds the trace up to there)", cut)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "pprof", "pprof or collapsed")
	f.StringVarP(&out, "output", "o", "", "the file to write (- for standard output)")
	f.StringVar(&value, "value", "auto", "collapsed stacks count: time (µs), count (samples or calls), or auto (time when known)")
	cmd.MarkFlagRequired("output")
	return cmd
}

// exportTree reads a source's call tree: a bundle's profile, or a trace
// played to its end. A trace that ends inside a message (a recording
// whose writer was killed) gives the tree of what came before, and cut
// says where it ended.
func exportTree(path string, s config.Settings) (tree *state.CallTree, span export.Span, cut, err error) {
	if bundle.IsBundle(path) {
		b, err := bundle.Read(path)
		if err != nil {
			return nil, export.Span{}, nil, err
		}
		if len(b.Profile) == 0 {
			return nil, export.Span{}, nil, fmt.Errorf("%s: the bundle holds no call tree (its source sent no stacks or calls)", path)
		}
		tree, p, err := export.ReadPprof(bytes.NewReader(b.Profile))
		if err != nil {
			return nil, export.Span{}, nil, fmt.Errorf("%s: %s: %v", path, bundle.FileProfile, err)
		}
		span := export.Span{Source: path, Sampled: len(p.SampleType) > 0 && p.SampleType[0].Type == "samples"}
		if p.TimeNanos != 0 {
			span.From = time.Unix(0, p.TimeNanos)
			span.To = span.From.Add(time.Duration(p.DurationNanos))
		}
		return tree, span, nil, nil
	}
	if err := checkTrace(path, s, false); err != nil {
		return nil, export.Span{}, nil, err
	}
	src := newFileSource(path, 0, false, s)
	agg := state.New(StateOptions(s))
	fed := make(chan struct{})
	go func() {
		agg.Feed(src)
		close(fed)
	}()
	runErr := src.Run(context.Background())
	<-fed
	if runErr != nil && !decode.MoreMayCome(runErr) {
		return nil, export.Span{}, nil, runErr
	}
	shape, figs := agg.TreeAndShape(false)
	tree = state.BuildCallTree(shape, nil, figs)
	if len(tree.Nodes) <= 1 {
		if runErr != nil {
			return nil, export.Span{}, nil, runErr
		}
		return nil, export.Span{}, nil, fmt.Errorf("%s: no stacks or calls to export (the trace has no samples, and no method entries and exits)", path)
	}
	snap := agg.Snapshot(time.Now(), state.Query{CallersOf: -1})
	return tree, export.Span{From: snap.TreeSince(), To: snap.Clock, Source: path, Sampled: snap.Sampled}, runErr, nil
}

// writeOut writes to a file, whole or not at all (a full disk leaves
// neither an empty file nor a file that was there cut short), or to
// standard output for "-".
func writeOut(path string, write func(io.Writer) error, stdout io.Writer) error {
	if path == "-" {
		return write(stdout)
	}
	_, err := atomicfile.Write(path, "the profile", 0o644, write)
	return err
}
