package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/internal/textsafe"
)

// NewDecodeCommand returns `proftop decode FILE`.
func NewDecodeCommand() *cobra.Command {
	var stats bool
	var maxSize int
	cmd := &cobra.Command{
		Use:   "decode FILE|-",
		Short: "Print every event of a trace file as one JSON object per line",
		Long: `Decode a trace file (binary .trcbin, XML .trcxml, or a zipped .trcxml, a
JinsightLive .trc trace, a ProfilerJ snapshot, an rbkit recording .msgpack;
the format is told from the content, not the name) and print one JSON object
per event: for Jinsight and ProfilerJ, per event or element of the file,
under the format's own names.
"-" reads standard input. With --stats, print counts instead.`,
		Args: exactlyOne("FILE", "the trace to decode (- reads standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, name, err := openInput(args[0], cmd.InOrStdin())
			if err != nil {
				return err
			}
			defer in.Close()
			return runDecode(in, name, cmd.OutOrStdout(), cmd.ErrOrStderr(), decodeOptions{stats: stats, maxSize: maxSize})
		},
	}
	cmd.Flags().BoolVar(&stats, "stats", false, "print the count per event type, the bytes read and the decode rate instead of events")
	cmd.Flags().IntVar(&maxSize, "max-message-size", decode.DefaultMaxMessageSize, "largest message or XML element accepted, in bytes")
	return cmd
}

func openInput(arg string, stdin io.Reader) (io.ReadCloser, string, error) {
	if arg == "-" {
		return io.NopCloser(stdin), "standard input", nil
	}
	f, err := os.Open(arg)
	if err != nil {
		return nil, "", err
	}
	return f, arg, nil
}

type decodeOptions struct {
	stats   bool
	maxSize int
}

// errDecodeFailed is returned when the input had errors, already reported.
var errDecodeFailed = errors.New("the input did not decode cleanly")

// runDecode prints the events of in, then any error with its offset.
func runDecode(in io.Reader, name string, stdout, stderr io.Writer, opts decodeOptions) error {
	start := time.Now()
	// Every string whole: decode prints what the trace holds, one event at
	// a time, and keeps nothing (the picture bounds them: decode.DefaultMaxString).
	d, err := decode.Open(in, decode.Options{MaxMessageSize: opts.maxSize, MaxString: -1})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	out := bufio.NewWriterSize(stdout, 256<<10)
	defer out.Flush()
	extra, _ := d.(interface{ ExtraAttrs() []decode.Attr })
	// A format with records of its own prints them, under its own names.
	records, _ := d.(decode.RecordSource)
	next := d.Next
	if records != nil {
		next = func() (decode.Event, error) { return nil, nil }
	}
	// Events are counted by kind in an array: a map by name cost a hash
	// per event, a tenth of a fast decode. Records, rarer, by their name.
	var counts [256]int
	recordCounts := map[string]int{}
	var line []byte
	failed := 0
	events := 0
	for {
		var rec decode.Record
		ev, err := next()
		if records != nil {
			rec, err = records.NextRecord()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			out.Flush()
			fmt.Fprintf(stderr, "proftop: %s: %s\n", name, textsafe.Inert(err.Error()))
			failed++
			if decode.IsFatal(err) {
				break
			}
			continue
		}
		events++
		if rec != nil {
			if opts.stats {
				recordCounts[rec.Type()]++
				continue
			}
			line = append(rec.AppendJSON(line[:0]), '\n')
			if _, err := out.Write(line); err != nil {
				return err
			}
			continue
		}
		if opts.stats {
			counts[ev.Kind()]++
			continue
		}
		var attrs []decode.Attr
		if extra != nil {
			attrs = extra.ExtraAttrs()
		}
		line = decode.AppendJSON(line[:0], ev, d.Clock(), attrs)
		line = append(line, '\n')
		if _, err := out.Write(line); err != nil {
			return err
		}
	}
	if opts.stats {
		printStats(out, name, d, &counts, recordCounts, events, records != nil, failed, time.Since(start))
	}
	if failed > 0 {
		return errDecodeFailed
	}
	return nil
}

// printStats prints the counts. A format with records of its own counts
// those (records), which are not the events of proftop's picture that
// replay's header counts: the two are labelled apart.
func printStats(w io.Writer, name string, d decode.Decoder, counts *[256]int, recordCounts map[string]int, events int, ownRecords bool, failed int, elapsed time.Duration) {
	bytesRead := d.InputOffset()
	secs := elapsed.Seconds()
	fmt.Fprintf(w, "file      %s\n", name)
	inflated := ""
	if c, ok := d.(interface{ Container() string }); ok {
		fmt.Fprintf(w, "format    %s, in a %s archive\n", d.Format(), c.Container())
		inflated = " (of the trace, as inflated from the archive)"
	} else {
		fmt.Fprintf(w, "format    %s\n", d.Format())
	}
	unit := "events"
	if ownRecords {
		unit = "records"
		fmt.Fprintf(w, "records   %d (the format's own; replay's header counts the events proftop makes of them)\n", events)
	} else {
		fmt.Fprintf(w, "events    %d\n", events)
	}
	fmt.Fprintf(w, "bytes     %d%s\n", bytesRead, inflated)
	fmt.Fprintf(w, "errors    %d\n", failed)
	fmt.Fprintf(w, "time      %s\n", elapsed.Round(time.Microsecond))
	if secs > 0 {
		fmt.Fprintf(w, "rate      %.1f MB/s, %.0f %s/s\n", float64(bytesRead)/secs/1e6, float64(events)/secs, unit)
	}
	fmt.Fprintln(w)
	type count struct {
		kind string
		n    int
	}
	var kinds []count
	for k, n := range counts {
		if n > 0 {
			kinds = append(kinds, count{decode.Kind(k).String(), n})
		}
	}
	for k, n := range recordCounts {
		kinds = append(kinds, count{k, n})
	}
	sort.Slice(kinds, func(i, j int) bool {
		if kinds[i].n != kinds[j].n {
			return kinds[i].n > kinds[j].n
		}
		return kinds[i].kind < kinds[j].kind
	})
	width := 20
	for _, c := range kinds {
		width = max(width, len(c.kind))
	}
	for _, c := range kinds {
		fmt.Fprintf(w, "%-*s %d\n", width, c.kind, c.n)
	}
}
