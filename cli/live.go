package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/config"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/internal/textsafe"
	"github.com/proftop/proftop/state"
	"github.com/proftop/proftop/tui"
)

// View says how to show the picture: the interactive interface, or text
// (or JSON) snapshots like top -b.
type View struct {
	Batch bool
	Count int  // snapshots to print, 0: until interrupted (or the end of a file)
	JSON  bool // one JSON document per snapshot
	Top   int  // rows per table in text snapshots (methods in JSON; 0: all)
	// History prints, at the end, the history as JSON lines instead of
	// the snapshots; Bundle writes a triage bundle there at the end.
	History bool
	Bundle  string
	// Errors receives what batch mode reports beside the snapshots (the
	// problems with the telemetry asked for); nil: standard error.
	Errors io.Writer
}

// Interruptible returns a context that ends on SIGINT or SIGTERM.
func Interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// SessionConfig turns settings into a client configuration.
func SessionConfig(s config.Settings) client.Config {
	return client.Config{
		Host: s.Host, Port: s.Port, Agent: s.Agent, Token: s.Token, Format: client.FormatChoice(s.Format),
		ConnectTimeout: s.ConnectTimeout, NegotiationTimeout: s.NegotiationTimeout,
		Reconnect: s.Reconnect, ReconnectMin: s.ReconnectMin, ReconnectMax: s.ReconnectMax,
		Record: s.Record, MaxMessageSize: s.MaxMessageSize, Telemetry: s.Telemetry, Probes: s.Probes,
	}
}

// StateOptions turns settings into the aggregator's options.
func StateOptions(s config.Settings) state.Options {
	return state.Options{Window: s.Window, MaxThreads: s.MaxThreads, MaxMethods: s.MaxMethods, MaxMonitors: s.MaxMonitors,
		TelemetryWindow: s.TelemetryWindow, TelemetryMemory: s.TelemetryMemory, MaxSeries: s.TelemetrySeries,
		MaxTreeNodes: s.TreeNodes}
}

// Live watches the profiler the settings name, or the fleet when they
// name several.
func Live(ctx context.Context, s config.Settings, v View, out io.Writer) error {
	targets, err := Targets(s)
	switch {
	case err != nil:
		return err
	case len(targets) == 0:
		return errors.New("no profiler to watch: give --host (or PROFTOP_HOST, or host: in the config file), or try proftop demo")
	case len(targets) > 1:
		return WatchFleet(ctx, targets, s, v, out)
	}
	t := targets[0]
	s.Host, s.Port = t.Host, t.Port
	if t.Agent != "" {
		s.Agent = t.Agent
	}
	return Watch(ctx, client.NewSession(SessionConfig(s)), s, v, out)
}

// Watch shows a source: the interface, or batch snapshots.
func Watch(ctx context.Context, src client.Source, s config.Settings, v View, out io.Writer, opts ...WatchOption) error {
	if err := v.check(); err != nil {
		return err
	}
	if err := recordable(s.Record); err != nil {
		return err
	}
	limitMemory(s.MemoryLimit)
	if v.Batch && v.Bundle == "" {
		// No bundle can be written: nothing would read the raw stream
		// kept for one, whose encoding took half a replay's CPU time.
		s.StreamRing = 0
		if !v.History {
			// Nor the call tree, which the text and JSON do not show.
			opts = append(opts, func(o *watchOptions) { o.noCallTree = true })
		}
	}
	w := newWatching(src, s, opts)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !v.Batch || v.History || v.Bundle != "" {
		w.record(ctx) // text snapshots alone read no history
	}
	if !v.Batch {
		if !term.IsTerminal(os.Stdout.Fd()) {
			return errors.New("standard output is not a terminal: use --batch for text snapshots (or --batch --json)")
		}
		cfg := tui.Config{Refresh: s.Refresh, Theme: s.Theme, ASCII: ascii(s.Charset), Recent: true, History: w.history, Bundle: w.writeBundle}
		return tui.Run(ctx, cfg, tui.ColorMode(s.Color), w.src, w.agg)
	}
	err := runBatch(ctx, w.src, w.agg, s, v, out)
	if rec := w.src.Status().Recording; rec != "" {
		// Named by the format received (--record x.trcxml of a binary
		// stream is x.trcbin), and -2, -3… for later connections: say
		// where it went, as the interface's header does.
		fmt.Fprintln(os.Stderr, "proftop: recorded to "+textsafe.Inert(rec))
	}
	if v.History || v.Bundle != "" {
		// The recorder's: the end is taken once it has stopped, for the
		// history printed and the bundle's alike.
		cancel()
		w.endRecording()
	}
	if v.History {
		if perr := printHistory(out, w.history); perr != nil && err == nil {
			err = perr
		}
	}
	if v.Bundle != "" && w.src.Status().Events == 0 {
		// Nothing received: a bundle of nothing would be mistaken for a
		// picture of a quiet JVM.
		fmt.Fprintln(os.Stderr, "proftop: no bundle written: nothing was received")
		return err
	}
	if v.Bundle != "" {
		what, berr := w.writeBundle(v.Bundle, time.Now())
		if berr != nil {
			return errors.Join(err, berr)
		}
		fmt.Fprintln(os.Stderr, "proftop: "+what)
	}
	return err
}

// recordable refuses a --record path whose directory cannot take the
// recording, before connecting: found only when the stream began, it was
// taken for a broken connection, retried for ever, with nothing shown.
func recordable(base string) error {
	if base == "" {
		return nil
	}
	dir := filepath.Dir(base)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--record %s: no directory %s to record in", textsafe.Inert(base), textsafe.Inert(dir))
	}
	probe, err := os.CreateTemp(dir, ".proftop-record-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the probe's own name says nothing to the user
		}
		return fmt.Errorf("--record %s: cannot write in %s: %w", textsafe.Inert(base), textsafe.Inert(dir), err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// check refuses options that do not go together.
func (v View) check() error {
	switch {
	case v.History && (!v.Batch || !v.JSON):
		return errors.New("--history prints the history as JSON lines: use it with --batch --json")
	case v.Bundle != "" && !v.Batch:
		return errors.New("--bundle writes a bundle when a --batch run ends; in the interface, w writes one")
	// The batch output's options mean nothing to the interface: taken
	// silently, they left a user waiting for output that never came.
	case v.JSON && !v.Batch:
		return errors.New("--json prints the snapshots as JSON: use it with --batch")
	case v.Count != 0 && !v.Batch:
		return errors.New("-n (--iterations) counts the snapshots --batch prints: use it with --batch; the interface runs until q")
	case v.Top != 0 && !v.Batch:
		return errors.New("--top is the rows per table --batch prints: use it with --batch; the interface shows what fits")
	}
	return nil
}

// ascii resolves the charset setting: auto follows the locale.
func ascii(charset string) bool {
	switch charset {
	case "ascii":
		return true
	case "unicode":
		return false
	}
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := os.Getenv(k); v != "" {
			v = strings.ToLower(v)
			return !strings.Contains(v, "utf-8") && !strings.Contains(v, "utf8")
		}
	}
	return false
}

// batchWidth is the width of text snapshots: $COLUMNS, else 132.
func batchWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 40 {
		return n
	}
	return 132
}

// runBatch prints a snapshot every refresh interval, Count times. A file
// source prints the picture at its end and stops there.
func runBatch(ctx context.Context, src client.Source, agg *state.Aggregator, s config.Settings, v View, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fed := make(chan struct{})
	if file, ok := src.(*client.FileSource); ok {
		// Nothing waits for the picture but the end of the file (or a
		// snapshot now and then): reading and aggregating on one goroutine
		// costs less CPU than handing batches between two.
		file.Consume = agg.Consume
	}
	go func() {
		agg.Feed(src)
		close(fed)
	}()
	ran := make(chan error, 1)
	go func() { ran <- src.Run(ctx) }()
	problems := newProblemReporter(v.Errors, s.Telemetry, s.Probes)
	print := func() error {
		if v.History {
			return nil // the history is printed at the end instead
		}
		st := src.Status()
		// A still picture (a snapshot file) has no timeline: its figures are cumulative.
		snap := agg.Snapshot(time.Now(), state.Query{Recent: !st.Still, CallersOf: -1})
		defer agg.Release(snap) // the next snapshot reuses its tables
		problems.report(snap)
		if v.JSON {
			b, err := tui.RenderJSON(snap, st, v.Top)
			if err != nil {
				return err
			}
			// Written as it is: a snapshot of 200,000 methods is tens of MB, not to be copied again.
			if _, err := out.Write(b); err != nil {
				return err
			}
			_, err = io.WriteString(out, "\n")
			return err
		}
		_, err := fmt.Fprintf(out, "%s\n", tui.RenderText(snap, st, batchWidth(), topRows(v.Top), ascii(s.Charset)))
		return err
	}
	tick := time.NewTicker(s.Refresh)
	defer tick.Stop()
	for printed := 0; v.Count == 0 || printed < v.Count; printed++ {
		select {
		case err := <-ran:
			<-fed
			if neverStreamed(src.Status()) && err != nil {
				return err // nothing to show: the cause alone
			}
			if perr := print(); perr != nil {
				return perr
			}
			return err
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if st := src.Status(); st.State == client.StateChoosingAgent {
			return errors.New(st.Cause)
		}
		if err := print(); err != nil {
			return err
		}
	}
	// The snapshots asked for are printed: a script must still be able to
	// tell that nothing was ever received.
	if st := src.Status(); neverStreamed(st) {
		cause := st.Cause
		if cause == "" {
			cause = "no data received"
		}
		return fmt.Errorf("gave up after %s without ever receiving data from %s: %s", counted(v.Count, "snapshot"), st.Source, cause)
	}
	return nil
}

// neverStreamed says a source has received nothing at all.
func neverStreamed(st client.Status) bool { return st.Streams == 0 && st.Events == 0 }

func topRows(n int) int {
	if n <= 0 {
		return 20
	}
	return n
}

// newFileSource opens a recording for Watch; follow reads it as it grows.
func newFileSource(path string, speed float64, follow bool, s config.Settings) client.Source {
	src := client.NewFileSource(path, speed, decode.Options{MaxMessageSize: s.MaxMessageSize})
	src.Follow = follow
	return src
}
