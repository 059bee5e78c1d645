package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/proftop/proftop/decode"
)

// FileSource plays a recorded trace (.trcbin, .trcxml, zipped .trcxml)
// through the same path as a live stream: decoded off the caller's
// goroutine and handed over in batches.
type FileSource struct {
	path  string
	speed float64
	track *tracker
	pump  *pump
	opts  decode.Options
}

// NewFileSource plays path. speed 0 plays as fast as possible; speed N
// paces events by their timestamps at N times real time.
func NewFileSource(path string, speed float64, opts decode.Options) *FileSource {
	t := newTracker(path)
	return &FileSource{path: path, speed: speed, track: t, pump: newPump(t), opts: opts}
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

// Run plays the file to its end (or until ctx ends).
func (f *FileSource) Run(ctx context.Context) error {
	defer close(f.pump.out)
	file, err := os.Open(f.path)
	if err != nil {
		f.track.setState(StateEnded, err.Error())
		return err
	}
	defer file.Close()
	var in io.Reader = file
	if st, err := file.Stat(); err == nil && st.Mode().IsRegular() {
		// A zip is read in place and counts its own bytes below.
		if _, zipped, _, _ := decode.SniffStream(io.NewSectionReader(file, 0, st.Size())); !zipped {
			in = countingReader{file, f.track}
		} else {
			f.track.addBytes(st.Size())
		}
	}
	dec, err := decode.Open(in, f.opts)
	if err != nil {
		f.track.setState(StateEnded, err.Error())
		return fmt.Errorf("%s: %w", f.path, err)
	}
	f.track.update(func(st *Status) {
		st.State, st.Format, st.Negotiation, st.Streams = StateStreaming, dec.Format(), OutcomeFile, 1
	})
	f.pump.stream = 1
	pacer := newPacer(f.speed)
	lossy, _ := dec.(lossCounter)
	var lost int64
	for {
		if lossy != nil && lossy.Lost() != lost {
			lost = lossy.Lost()
			f.track.update(func(st *Status) { st.Lost = lost })
		}
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			f.track.decodeError(err)
			var de *decode.Error
			if errors.As(err, &de) && !de.Fatal {
				continue
			}
			f.pump.flush(ctx)
			f.track.setState(StateEnded, err.Error())
			return fmt.Errorf("%s: %w", f.path, err)
		}
		f.pump.clock = dec.Clock()
		if t, ok := decode.Time(ev); ok {
			if wait := pacer.wait(dec.Clock(), t); wait > 0 {
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
	f.track.setState(StateEnded, "end of file")
	return nil
}

// lossCounter is a decoder that counts frames its stream's sequence
// numbers say never arrived (rbkit's).
type lossCounter interface{ Lost() int64 }

// pacer maps trace time to wall time at a given speed.
type pacer struct {
	speed     float64
	first     decode.Ticks
	latest    decode.Ticks
	wallStart time.Time
	started   bool
}

func newPacer(speed float64) *pacer { return &pacer{speed: speed} }

// wait returns how long to wait before an event at t is due. Timestamps
// that step backwards (they do, by a few milliseconds) never mean a wait.
func (p *pacer) wait(c decode.Clock, t decode.Ticks) time.Duration {
	if p.speed <= 0 {
		return 0
	}
	if !p.started {
		p.started, p.first, p.latest, p.wallStart = true, t, t, time.Now()
		return 0
	}
	if t <= p.latest {
		return 0
	}
	p.latest = t
	due := p.wallStart.Add(time.Duration(float64(c.Duration(t-p.first)) / p.speed))
	return time.Until(due)
}
