package state

import (
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
)

// Feed applies every batch of a source until its batches end. Run it on
// its own goroutine: it is where aggregation happens, off the UI.
//
// A file source whose Consume is the aggregator's (FileSource.Consume) delivers
// no batch: Feed then only ends a recording on trace time when the file
// has been read.
func (a *Aggregator) Feed(src client.Source) {
	for b := range src.Batches() {
		a.Consume(b)
		src.Recycle(b)
	}
	if a.onTrace != nil {
		a.onTrace.end()
	}
}

// Consume applies one batch of a source. The batch is the caller's again
// on return.
func (a *Aggregator) Consume(b *client.Batch) {
	if b.Restart {
		a.Restart()
		if a.onTrace != nil {
			a.onTrace.restart()
		}
	}
	if a.onTrace != nil {
		a.applyRecorded(b.Events(), b.Stream, b.Clock)
	} else {
		a.Apply(b.Events(), b.Stream, b.Clock, time.Now())
	}
}

// RecordOnTraceTime has Feed take r's pictures as a recording's own time
// passes, a step of it apart, rather than on the wall clock: a file read
// in a second keeps a picture a step of the minutes it recorded, not one
// of the second it took to read. Set it before Feed runs.
func (a *Aggregator) RecordOnTraceTime(r *Recorder, step time.Duration) {
	a.onTrace = &traceRecording{r: r, step: step}
}

// traceRecording is where a recording's pictures are due.
type traceRecording struct {
	r    *Recorder
	step time.Duration
	due  time.Time // the next picture's moment; zero before the first dated event
	last time.Time // the latest picture's
}

// applyRecorded applies a batch in runs, each ending before the event
// whose time reaches the next picture's moment; the picture is taken
// there, of what came before: a batch (4,096 events) can hold a whole
// recording of a quiet JVM, which then kept one picture.
func (a *Aggregator) applyRecorded(evs []decode.Event, stream int, clock decode.Clock) {
	tr := a.onTrace
	from := 0
	for i, ev := range evs {
		t, ok := decode.Time(ev)
		if !ok || t == 0 {
			continue // a definition: dated by nothing
		}
		at := time.Unix(0, clock.Nanos(t))
		switch {
		case tr.due.IsZero():
			tr.due = at.Add(tr.step) // the first picture a step after the first event, as on the wall clock
		case !at.Before(tr.due):
			// Also when the event opens its batch: a paced or followed
			// file sends a batch before each wait, and the event waited
			// for opens the next.
			if i > from {
				a.Apply(evs[from:i], stream, clock, time.Now())
				from = i
			}
			tr.take()
		}
	}
	a.Apply(evs[from:], stream, clock, time.Now())
}

// take takes a picture at the trace's latest time, when that is past the
// latest picture's (a trace that goes back, a new stream, adds pictures
// again once it passes it: the history stays in order).
func (tr *traceRecording) take() {
	_, _, clock := tr.r.agg.applied()
	if clock.IsZero() || !clock.After(tr.last) {
		return
	}
	if tr.r.Take(clock) != nil {
		tr.last = clock
	}
	tr.due = clock.Add(tr.step)
}

// end takes the recording's last picture, of its end.
func (tr *traceRecording) end() { tr.take() }

// restart begins the history again with the file: a followed file
// truncated or replaced starts over, and what it delivered before is void
// (client.Batch.Restart); its pictures, of another recording's times,
// would keep the new one's from being taken until its time passed them.
func (tr *traceRecording) restart() {
	tr.due, tr.last = time.Time{}, time.Time{}
	tr.r.hist.Clear()
}
