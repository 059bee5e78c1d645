package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/proftop/proftop/bundle"
	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/config"
	"github.com/proftop/proftop/internal/textsafe"
	"github.com/proftop/proftop/state"
)

// Version is proftop's version line, set by main; bundles say which
// proftop wrote them.
var Version = "proftop (version unknown)"

// WatchOption changes how Watch shows a source.
type WatchOption func(*watchOptions)

type watchOptions struct {
	history *state.History // a history read back (from a bundle): no recorder runs
	// noCallTree: nothing will read the call tree (a batch run without
	// history or bundle), which is then not kept.
	noCallTree bool
}

// WithHistory shows a history read back instead of recording one.
func WithHistory(h *state.History) WatchOption {
	return func(o *watchOptions) { o.history = h }
}

// unwrapped is the source that src passes on (a bundle's stream, under
// what the bundle's source said of itself), src when none.
func unwrapped(src client.Source) client.Source {
	for {
		w, ok := src.(interface{ Unwrap() client.Source })
		if !ok {
			return src
		}
		src = w.Unwrap()
	}
}

// watching is what a watch keeps beside the aggregator: the history and
// its recorder, the raw-stream ring, and what bundles are made of.
type watching struct {
	src      client.Source
	agg      *state.Aggregator
	history  *state.History
	recorder *state.Recorder // nil when the history was read back
	bundles  *bundle.Source
	step     time.Duration
	// traceTime says the source is a recording read on its own time: its
	// history is taken as that time passes, not on the wall clock.
	traceTime bool
	// recording is closed when the recorder taking pictures on the wall
	// clock has stopped (nil when none runs).
	recording chan struct{}
}

// historyOptions are the history's bounds from the settings.
func historyOptions(s config.Settings) state.HistoryOptions {
	return state.HistoryOptions{Span: s.History, MaxBytes: int64(s.HistoryMemory) << 20}
}

// newWatching sets up the aggregator, the history and the ring for a source.
func newWatching(src client.Source, s config.Settings, opts []WatchOption) *watching {
	var o watchOptions
	for _, f := range opts {
		f(&o)
	}
	so := StateOptions(s)
	so.NoCallTree = o.noCallTree
	switch unwrapped(src).(type) {
	case *client.FileSource, *client.NothingSource:
		// A recording's "last N seconds" are its own, not the wall
		// clock's: once it has been read, its end stays in the window;
		// a bundle's pictures are of its time (one without its stream
		// has nothing else), and how long ago one was is told from its
		// latest, not from now.
		so.TraceTime = true
	}
	w := &watching{agg: state.New(so), step: max(s.Refresh, time.Second), traceTime: so.TraceTime}
	var ring *client.StreamRing
	if s.StreamRing > 0 {
		ring = client.NewStreamRing(int64(s.StreamRing)<<20, int64(s.StreamRing)<<18)
		src = client.Recording(src, ring)
	}
	w.src = src
	if o.history != nil {
		w.history = o.history
	} else {
		w.history = state.NewHistory(historyOptions(s))
		w.recorder = state.NewRecorder(w.agg, w.history)
	}
	w.bundles = &bundle.Source{Agg: w.agg, History: w.history, Ring: ring, Status: src.Status, Version: Version}
	return w
}

// record takes a picture every step until ctx ends: a step of the wall
// clock, or of a recording's own time as it is read.
func (w *watching) record(ctx context.Context) {
	switch {
	case w.recorder == nil:
	case w.traceTime:
		w.agg.RecordOnTraceTime(w.recorder, w.step)
	default:
		w.recording = make(chan struct{})
		go func() {
			defer close(w.recording)
			w.recorder.Run(ctx, w.step)
		}()
	}
}

// endRecording takes the picture of a run's end, once the recorder on the
// wall clock has stopped (ctx, which it runs under, is done): taken beside
// it, the two could take one moment twice, or race. A picture taken just
// before is the end already (Recorder.TakeFinal).
func (w *watching) endRecording() {
	if w.recorder == nil || w.traceTime {
		return // a recording's end is taken as it is read
	}
	if w.recording != nil {
		<-w.recording
	}
	if w.src.Status().Events > 0 {
		w.recorder.TakeFinal(time.Now(), w.step)
	}
}

// writeBundle writes a bundle and words what it holds.
func (w *watching) writeBundle(path string, now time.Time) (string, error) {
	sum, err := w.bundles.Write(path, now)
	if err != nil {
		return "", err
	}
	return bundleWritten(sum), nil
}

// bundleWritten words what a bundle written holds.
func bundleWritten(sum bundle.Summary) string {
	what := fmt.Sprintf("bundle written: %s (%s; %s, %s", sum.Path, sizeText(sum.Bytes), counted(sum.Pictures, "picture"), counted(sum.Deadlocks, "deadlock"))
	switch span := sum.Stream.Round(time.Second); {
	case span > 0:
		what += fmt.Sprintf(", %s of raw stream", span)
	case sum.StreamBytes > 0:
		// Less than a second of events, or of arrival for a trace whose
		// events have no date: "0s" would say it holds nothing.
		what += fmt.Sprintf(", %s of raw stream", sizeText(sum.StreamBytes))
	}
	return what + ")"
}

// counted says how many of a thing: "1 deadlock", "3 deadlocks".
func counted(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// printHistory writes the history as JSON lines, oldest first, with the
// peer's text escaped as --json escapes it (textsafe.EscapeJSON).
func printHistory(out io.Writer, h *state.History) error {
	for _, p := range h.Pictures() {
		b, err := json.Marshal(p)
		if err != nil {
			return err
		}
		if _, err := out.Write(append(textsafe.EscapeJSON(b), '\n')); err != nil {
			return err
		}
	}
	return nil
}
