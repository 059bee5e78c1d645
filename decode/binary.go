package decode

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"time"
	"unsafe"
)

// Options tune a decoder. The zero value is ready to use.
type Options struct {
	// MaxMessageSize is the largest binary message or XML element accepted,
	// in bytes (a ProfilerJ snapshot counts as one element); 0 means
	// DefaultMaxMessageSize.
	MaxMessageSize int
	// MaxAttributes is the most attributes one XML element may have; an
	// element with more is skipped with an error. 0 means
	// DefaultMaxAttributes.
	MaxAttributes int
	// Modified is when the input was last written (a file's modification
	// time): the moment of a snapshot, which records none of its own.
	// Zero: the moment it is decoded.
	Modified time.Time
	// Growing says the input is a file still being written (followed):
	// its end is only where the writer has got to, so what may follow a
	// complete document (a ProfilerJ snapshot's </doc>) is not waited for.
	Growing bool
	// MaxString bounds every string of an event (names, stack frames) to
	// this many bytes, elided in the middle (BoundString); 0 means
	// DefaultMaxString, a negative value no bound (proftop decode, which
	// prints what the trace holds and keeps nothing).
	MaxString int
	// InputSize is how many bytes the input holds from where decoding
	// starts (a regular file's rest), 0 when unknown (a socket, a followed
	// file): a message declaring more than the maximum is then told apart
	// from one declaring more than the file holds, a damaged size.
	InputSize int64
}

// DefaultMaxMessageSize is the default limit on one message (16 MiB).
const DefaultMaxMessageSize = 16 << 20

// DefaultMaxAttributes is the default limit on one XML element's
// attributes: the trace format's elements have a few dozen at most.
const DefaultMaxAttributes = 1024

func (o Options) maxAttributes() int {
	if o.MaxAttributes <= 0 {
		return DefaultMaxAttributes
	}
	return o.MaxAttributes
}

func (o Options) maxSize() int {
	if o.MaxMessageSize <= 0 {
		return DefaultMaxMessageSize
	}
	return o.MaxMessageSize
}

// StreamHeader is the 12-byte header that starts a binary stream.
type StreamHeader struct {
	Major, Minor uint8
	Platform     uint8  // 0: 32-bit, 1: 64-bit; informational
	LittleEndian bool   // byte order of everything after the header
	DataOffset   uint32 // where the first message starts; 12 in v1.0
}

// Magic starts every binary stream.
const Magic = "0TBF"

// HeaderSize is the fixed size of the stream header.
const HeaderSize = 12

// messageHeaderSize is the id (2 bytes) and size (4 bytes) before every message.
const messageHeaderSize = 6

// The smallest encoding of one stack frame: an empty name (its NUL) and a line.
const minFrameSize = 1 + 8

// BinaryDecoder reads a binary (.trcbin) stream incrementally.
type BinaryDecoder struct {
	kinds   *eventTable // the event table, looked up once per message
	ordinal int64       // messages (elements) returned so far, bad ones included
	in      chunkReader
	opts    Options
	maxSize int // opts.maxSize(), asked once
	header  StreamHeader
	started bool  // the header and its extension are read
	gotHead bool  // the 12 header bytes are read
	extLeft int64 // bytes of the header extension still to skip
	little  bool
	native  bool // the stream's byte order is the machine's
	clock   Clock
	latest  Ticks // clock.latestTime(), the latest "time" an event may have
	intern  *interner
	stacks  *stackTable // nil: every frame is interned on its own
	// maxString bounds the strings of events (0: none); those of a
	// custom message's conversion are bounded once it is made.
	maxString int
	tc        *transcoder
	last      int64 // offset of the last event returned
	fatal     error // sticky: the framing is lost
	// into gives the batch AppendNext decodes into; placed says the
	// event just decoded went straight into it.
	into   func() *Batch
	placed bool

	events [numKinds]Event
	bases  [numKinds]unsafe.Pointer
}

// NewBinaryDecoder returns a decoder reading a binary stream from r, which
// must start with the stream header.
func NewBinaryDecoder(r io.Reader, opts Options) *BinaryDecoder {
	d := &BinaryDecoder{kinds: kindTable(), in: newChunkReader(r), opts: opts, intern: newInterner(), stacks: newStackTable(), maxString: opts.maxString(), maxSize: opts.maxSize(),
		latest: Clock{}.latestTime()}
	for k, sp := range d.kinds.byKind {
		d.events[k] = sp.fresh()
		d.bases[k] = sp.base(d.events[k])
	}
	return d
}

// Header returns the stream header; it is valid once Next has returned an event.
func (d *BinaryDecoder) Header() StreamHeader { return d.header }

// Clock converts this stream's ticks; it follows the frequency messages read so far.
func (d *BinaryDecoder) Clock() Clock { return d.clock }

// Offset is the stream offset at which the last returned event began.
func (d *BinaryDecoder) Offset() int64 { return d.last }

// InputOffset is the number of stream bytes consumed so far.
func (d *BinaryDecoder) InputOffset() int64 { return d.in.offset() }

// Format reports FormatBinary.
func (d *BinaryDecoder) Format() Format { return FormatBinary }

// Next returns the next event. It returns io.EOF at the end of the stream
// between messages, and an *Error for malformed input; after a non-fatal
// *Error the bad message has been skipped and Next may be called again.
// Any other error comes from the reader, and a later call resumes where the
// stream stopped. The event is valid until the next call (see Event).
func (d *BinaryDecoder) Next() (Event, error) {
	ev, err := d.next()
	if err == nil {
		d.ordinal++
		return ev, nil
	}
	numberError(err, &d.ordinal)
	return nil, err
}

// next decodes the next event; Next numbers them.
func (d *BinaryDecoder) next() (Event, error) {
	if d.fatal != nil {
		return nil, d.fatal
	}
	if !d.started {
		if err := d.readHeader(); err != nil {
			return nil, err
		}
	}
	start := d.in.offset()
	if err := d.in.fill(messageHeaderSize); err != nil {
		if err == io.EOF && d.in.buffered() == 0 {
			return nil, io.EOF
		}
		return nil, d.readErr(err, start, 0, "message header")
	}
	h := d.in.peek(messageHeaderSize)
	id, size := d.u16(h), d.u32(h[2:])
	if size < messageHeaderSize {
		return nil, d.fail(&Error{Err: ErrMessageSize, Offset: start, MessageID: id, Element: wireName(id),
			Field: "size", Detail: fmt.Sprintf("size %d", size)})
	}
	if uint64(size) > uint64(d.maxSize) {
		if left := d.opts.InputSize - start; d.opts.InputSize > 0 && int64(size) > left {
			// Not a message too large for the limit: a size no message has.
			return nil, d.fail(&Error{Err: ErrPastEnd, Offset: start, MessageID: id, Element: wireName(id), Field: "size",
				Detail: fmt.Sprintf("it declares %d bytes but only %d are left in the file: the file is damaged or not what it seems", size, max(left, 0))})
		}
		return nil, d.fail(&Error{Err: ErrTooLarge, Offset: start, MessageID: id, Element: wireName(id),
			Field: "size", Detail: fmt.Sprintf("size %d, maximum %d", size, d.maxSize)})
	}
	if err := d.in.fill(int(size)); err != nil {
		return nil, d.readErr(err, start, id, fmt.Sprintf("%d of %d bytes", d.in.buffered(), size))
	}
	body := d.in.peek(int(size))[messageHeaderSize:]
	d.in.consume(int(size))
	d.last = start

	sp := d.kinds.wire(id)
	if sp == nil {
		u := d.events[KindUnknown].(*Unknown)
		*u = Unknown{ID: id, Size: size}
		return u, nil
	}
	if d.into != nil && sp.inPlace && d.native && sp.flat.fits(body) && d.flatTimeFits(sp.flat, body) {
		if !sp.flat.stack {
			sp.flat.fill(d.into().place(sp), body)
			d.placed = true
			return nil, nil
		}
		if d.placeStack(sp, body) {
			d.placed = true
			return nil, nil
		}
	}
	if err := d.decodeBody(sp, d.bases[sp.kind], body, start); err != nil {
		return nil, err
	}
	ev := d.events[sp.kind]
	if err := d.applySystem(ev, start); err != nil {
		return nil, err
	}
	if c, ok := ev.(*Custom); ok {
		conv, cerr := fromCustom(c, d.clock, &d.events, &d.bases, d.intern)
		if cerr != nil {
			return nil, &Error{Err: cerr, Offset: start, MessageID: id, Element: sp.name, Field: "body"}
		}
		boundEvent(conv, d.maxString)
		ev = conv
	}
	if err := d.checkTime(ev, start, id); err != nil {
		return nil, err
	}
	return ev, nil
}

// flatTimeFits says whether the time of a message the flat layout reads
// (in the machine's byte order) is one an event may have; a message whose
// time is not takes the general path, which refuses it.
func (d *BinaryDecoder) flatTimeFits(fl *flatLayout, body []byte) bool {
	if fl.timeWire < 0 {
		return true
	}
	t := Ticks(binary.NativeEndian.Uint64(body[fl.timeWire:]))
	return t >= 0 && t <= d.latest
}

// checkTime refuses an event whose "time" is impossible (see
// Clock.timeProblem); the message (id, at start) is skipped, the stream
// goes on. The element named is the event's: a custom message's converted
// kind, whose time it was.
func (d *BinaryDecoder) checkTime(ev Event, start int64, id uint16) error {
	sp := d.kinds.byKind[ev.Kind()]
	if sp.time < 0 {
		return nil
	}
	t := *fieldAt[Ticks](sp.base(ev), sp.fields[sp.time].off)
	if t >= 0 && t <= d.latest {
		return nil
	}
	return &Error{Err: ErrValue, Offset: start, MessageID: id, Element: sp.name, Field: "time",
		Detail: d.clock.timeProblem(t, d.latest)}
}

// AppendNext decodes the next event and adds it to the batch that batch
// returns, as Next and then Add would, with the same errors (after which
// nothing was added). A message the flat layout reads (most of a trace) is
// decoded straight into the batch's storage: no copy from the decoder's
// own struct. The batch is asked for once the message has arrived: while
// reading waits for it, the reader may hand the batch it had on (a live
// client sends what it has before it waits for the network).
func (d *BinaryDecoder) AppendNext(batch func() *Batch) error {
	d.into, d.placed = batch, false
	ev, err := d.Next()
	d.into = nil
	if err != nil || d.placed {
		return err
	}
	batch().Add(ev)
	return nil
}

// readHeader reads and checks the stream header and skips its extension.
// A read error leaves it resumable: the header is consumed only once, and
// the extension is skipped as it arrives.
func (d *BinaryDecoder) readHeader() error {
	if !d.gotHead {
		if err := d.in.fill(HeaderSize); err != nil {
			if err == io.EOF {
				if d.in.buffered() == 0 {
					return io.EOF
				}
				return &Error{Err: ErrTruncated, Offset: int64(d.in.buffered()), Field: "stream header",
					Detail: fmt.Sprintf("%d of %d bytes", d.in.buffered(), HeaderSize), Fatal: true}
			}
			return err
		}
		h := d.in.peek(HeaderSize)
		if string(h[:4]) != Magic {
			return d.fail(&Error{Err: ErrBadMagic, Offset: 0, Field: "magic", Detail: fmt.Sprintf("got %q", h[:4])})
		}
		hd := StreamHeader{Major: h[4], Minor: h[5], Platform: h[6]}
		if hd.Major != 1 {
			return d.fail(&Error{Err: ErrVersion, Offset: 4, Field: "major version",
				Detail: fmt.Sprintf("version %d.%d, this reader knows 1.x", hd.Major, hd.Minor)})
		}
		switch h[7] {
		case 0:
		case 1:
			hd.LittleEndian = true
		default:
			return d.fail(&Error{Err: ErrByteOrder, Offset: 7, Field: "endianness", Detail: fmt.Sprintf("got %d", h[7])})
		}
		d.little = hd.LittleEndian
		d.native = d.little == hostLittleEndian
		hd.DataOffset = d.u32(h[8:])
		if hd.DataOffset < HeaderSize {
			return d.fail(&Error{Err: ErrDataOffset, Offset: 8, Field: "offset to data", Detail: fmt.Sprintf("got %d", hd.DataOffset)})
		}
		d.in.consume(HeaderSize)
		d.header, d.gotHead, d.extLeft = hd, true, int64(hd.DataOffset)-HeaderSize
	}
	for d.extLeft > 0 {
		if d.in.buffered() == 0 {
			if err := d.in.fill(1); err != nil {
				if err == io.EOF {
					return &Error{Err: ErrTruncated, Offset: d.in.offset(), Field: "header extension",
						Detail: fmt.Sprintf("offset to data is %d", d.header.DataOffset), Fatal: true}
				}
				return err
			}
		}
		n := min(int64(d.in.buffered()), d.extLeft)
		d.in.consume(int(n))
		d.extLeft -= n
	}
	d.started = true
	return nil
}

// readErr reports a failed read inside a message: a stream that ends there
// is truncated; other reader errors pass through so that the caller can retry.
func (d *BinaryDecoder) readErr(err error, start int64, id uint16, detail string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &Error{Err: ErrTruncated, Offset: start, MessageID: id, Element: wireName(id), Detail: detail, Fatal: true}
	}
	return err
}

func (d *BinaryDecoder) fail(e *Error) error {
	e.Fatal = true
	d.fatal = e
	return e
}

func wireName(id uint16) string {
	if sp := specByWire(id); sp != nil {
		return sp.name
	}
	return ""
}

func (d *BinaryDecoder) u16(b []byte) uint16 {
	if d.little {
		return binary.LittleEndian.Uint16(b)
	}
	return binary.BigEndian.Uint16(b)
}

func (d *BinaryDecoder) u32(b []byte) uint32 {
	if d.little {
		return binary.LittleEndian.Uint32(b)
	}
	return binary.BigEndian.Uint32(b)
}

func (d *BinaryDecoder) u64(b []byte) uint64 {
	if d.little {
		return binary.LittleEndian.Uint64(b)
	}
	return binary.BigEndian.Uint64(b)
}

// decodeBody fills the struct at p from a message body, attribute by
// attribute as the table says. Bytes after the last known attribute belong
// to a later minor version and are ignored; a body that ends just before
// an optional attribute comes from an earlier one, and the attributes it
// lacks take their defaults.
func (d *BinaryDecoder) decodeBody(sp *kindSpec, p unsafe.Pointer, body []byte, start int64) error {
	if sp.flat != nil && d.native && sp.flat.decode(p, body) {
		return nil
	}
	pos := 0
	for _, r := range sp.runs {
		fields := sp.fields[r.first:r.end]
		if fields[0].optional && pos == len(body) {
			resetFieldsFrom(sp, p, r.first)
			return nil
		}
		if r.size > 0 {
			if len(body)-pos < r.size {
				return d.shortRun(sp, fields, start, pos, len(body)-pos)
			}
			if d.native {
				for _, c := range r.copies {
					copy(unsafe.Slice((*byte)(unsafe.Add(p, c.off)), c.size), body[pos+c.wire:pos+c.wire+c.size])
				}
			} else {
				decodeFixed(p, fields, body[pos:pos+r.size], d.little)
			}
			pos += r.size
			continue
		}
		f := &fields[0]
		if f.typ == fieldStack {
			n, err := d.readStack(sp, fieldAt[Stack](p, f.off), body, pos, start)
			if err != nil {
				return err
			}
			pos = n
			continue
		}
		if pos < len(body) && body[pos] == 0 {
			// Most optional strings are empty: no scan, no lookup.
			*fieldAt[string](p, f.off) = ""
			pos++
			continue
		}
		s, n, err := d.readString(sp, f.name, body, pos, start)
		if err != nil {
			return err
		}
		*fieldAt[string](p, f.off) = s
		pos = n
	}
	return nil
}

// hostLittleEndian is the machine's byte order.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// decodeFixed stores a run of fixed-size attributes from b, which holds
// exactly their bytes. Values are read little-endian and swapped for a
// big-endian stream: one branch the processor predicts, one instruction.
func decodeFixed(p unsafe.Pointer, fields []field, b []byte, little bool) {
	for i := range fields {
		f := &fields[i]
		switch f.typ {
		case fieldLong, fieldTicks, fieldDouble:
			v := binary.LittleEndian.Uint64(b)
			if !little {
				v = bits.ReverseBytes64(v)
			}
			*fieldAt[uint64](p, f.off) = v
			b = b[8:]
		case fieldInt:
			v := binary.LittleEndian.Uint32(b)
			if !little {
				v = bits.ReverseBytes32(v)
			}
			*fieldAt[uint32](p, f.off) = v
			b = b[4:]
		case fieldByte:
			*fieldAt[byte](p, f.off) = b[0]
			b = b[1:]
		}
	}
}

// shortRun names the first attribute of a run that the left bytes of the
// message cannot hold.
func (d *BinaryDecoder) shortRun(sp *kindSpec, fields []field, start int64, pos, left int) error {
	for i := range fields {
		f := &fields[i]
		size := f.typ.wireSize()
		if left < size {
			detail := fmt.Sprintf("needs %d bytes", size)
			if size == 1 {
				detail = "needs 1 byte"
			}
			return d.fieldErr(sp, f, start, pos, ErrShort, detail)
		}
		pos += size
		left -= size
	}
	panic("decode: shortRun called for a run that fits")
}

// readString reads a NUL-terminated string at pos and returns it with the
// position after its NUL.
func (d *BinaryDecoder) readString(sp *kindSpec, name string, body []byte, pos int, start int64) (string, int, error) {
	n := bytes.IndexByte(body[pos:], 0)
	if n < 0 {
		return "", 0, d.errAt(sp, name, start, pos, ErrNoNUL, fmt.Sprintf("%d bytes left in the message, none is 0", len(body)-pos))
	}
	raw := body[pos : pos+n]
	if d.tc != nil && len(raw) > 0 {
		conv, err := d.tc.convert(raw)
		if err != nil {
			return "", 0, d.errAt(sp, name, start, pos, ErrCharset, err.Error())
		}
		raw = conv
	}
	if sp.kind == KindCustom {
		return string(raw), pos + n + 1, nil // a payload, not a name: not worth remembering (bounded once read)
	}
	if max := d.maxString; max > 0 && len(raw) > max {
		return boundBytes(raw, max), pos + n + 1, nil
	}
	return d.intern.bytes(raw), pos + n + 1, nil
}

// readStack reads stackDepth, then that many names and that many lines.
func (d *BinaryDecoder) readStack(sp *kindSpec, st *Stack, body []byte, pos int, start int64) (int, error) {
	if len(body)-pos < 4 {
		return 0, d.errAt(sp, attrStackDepth, start, pos, ErrShort, "needs 4 bytes")
	}
	depth := int32(d.u32(body[pos:]))
	pos += 4
	if depth < 0 || int(depth) > (len(body)-pos)/minFrameSize {
		return 0, d.errAt(sp, attrStackDepth, start, pos-4, ErrStackDepth,
			fmt.Sprintf("depth %d, %d bytes left hold at most %d frames", depth, len(body)-pos, (len(body)-pos)/minFrameSize))
	}
	if pos, ok := d.knownStack(st, body, pos, int(depth)); ok {
		return d.readLines(sp, st, body, pos, int(depth), start)
	}
	names := pos
	st.Methods = st.Methods[:0]
	for range depth {
		s, n, err := d.readString(sp, attrStackMethods, body, pos, start)
		if err != nil {
			return 0, err
		}
		st.Methods = append(st.Methods, s)
		pos = n
	}
	if d.stacks != nil && depth > 0 {
		if pos+8*int(depth) != len(body) {
			d.stacks.scan = true
		}
		d.stacks.add(body[names:pos], st.Methods)
	}
	return d.readLines(sp, st, body, pos, int(depth), start)
}

// knownStack fills st.Methods with the depth names at pos if this stack
// was seen before, and returns the position after them. The stack is the
// last attribute of every kind, so the names normally end where the
// message's last 8*depth bytes (the lines) begin: a stack seen before then
// costs one lookup of those bytes, with no scan for the NULs that end its
// names. A message with bytes after the stack (from a later minor version)
// makes the decoder scan for them instead.
func (d *BinaryDecoder) knownStack(st *Stack, body []byte, pos, depth int) (int, bool) {
	if d.stacks == nil || depth == 0 {
		return 0, false
	}
	end := len(body) - 8*depth
	if d.stacks.scan {
		end = pos
		for range depth {
			n := bytes.IndexByte(body[end:], 0)
			if n < 0 {
				return 0, false // the slow path names the error
			}
			end += n + 1
		}
	}
	if end <= pos {
		return 0, false
	}
	// A known key holds exactly len(names) names, each ending in its NUL:
	// equal bytes and equal depth decode to these names and end at end.
	names, ok := d.stacks.lookup(body[pos:end])
	if !ok || len(names) != depth {
		return 0, false
	}
	st.Methods = append(st.Methods[:0], names...)
	return end, true
}

// placeStack adds an event of a flat kind with a stack to the batch, in
// place, if its stack was seen before: the event's names are then the
// stack table's own slice (which no one modifies, and which an append
// copies, being full), not a copy of them. An empty stack (the end of a
// wait or a contention: JFR gives its stack with the begin) needs no
// table. It reports false, having added nothing, for any other stack: the
// general path reads it.
func (d *BinaryDecoder) placeStack(sp *kindSpec, body []byte) bool {
	if len(body)-sp.flat.size < 4 {
		return false
	}
	stack := body[sp.flat.size:] // depth, names and lines: the end of the message
	depth := int(int32(d.u32(stack)))
	var names []string
	switch {
	case depth == 0 && len(stack) == 4:
	case depth <= 0 || depth > (len(stack)-4)/minFrameSize || d.stacks == nil || d.stacks.scan:
		return false
	default:
		var ok bool
		names, ok = d.stacks.lookup(stack[4 : len(stack)-8*depth])
		if !ok || len(names) != depth {
			return false
		}
	}
	b := d.into()
	p := b.place(sp)
	sp.flat.fill(p, body)
	st := fieldAt[Stack](p, sp.flat.stackOff)
	st.Methods = names[:depth:depth] // nil for an empty stack
	st.Lines = b.appendLines(stack[len(stack)-8*depth:])
	return true
}

// readLines reads the depth lines of a stack at pos.
func (d *BinaryDecoder) readLines(sp *kindSpec, st *Stack, body []byte, pos, depth int, start int64) (int, error) {
	if len(body)-pos < 8*depth {
		return 0, d.errAt(sp, attrStackLines, start, pos, ErrShort, fmt.Sprintf("needs %d bytes for %d lines", 8*depth, depth))
	}
	st.Lines = st.Lines[:0]
	for range depth {
		st.Lines = append(st.Lines, int64(d.u64(body[pos:])))
		pos += 8
	}
	return pos, nil
}

func (d *BinaryDecoder) fieldErr(sp *kindSpec, f *field, start int64, pos int, kind error, detail string) error {
	return d.errAt(sp, f.name, start, pos, kind, detail)
}

func (d *BinaryDecoder) errAt(sp *kindSpec, name string, start int64, pos int, kind error, detail string) error {
	return &Error{Err: kind, Offset: start + messageHeaderSize + int64(pos), MessageID: sp.wireID,
		Element: sp.name, Field: name, Detail: detail}
}

// applySystem acts on the system messages: a new charset for the strings
// that follow, a new tick frequency.
func (d *BinaryDecoder) applySystem(ev Event, start int64) error {
	switch e := ev.(type) {
	case *Encoding:
		enc, err := lookupCharset(e.Encoding)
		if err != nil {
			return &Error{Err: ErrCharset, Offset: start, MessageID: 1, Element: "encoding", Field: "encoding", Detail: err.Error()}
		}
		d.tc = newTranscoder(enc, true)
		if d.stacks != nil {
			d.stacks.reset() // the same bytes now spell other names
		}
	case *Frequency:
		if problem := frequencyProblem(e.Frequency); problem != "" {
			return &Error{Err: ErrValue, Offset: start, MessageID: 2, Element: "frequency", Field: "frequency", Detail: problem}
		}
		d.clock = Clock{Frequency: e.Frequency}
		d.latest = d.clock.latestTime()
	}
	return nil
}
