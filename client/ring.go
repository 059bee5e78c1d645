package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/klauspost/compress/s2"

	"github.com/proftop/proftop/decode"
)

// StreamRing keeps the latest minutes of a source's events, re-encoded as a
// binary trace (.trcbin), for a triage bundle: whatever the source spoke
// (XML, a zip), the bundle holds one format every reader takes. The events
// are kept compressed (S2, a block of each 256 KiB of trace), which makes
// the ring hold five to thirty times more minutes than its bytes would as
// they are. S2, not flate: on a real JVM's stream (H2, 350 MB in 90 s)
// flate at its fastest took a third of a replay's CPU time, S2 a tenth
// of that, for as small a result. It is bounded in (compressed) bytes: the
// oldest chunks go first. Definitions (the node,
// process and agent, classes, methods, thread starts, the tick frequency)
// are kept apart, from the stream's start, so that the events kept still
// name their threads and methods; they have a bound of their own, beyond
// which they are dropped and counted. Only the latest stream is kept: a
// new connection (a new JVM) starts the ring again.
type StreamRing struct {
	mu          sync.Mutex
	maxBytes    int64
	maxDefs     int64
	stream      int
	defs        bytes.Buffer
	defsDropped int64
	chunks      []ringChunk
	bytes       int64 // compressed bytes of the chunks
	raw         int64 // their bytes of trace
	failed      int64 // events that could not be encoded (unknown messages of an XML stream)
	defEnc      *decode.Encoder
	evEnc       *decode.Encoder
	evBuf       bytes.Buffer // the events of the open chunk
	openFrom    time.Time    // when its first batch's events happened (batchSpan)
	latest      time.Time    // when the latest batch's events happened
	zbuf        []byte
}

// ringChunkSize is how much trace a chunk holds before it is compressed.
const ringChunkSize = 256 << 10

// ringChunk is a run of batches' events, encoded and compressed.
type ringChunk struct {
	from time.Time // when its first batch's events happened
	raw  int       // bytes of trace
	z    []byte
}

// NewStreamRing returns a ring keeping maxBytes of events and maxDefs of
// definitions.
func NewStreamRing(maxBytes, maxDefs int64) *StreamRing {
	r := &StreamRing{maxBytes: maxBytes, maxDefs: maxDefs}
	r.restart(0)
	return r
}

// headerless drops the stream header an encoder writes first.
type headerless struct {
	w    io.Writer
	skip int
}

func (h *headerless) Write(p []byte) (int, error) {
	n := len(p)
	if h.skip > 0 {
		k := min(h.skip, len(p))
		h.skip -= k
		p = p[k:]
	}
	_, err := h.w.Write(p)
	return n, err
}

func (r *StreamRing) restart(stream int) {
	r.stream = stream
	r.defs.Reset()
	r.defsDropped, r.failed = 0, 0
	clear(r.chunks)
	r.chunks, r.bytes, r.raw = r.chunks[:0], 0, 0
	r.evBuf.Reset()
	r.defEnc = decode.NewEncoder(&headerless{w: &r.defs, skip: decode.HeaderSize}, decode.EncoderOptions{})
	r.evEnc = decode.NewEncoder(&headerless{w: &r.evBuf, skip: decode.HeaderSize}, decode.EncoderOptions{})
}

// isDefinition says an event names what later events refer to.
func isDefinition(ev decode.Event) bool {
	switch ev.(type) {
	case *decode.Frequency, *decode.Node, *decode.ProcessCreate, *decode.AgentCreate, *decode.TraceStart,
		*decode.ThreadStart, *decode.ClassDef, *decode.MethodDef:
		return true
	}
	return false
}

// Add encodes a batch into the ring.
func (r *StreamRing) Add(b *Batch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b.Stream != r.stream {
		r.restart(b.Stream)
	}
	// Measured before encoding: the encoder may write through to the chunk
	// before its flush.
	was := r.evBuf.Len()
	for _, ev := range b.Events() {
		switch {
		case ev.Kind() == decode.KindEncoding:
			// Strings are decoded: the ring is written in UTF-8, the default.
		case isDefinition(ev):
			if int64(r.defs.Len()) >= r.maxDefs {
				r.defsDropped++
				continue
			}
			if r.defEnc.Encode(ev) != nil {
				r.failed++
			}
		default:
			if r.evEnc.Encode(ev) != nil {
				r.failed++
			}
		}
	}
	r.defEnc.Flush()
	r.evEnc.Flush()
	if r.evBuf.Len() > was {
		// Dated by the events it added: definitions only date nothing.
		from, to := batchSpan(b, time.Now())
		if was == 0 {
			r.openFrom = from
		}
		if to.After(r.latest) {
			r.latest = to
		}
	}
	if r.evBuf.Len() >= ringChunkSize {
		r.seal()
	}
	for len(r.chunks) > 0 && r.bytes+int64(r.evBuf.Len()) > r.maxBytes {
		r.bytes -= int64(len(r.chunks[0].z))
		r.raw -= int64(r.chunks[0].raw)
		r.chunks[0] = ringChunk{}
		r.chunks = r.chunks[1:]
	}
}

// batchSpan is when a batch's events happened, by the trace's clock: a
// replayed file arrives in seconds when it took minutes to make, and the
// ring's span would be the replay's. Definitions do not count (a process
// is dated by its start, hours before), nor a time that is no date (a
// trace that counts from its own start): a batch with no event dated so
// is dated by its arrival.
func batchSpan(b *Batch, arrived time.Time) (from, to time.Time) {
	evs := b.Events()
	dated := func(ev decode.Event) (time.Time, bool) {
		if isDefinition(ev) {
			return time.Time{}, false
		}
		t, ok := decode.Time(ev)
		if !ok {
			return time.Time{}, false
		}
		at := b.Clock.Time(t)
		return at, at.Year() >= 2000
	}
	// The first and the last dated events, in either order: a batch's
	// events come nearly in their order, and looking at each would cost
	// every event of a replay a look.
	first := -1
	for i, ev := range evs {
		if at, ok := dated(ev); ok {
			from, to, first = at, at, i
			break
		}
	}
	if first < 0 {
		return arrived, arrived
	}
	for i := len(evs) - 1; i > first; i-- {
		if at, ok := dated(evs[i]); ok {
			if at.Before(from) {
				from = at
			} else {
				to = at
			}
			break
		}
	}
	return from, to
}

// seal compresses the open chunk.
func (r *StreamRing) seal() {
	r.zbuf = s2.Encode(r.zbuf[:cap(r.zbuf)], r.evBuf.Bytes())
	r.chunks = append(r.chunks, ringChunk{from: r.openFrom, raw: r.evBuf.Len(), z: bytes.Clone(r.zbuf)})
	r.bytes += int64(len(r.zbuf))
	r.raw += int64(r.evBuf.Len())
	r.evBuf.Reset()
}

// RingContents is what a ring holds at one moment, to be written out off
// its lock: the chunks never change once made.
type RingContents struct {
	defs        []byte
	chunks      []ringChunk
	open        []byte
	From, To    time.Time // when the oldest and the newest events kept happened (batchSpan)
	Bytes       int64     // of the trace written
	Compressed  int64     // what the events take in the ring
	DefsDropped int64     // definitions left out beyond their bound
	Failed      int64     // events that could not be encoded
}

// Contents takes what the ring holds now.
func (r *StreamRing) Contents() RingContents {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := RingContents{defs: bytes.Clone(r.defs.Bytes()), chunks: append([]ringChunk(nil), r.chunks...), open: bytes.Clone(r.evBuf.Bytes()),
		DefsDropped: r.defsDropped, Failed: r.failed, To: r.latest, Compressed: r.bytes + int64(r.evBuf.Len())}
	switch {
	case len(r.chunks) > 0:
		c.From = r.chunks[0].from
	case len(c.open) > 0:
		c.From = r.openFrom
	default:
		c.To = time.Time{}
	}
	c.Bytes = int64(decode.HeaderSize+len(c.defs)+len(c.open)) + r.raw
	return c
}

// WriteTo writes the trace: the stream header, the definitions, the events.
func (c RingContents) WriteTo(w io.Writer) (int64, error) {
	var total int64
	write := func(p []byte) error {
		n, err := w.Write(p)
		total += int64(n)
		return err
	}
	if err := write(decode.AppendStreamHeader(nil, false, nil)); err != nil {
		return total, err
	}
	if err := write(c.defs); err != nil {
		return total, err
	}
	// One buffer for every chunk: a ring holds hundreds of them.
	var buf []byte
	for _, ch := range c.chunks {
		var err error
		if buf, err = s2.Decode(buf[:cap(buf)], ch.z); err != nil {
			return total, fmt.Errorf("stream ring: a chunk of %d bytes does not decompress: %w", len(ch.z), err)
		}
		if err := write(buf); err != nil {
			return total, err
		}
	}
	return total, write(c.open)
}

// Recording returns a source that hands every batch its consumer recycles
// to the ring first: the encoding happens on the consumer's goroutine
// (the aggregator's), never on the decoder's.
func Recording(src Source, ring *StreamRing) Source {
	return &ringSource{Source: src, ring: ring}
}

type ringSource struct {
	Source
	ring *StreamRing
}

func (r *ringSource) Recycle(b *Batch) {
	r.ring.Add(b)
	r.Source.Recycle(b)
}

// Commands passes on the commands of a source that takes them (none else).
func (r *ringSource) Commands() []Command {
	if c, ok := r.Source.(Commander); ok {
		return c.Commands()
	}
	return nil
}

// Do runs a command of the source.
func (r *ringSource) Do(ctx context.Context, key string) (string, error) {
	if c, ok := r.Source.(Commander); ok {
		return c.Do(ctx, key)
	}
	return "", fmt.Errorf("this source takes no commands (key %q)", key)
}

// SelectAgent passes the choice of an agent on to a session.
func (r *ringSource) SelectAgent(spec string) {
	if c, ok := r.Source.(interface{ SelectAgent(string) }); ok {
		c.SelectAgent(spec)
	}
}
