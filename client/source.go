package client

import (
	"context"

	"github.com/proftop/proftop/decode"
)

// Source is where events come from: a live session or a recorded file.
type Source interface {
	// Run produces batches until ctx ends or the source is exhausted. A
	// live session reconnects on its own and only returns when ctx ends
	// (or when reconnecting is switched off).
	Run(ctx context.Context) error
	// Batches delivers the decoded events. It is closed when Run returns.
	Batches() <-chan *Batch
	// Recycle hands a consumed batch back for reuse.
	Recycle(*Batch)
	// Status describes the source now.
	Status() Status
}

// Batch is a run of consecutive events from one stream.
type Batch struct {
	decode.Batch
	// Stream counts the streams of the source: it increases with every
	// connection, so that a consumer can tell a new JVM from the old one.
	Stream int
	// Clock converts the stream's ticks, as of the end of the batch.
	Clock decode.Clock
	// Restart says the source started over: what it delivered before is
	// void (a followed file was truncated or replaced).
	Restart bool
}

// batchSize is how many events a batch holds at most, unless the source
// says otherwise (Config.BatchEvents). Batches also leave early whenever
// the decoder would wait for the network, so that a slow stream is shown
// at once.
const batchSize = 4096

// pump fills batches and sends them to the consumer.
type pump struct {
	out    chan *Batch
	free   freeBatches
	cur    *Batch
	size   int // events a batch holds at most
	stream int
	clock  decode.Clock
	track  *tracker
	events int64 // events added since the last flush
	// restart marks the next batch sent as the start of a new picture.
	restart bool
	// beforeSend, when set, runs before a batch is sent (to refresh the
	// status the batch's events go with).
	beforeSend func()
	// consume, when set, takes each batch on the producing goroutine
	// instead of the channel (FileSource.Consume).
	consume func(*Batch)
}

func newPump(track *tracker) *pump {
	return &pump{out: make(chan *Batch, 4), size: batchSize, track: track}
}

func (p *pump) batch() *Batch {
	if p.cur == nil {
		if p.cur = p.free.take(); p.cur == nil {
			p.cur = &Batch{}
		}
		p.cur.Stream, p.cur.Restart = p.stream, p.restart
	}
	return p.cur
}

// add copies one event into the current batch and sends the batch when full.
func (p *pump) add(ctx context.Context, ev decode.Event) error {
	p.batch().Add(ev)
	return p.added(ctx)
}

// added counts an event put into the current batch (by add, or by a
// decoder that writes into the batch itself) and sends the batch when full.
func (p *pump) added(ctx context.Context) error {
	p.events++
	if p.cur.Len() >= p.size {
		return p.flush(ctx)
	}
	return nil
}

// decodeBatch is the batch a decoder adds its next event to (see
// decode.BinaryDecoder.AppendNext).
func (p *pump) decodeBatch() *decode.Batch { return &p.batch().Batch }

// flush sends the current batch, if it holds anything. It waits for the
// consumer (backpressure reaches the profiler through TCP) unless ctx ends.
func (p *pump) flush(ctx context.Context) error {
	if p.cur == nil || p.cur.Len() == 0 {
		return nil
	}
	p.cur.Clock = p.clock
	if p.beforeSend != nil {
		p.beforeSend()
	}
	p.track.addEvents(p.events)
	p.events = 0
	return p.send(ctx)
}

// send hands the current batch over: to consume, which has done with it
// on return, or to the consumer on the other end of out.
func (p *pump) send(ctx context.Context) error {
	if p.consume != nil {
		if err := ctx.Err(); err != nil {
			return err // interrupted, or the snapshots asked for printed: read no further
		}
		p.consume(p.cur)
		p.recycle(p.cur) // the next batch: the same memory, still in the cache
		p.cur, p.restart = nil, false
		return nil
	}
	select {
	case p.out <- p.cur:
		p.cur, p.restart = nil, false
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pump) recycle(b *Batch) {
	b.Reset()
	p.free.put(b)
}

// startOver sends, at once, an empty batch that starts a new picture.
func (p *pump) startOver(ctx context.Context) error {
	p.restart = true
	if err := p.flush(ctx); err != nil {
		return err
	}
	if !p.restart {
		return nil // a batch of events carried it
	}
	p.batch().Clock = p.clock
	return p.send(ctx)
}
