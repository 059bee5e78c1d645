package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/proftop/proftop/decode"
)

// FileSource plays a recorded trace or snapshot (any format decode.Open
// tells by content) through the same path as a live stream: decoded off
// the caller's goroutine and handed over in batches. With Follow it reads
// a file that is still being written, like tail -f, whatever its format.
type FileSource struct {
	path  string
	speed float64
	track *tracker
	pump  *pump
	opts  decode.Options

	// Follow keeps reading as the file grows, and starts over when it is
	// truncated or replaced; set it before Run.
	Follow bool
	// Poll is how often a followed file is looked at for more (0: 250 ms).
	Poll time.Duration
	// Consume, when set before Run, takes every batch on Run's goroutine,
	// as it is made, and Batches delivers none (it is closed when Run
	// returns): a file read to its picture then decodes and aggregates on
	// one core, with one batch reused while it is in the cache, and nothing
	// handed between goroutines: up to a seventh less CPU than the channel
	// on a JVM's recording (docs/performance.md). It stops when Run's
	// context ends. The interface keeps the channel, so that its
	// snapshots never wait for the file's reading.
	Consume func(*Batch)

	// once is the input when it can be read only once (a pipe, a FIFO,
	// standard input): read where it is, never opened again by its path.
	once io.Reader

	stream   int
	dec      decode.Decoder // of the current pass, for its notes
	restarts int
	restart  string // why and when the latest start over
	skipNote string // what the pacing passed over (pacer.skipNote)
}

// NewFileSource plays path. speed 0 plays as fast as possible; speed N
// paces events by their timestamps at N times real time.
func NewFileSource(path string, speed float64, opts decode.Options) *FileSource {
	t := newTracker(path)
	f := &FileSource{path: path, speed: speed, track: t, pump: newPump(t), opts: opts}
	f.pump.beforeSend = f.updateNotes
	return f
}

// NewPipeSource plays what r gives, once: a pipe, a FIFO or standard
// input, whose bytes are gone once read, so that opening it again by its
// name (as a file is, to follow it or start over) would lose its start or
// wait for a writer that has gone. name is what the status calls it.
func NewPipeSource(name string, r io.Reader, speed float64, opts decode.Options) *FileSource {
	f := NewFileSource(name, speed, opts)
	f.once = r
	return f
}

func (f *FileSource) Batches() <-chan *Batch { return f.pump.out }
func (f *FileSource) Recycle(b *Batch)       { f.pump.recycle(b) }
func (f *FileSource) Status() Status         { return f.track.snapshot() }

// countingReader counts the bytes a decoder takes from the file.
type countingReader struct {
	r     io.Reader
	track *tracker
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.track.addBytes(int64(n))
	return n, err
}

// Run plays the file to its end (or until ctx ends); a followed file,
// until ctx ends.
func (f *FileSource) Run(ctx context.Context) error {
	defer close(f.pump.out)
	f.pump.consume = f.Consume
	for {
		err := f.play(ctx)
		var so *startOver
		if !errors.As(err, &so) {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		f.restarts++
		f.restart = fmt.Sprintf("%s at %s: read again from its start", so.why, time.Now().Format("15:04:05"))
		f.updateNotes()
		if f.pump.startOver(ctx) != nil {
			return nil
		}
		f.track.startOver() // after the batches of before: their events are counted by then
	}
}

// play reads the file once from its start: to its end, to a fatal error,
// or, followed, until it changes under the reader (a *startOver error).
func (f *FileSource) play(ctx context.Context) error {
	if f.once != nil {
		in := f.once
		f.once = nil // read once: a start over has nothing to read again
		f.stream++
		f.pump.stream = f.stream
		return f.decodeFrom(ctx, countingReader{in, f.track}, f.opts, nil, "")
	}
	file, err := os.Open(f.path)
	for f.Follow && f.restarts > 0 && errors.Is(err, os.ErrNotExist) {
		// Replaced by removing and writing anew: wait for the new file.
		f.track.update(func(st *Status) {
			st.State, st.Cause, st.Waiting = StateStreaming, "", "waiting for "+f.path+" to be written again"
		})
		select {
		case <-time.After(f.poll()):
		case <-ctx.Done():
			return ctx.Err()
		}
		file, err = os.Open(f.path)
	}
	if err != nil {
		f.track.setState(StateEnded, err.Error())
		return err
	}
	defer file.Close()
	opts := f.opts
	var in io.Reader = file
	var follow *followReader
	if st, err := file.Stat(); err == nil && st.Mode().IsRegular() {
		opts.Modified = st.ModTime()
		_, zipped, _, _ := decode.SniffStream(io.NewSectionReader(file, 0, st.Size()))
		switch {
		case f.Follow: // read through the follower, below; decode.Open refuses a zip (ErrZipGrowing)
		case zipped:
			f.track.addBytes(st.Size()) // read in place: count it whole
		default:
			opts.InputSize = st.Size()
			in = countingReader{file, f.track}
		}
	}
	f.stream++
	f.pump.stream = f.stream
	// Until its first event, a followed file may hold too little to tell
	// its format, or to read its header or (a snapshot) its whole
	// document: the reader waits for the writer, and says so.
	waiting := ""
	if f.Follow {
		opts.Growing = true
		waiting = "waiting for " + f.path + " to be written"
		follow = &followReader{f: file, path: f.path, ctx: ctx, poll: f.poll(), beforeWait: func() { f.pump.flush(ctx) }}
		in = countingReader{follow, f.track}
		f.track.update(func(st *Status) { st.State, st.Cause, st.Waiting, st.Streams = StateStreaming, "", waiting, f.stream })
	}
	return f.decodeFrom(ctx, in, opts, follow, waiting)
}

// decodeFrom decodes a pass of the input into batches; follow is the
// follower of a followed file, nil otherwise.
func (f *FileSource) decodeFrom(ctx context.Context, in io.Reader, opts decode.Options, follow *followReader, waiting string) error {
	dec, err := decode.Open(in, opts)
	if err != nil {
		return f.stopped(err, follow, waiting != "")
	}
	f.dec = dec
	still := false
	if d, ok := dec.(decode.Describer); ok {
		still = d.Still()
	}
	f.track.update(func(st *Status) {
		st.State, st.Cause, st.Waiting, st.Format, st.Negotiation, st.Streams, st.Still = StateStreaming, "", waiting, dec.Format(), OutcomeFile, f.stream, still
		st.Unfilled = nil
		if dec.Format() == decode.FormatRbkit {
			st.Unfilled = rbkitUnfilled // a recording of rbkit's says what its live view says
		}
	})
	pacer := newPacer(f.speed)
	f.skipNote = ""
	began := false // an event beyond the definitions has come
	lossy, _ := dec.(lossCounter)
	var lost int64
	rbkit, _ := dec.(rbkitRecording)
	// Played as fast as it reads, a binary trace is decoded straight into
	// the batches, as a live stream is: no copy of each event (of its
	// stack above all), which was a fifth of a replay's CPU time. Paced,
	// an event is looked at before it joins a batch: its time may mean a
	// wait, and the batch before it goes first.
	appender, _ := dec.(batchAppender)
	if f.speed > 0 {
		appender = nil
	}
	batch := f.pump.decodeBatch // made once: a method value in the loop would be allocated per event
	for {
		if lossy != nil && lossy.Lost() != lost {
			lost = lossy.Lost()
			f.track.update(func(st *Status) { st.Lost = lost })
		}
		if rbkit != nil {
			if hs, ok := rbkit.Handshake(); ok {
				// Who the process was, as the live header said it.
				f.track.update(func(st *Status) { st.Agent, st.Facts = rbkitProcess(hs) })
				rbkit = nil
			}
		}
		var ev decode.Event
		if appender != nil {
			err = appender.AppendNext(batch)
		} else {
			ev, err = dec.Next()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			var de *decode.Error
			if errors.As(err, &de) && !de.Fatal {
				f.track.decodeError(err)
				continue
			}
			return f.stopped(err, follow, waiting != "")
		}
		if waiting != "" {
			waiting = ""
			f.track.update(func(st *Status) { st.Waiting = "" })
		}
		f.pump.clock = dec.Clock()
		if appender != nil {
			if err := f.pump.added(ctx); err != nil {
				return nil
			}
			continue
		}
		// The definitions a trace begins with are not paced: a bundle's
		// stream gives first the process (started hours before, maybe)
		// and the threads that start during the minutes it holds, and
		// pacing them would wait those minutes before the first event.
		began = began || !isDefinition(ev)
		if t, ok := decode.Time(ev); ok && began {
			skips := pacer.skips
			wait := pacer.wait(dec.Clock(), t)
			if pacer.skips != skips {
				f.skipNote = pacer.skipNote()
				f.updateNotes()
			}
			if wait > 0 {
				if err := f.pump.flush(ctx); err != nil {
					return nil
				}
				select {
				case <-time.After(wait):
				case <-ctx.Done():
					return nil
				}
			}
		}
		if err := f.pump.add(ctx, ev); err != nil {
			return nil
		}
	}
	if lossy != nil {
		f.track.update(func(st *Status) { st.Lost = lossy.Lost() })
	}
	f.pump.flush(ctx)
	end := causeEndOfFile
	if still {
		end = causeStillEnd
	}
	if follow == nil {
		f.track.setState(StateEnded, end)
		return nil
	}
	f.track.setState(StateEnded, end+"; following the file for a new one")
	return follow.waitForChange()
}

// Why a file's play ended, when it was read to its end.
const (
	causeEndOfFile = "end of file"
	causeStillEnd  = "a still picture: the snapshot as it was taken"
)

func (f *FileSource) poll() time.Duration {
	if f.Poll <= 0 {
		return defaultPoll
	}
	return f.Poll
}

// stopped ends a pass on an error: what was decoded stays shown. A
// followed file is then watched for a new content, unless it changed
// already, or unless it turned out not to be a trace before its first
// event (early: it was waited for, being too short to tell): it is then
// refused, as a complete file would have been, and the pass counts as no
// stream received.
func (f *FileSource) stopped(err error, follow *followReader, early bool) error {
	var so *startOver
	if errors.As(err, &so) || errors.Is(err, context.Canceled) {
		f.pump.flush(context.Background())
		return err
	}
	f.pump.flush(context.Background())
	var de *decode.Error
	isDecode := errors.As(err, &de)
	if isDecode {
		f.track.decodeError(err)
	}
	if errors.Is(err, decode.ErrZipGrowing) {
		// No content to wait for: a zip is read from its end, written last.
		refused := fmt.Errorf("%s: %w", f.path, err)
		f.track.setState(StateEnded, refused.Error())
		return refused
	}
	if follow != nil && early && f.restarts == 0 && isDecode {
		refused := fmt.Errorf("%s: not a trace (%w)", f.path, err)
		f.track.update(func(st *Status) {
			st.State, st.Cause, st.Waiting, st.Streams = StateEnded, refused.Error(), "", f.stream-1
		})
		return refused
	}
	f.track.setState(StateEnded, err.Error())
	if follow != nil {
		return follow.waitForChange()
	}
	return fmt.Errorf("%s: %w", f.path, err)
}

// updateNotes takes what the decoder says about its data, and what
// following the file did, into the status.
func (f *FileSource) updateNotes() {
	var notes []string
	if f.restart != "" {
		notes = append(notes, f.restart)
	}
	var data []string
	if d, ok := f.dec.(decode.Describer); ok {
		data = d.Notes()
		notes = append(notes, data...)
	}
	if f.skipNote != "" {
		notes = append(notes, f.skipNote)
	}
	if f.Follow {
		notes = append(notes, "following the file (like tail -f)")
	}
	f.track.update(func(st *Status) { st.Notes, st.sourceNotes = notes, data })
}

// lossCounter is a decoder that counts frames its stream's sequence
// numbers say never arrived (rbkit's).
type lossCounter interface{ Lost() int64 }

// rbkitRecording is a decoder of a recording that starts with rbkit's
// handshake reply.
type rbkitRecording interface {
	Handshake() (decode.RbkitHandshake, bool)
}

// pacer maps trace time to wall time at a given speed.
type pacer struct {
	speed     float64
	first     decode.Ticks
	latest    decode.Ticks
	wallStart time.Time
	started   bool
	// skips counts the stretches passed over (nothing for longer than
	// pacedQuietLimit at the speed played, or a clock set back), skipped
	// their trace time.
	skips   int
	skipped time.Duration
}

// pacedQuietLimit is the longest a paced replay waits for its next event:
// a stretch of the recording with nothing in it for longer is passed over,
// as a player of terminal recordings cuts idle time, so that a recording
// idle for an hour (or whose clock jumps by years) goes on at once.
const pacedQuietLimit = 10 * time.Second

// pacedBackLimit is how far back a paced replay's clock may step and
// still be the same clock: events of a few threads come out of order by
// milliseconds; a clock set back by more would play unpaced until it
// caught up.
const pacedBackLimit = time.Second

func newPacer(speed float64) *pacer { return &pacer{speed: speed} }

// wait returns how long to wait before an event at t is due. Timestamps
// that step backwards by a little (they do, by a few milliseconds) never
// mean a wait; nor does a time of 0, which is a time the event did not
// carry. A stretch passed over, forwards (nothing for longer than
// pacedQuietLimit at the speed played) or backwards (a clock set back),
// starts the pacing again from the event after it.
func (p *pacer) wait(c decode.Clock, t decode.Ticks) time.Duration {
	if p.speed <= 0 || t == 0 {
		return 0
	}
	if !p.started {
		p.restart(t)
		return 0
	}
	limit := time.Duration(float64(pacedQuietLimit) * p.speed)
	if t <= p.latest {
		if back := c.Duration(p.latest - t); back > pacedBackLimit {
			p.skips++
			p.skipped += back
			p.restart(t)
		}
		return 0
	}
	gap := c.Duration(t - p.latest)
	if gap > limit {
		p.skips++
		p.skipped += gap
		p.restart(t)
		return 0
	}
	p.latest = t
	due := p.wallStart.Add(time.Duration(float64(c.Duration(t-p.first)) / p.speed))
	return time.Until(due)
}

// restart paces from the event at t, due now.
func (p *pacer) restart(t decode.Ticks) {
	p.started, p.first, p.latest, p.wallStart = true, t, t, time.Now()
}

// skipNote says what the pacing passed over, "" when nothing.
func (p *pacer) skipNote() string {
	if p.skips == 0 {
		return ""
	}
	stretches := "a stretch of the recording with nothing in it for longer than " + pacedQuietLimit.String() + ", or its clock set back"
	if p.skips > 1 {
		stretches = strconv.Itoa(p.skips) + " stretches of the recording with nothing in them for longer than " + pacedQuietLimit.String() + ", or its clock set back"
	}
	return fmt.Sprintf("paced: passed over %s (%s of trace time in all)", stretches, longSpan(p.skipped))
}

// longSpan renders a span that may be of years, rounded to what it
// shows: 42s, 12m00s, 3h00m, 20454d.
func longSpan(d time.Duration) string {
	switch {
	case d < time.Minute-time.Second/2:
		return fmt.Sprintf("%ds", int(d.Round(time.Second)/time.Second))
	case d < time.Hour-time.Second/2:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	case d < 100*time.Hour-time.Minute/2:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd", int(d.Round(24*time.Hour)/(24*time.Hour)))
}
