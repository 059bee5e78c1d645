package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/proftop/proftop/bundle"
	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/config"
	"github.com/proftop/proftop/decode"
)

// checkTrace refuses, before anything is shown, a file that is not a trace:
// one that cannot be read, a directory, bytes of no trace format, or a
// document whose first element is no event proftop knows. A file to be
// followed may still be being written: one that ends before its format
// can be told, inside its header or first message, or (a snapshot) inside
// its document, is no refusal but a wait, which the interface shows.
func checkTrace(path string, s config.Settings, follow bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return fmt.Errorf("%s: not a trace (a directory)", path)
	}
	dec, err := decode.Open(f, decode.Options{MaxMessageSize: s.MaxMessageSize, Growing: follow})
	if follow && decode.MoreMayCome(err) {
		return nil
	}
	if errors.Is(err, decode.ErrZipDamaged) || errors.Is(err, decode.ErrZipGrowing) {
		return fmt.Errorf("%s: %v", path, err) // a zip, told by its first bytes: damaged, not no trace
	}
	if err != nil {
		return fmt.Errorf("%s: not a trace (%v)", path, err)
	}
	ev, err := dec.Next()
	switch {
	case follow && (errors.Is(err, io.EOF) || decode.MoreMayCome(err)):
		return nil // its first event is still to be written
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%s: not a trace (it holds no event)", path)
	case errors.Is(err, decode.ErrTruncated) && dec.Format() == decode.FormatProfilerJ:
		// A snapshot is read whole before its first event: cut anywhere.
		return fmt.Errorf("%s: a %s cut short (%v)", path, dec.Format(), err)
	case errors.Is(err, decode.ErrTruncated):
		// A trace of a known format, cut inside its first event.
		return fmt.Errorf("%s: cut short inside its first event (%s: %v)", path, dec.Format(), err)
	case errors.Is(err, decode.ErrVersion):
		return fmt.Errorf("%s: a %s trace of a version proftop cannot read (%v)", path, dec.Format(), err)
	case err != nil && dec.Format() != decode.FormatXML && dec.Format() != decode.FormatRbkit:
		// Its format is told by what it begins with (a binary trace's
		// magic, a Jinsight header, a ProfilerJ document): of that
		// format, and damaged. Any XML document is let through to its
		// first element, and rbkit's frames are told by two bytes that
		// many files begin with: those are no trace.
		what := dec.Format().String() + " trace"
		if dec.Format() == decode.FormatProfilerJ {
			what = dec.Format().String() // "profilerj snapshot"
		}
		return fmt.Errorf("%s: a damaged %s (%v)", path, what, err)
	case err != nil:
		return fmt.Errorf("%s: not a trace (%v)", path, err)
	}
	if u, ok := ev.(*decode.Unknown); ok {
		what := fmt.Sprintf("message id %d", u.ID)
		if u.Element != "" {
			what = "<" + u.Element + ">"
		}
		return fmt.Errorf("%s: not a trace (it begins with %s, which is no trace event)", path, what)
	}
	return nil
}

// pipeInput is an input that can be read only once.
type pipeInput struct {
	name  string
	whole io.Reader // the input from its first byte, the ones read to tell its format included
}

// openPipe opens path when it can be read only once: "-" (standard input),
// a FIFO, a character device, a socket. Its format is told from its first
// bytes, and what is no trace refused, before anything is shown; the rest
// is the source's to read, without opening it again (its bytes would be
// gone, or its writer). A regular file is nil: it is checked, and read,
// by its path.
func openPipe(path string) (*pipeInput, error) {
	var in *os.File
	if path == "-" {
		if term.IsTerminal(os.Stdin.Fd()) {
			// It would wait for a trace typed in.
			return nil, errors.New("replay -: standard input is a terminal: pipe a trace into it (zcat trace.gz | proftop replay -)")
		}
		in, path = os.Stdin, "standard input"
	} else {
		st, err := os.Stat(path)
		if err != nil || st.Mode().IsRegular() || st.IsDir() {
			return nil, nil // checkTrace names what is wrong with it
		}
		if in, err = os.Open(path); err != nil {
			return nil, err
		}
	}
	_, _, whole, err := decode.SniffStream(in)
	if err != nil {
		return nil, fmt.Errorf("%s: not a trace (%v)", path, err)
	}
	return &pipeInput{name: path, whole: whole}, nil
}

// streamsLeft says which raw streams of a bundle are not played: a bundle
// holds one, but one put together by hand may hold more, of which the
// first is played (decode plays a tar's first trace), and the others
// would go unseen unsaid.
func streamsLeft(streams []string) []string {
	if len(streams) < 2 {
		return nil
	}
	return []string{fmt.Sprintf("the bundle holds %d raw streams: %s is played, not %s (extract one with tar to replay it on its own)",
		len(streams), streams[0], strings.Join(streams[1:], ", "))}
}

// NewReplayCommand returns `proftop replay FILE`.
func NewReplayCommand(s *config.Settings, v *View) *cobra.Command {
	var speed float64
	var follow bool
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Show a recorded trace, a snapshot (.trcbin, .trcxml, zipped .trcxml, Jinsight .trc, ProfilerJ .xml, rbkit .msgpack) or a triage bundle as if it were live",
		Long: `Play a recorded trace through the same path as a live stream, in the
interface or, with --batch, as text snapshots (the picture at the end of the
file with --json). The format is told from the content, not the name: TPTP
binary or XML traces (zipped too), JinsightLive .trc traces, ProfilerJ
snapshots (a still picture), rbkit recordings (.msgpack, written by
proftop rbkit --record). By default it plays as fast as possible;
--speed N paces events by their timestamps at N times real time (1 is real
time), passing over any stretch with nothing in it that would take more
than 10 s, and a clock set back (the notes say so). --follow reads a file
that is still being written, like tail -f: what is there, then what is
added as it comes; a file truncated, replaced or rewritten in place is
read again from its start.

A triage bundle (written by w in the interface, or --bundle) reopens with
its history: freeze (space) and step back (←, [, home) through the pictures
it kept, each with its call tree (t); its raw stream of the last minutes is
played.`,
		Args: exactlyOne("FILE", "the trace or bundle to replay"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if speed < 0 || math.IsNaN(speed) || math.IsInf(speed, 0) {
				return fmt.Errorf("--speed %v: a number of times real time, 0 or more (0: as fast as possible)", speed)
			}
			if pipe, err := openPipe(args[0]); err != nil || pipe != nil {
				if err != nil {
					return err
				}
				ctx, stop := Interruptible()
				defer stop()
				return Watch(ctx, client.NewPipeSource(pipe.name, pipe.whole, speed, decode.Options{MaxMessageSize: s.MaxMessageSize}), *s, *v, cmd.OutOrStdout())
			}
			var opts []WatchOption
			played := func(src client.Source) client.Source { return src }
			if bundle.IsBundle(args[0]) {
				b, err := bundle.Read(args[0])
				if err != nil {
					return err
				}
				opts = append(opts, WithHistory(b.History(historyOptions(*s))))
				// Said as its source said it, not as its re-encoded stream would.
				played = func(src client.Source) client.Source {
					return client.FromBundle(src, b.Origin, streamsLeft(b.Streams))
				}
				if len(b.Streams) == 0 {
					// Written without its raw stream (--stream-ring 0): its
					// history is all there is to see.
					ctx, stop := Interruptible()
					defer stop()
					src := client.NewNothingSource(args[0], "the bundle holds no raw stream (written with --stream-ring 0): its history only (space, then ←)")
					return Watch(ctx, played(src), *s, *v, cmd.OutOrStdout(), opts...)
				}
			}
			if err := checkTrace(args[0], *s, follow); err != nil {
				return err
			}
			ctx, stop := Interruptible()
			defer stop()
			return Watch(ctx, played(newFileSource(args[0], speed, follow, *s)), *s, *v, cmd.OutOrStdout(), opts...)
		},
	}
	cmd.Flags().Float64Var(&speed, "speed", 0, "pace events by their timestamps at this many times real time (0: as fast as possible)")
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep reading the file as it grows (like tail -f); start over when it is truncated, replaced or rewritten")
	NotApplicable(cmd, "replay reads a file, and connects to nothing",
		"host", "hosts", "port", "agent", "token", "format", "connect-timeout", "negotiation-timeout",
		"reconnect", "reconnect-min", "reconnect-max", "record", "telemetry", "probe", "pub-port", "req-port")
	return cmd
}
