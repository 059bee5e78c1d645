package decode

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"unsafe"
)

// EncoderOptions choose the shape of a binary stream.
type EncoderOptions struct {
	BigEndian bool // the default is little-endian
	// HeaderExtension is written between the 12-byte header and the first
	// message (a v1.0 reader skips it); normally empty.
	HeaderExtension []byte
}

// Encoder writes events as a binary (.trcbin) stream. It buffers; call
// Flush to push what was encoded to the writer. It does not allocate per
// event once its buffer has grown.
type Encoder struct {
	w       io.Writer
	opts    EncoderOptions
	buf     []byte
	started bool
	tc      *transcoder
	clock   Clock // for the times of custom bodies in proftop's convention
	err     error
}

// flushThreshold is how much the encoder buffers before writing on its own.
const flushThreshold = 64 << 10

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer, opts EncoderOptions) *Encoder {
	return &Encoder{w: w, opts: opts, buf: make([]byte, 0, 4096)}
}

// AppendStreamHeader appends the 12-byte stream header (and an extension).
func AppendStreamHeader(dst []byte, bigEndian bool, extension []byte) []byte {
	order := byte(1)
	if bigEndian {
		order = 0
	}
	dst = append(dst, Magic...)
	dst = append(dst, 1, 0, 1, order)
	dst = putU32(dst, !bigEndian, uint32(HeaderSize+len(extension)))
	return append(dst, extension...)
}

// Encode appends ev to the stream, writing the stream header first.
func (e *Encoder) Encode(ev Event) error {
	if e.err != nil {
		return e.err
	}
	if !e.started {
		e.buf = AppendStreamHeader(e.buf, e.opts.BigEndian, e.opts.HeaderExtension)
		e.started = true
	}
	buf, err := e.appendMessage(e.buf, ev)
	if err != nil {
		return err
	}
	e.buf = buf
	if f, ok := ev.(*Frequency); ok && f.Frequency > 0 {
		e.clock = Clock{Frequency: f.Frequency}
	}
	if enc, ok := ev.(*Encoding); ok {
		cs, err := lookupCharset(enc.Encoding)
		if err != nil {
			return fmt.Errorf("encode: %w: %v", ErrCharset, err)
		}
		e.tc = newTranscoder(cs, false)
	}
	if len(e.buf) >= flushThreshold {
		return e.Flush()
	}
	return nil
}

// Flush writes everything encoded so far.
func (e *Encoder) Flush() error {
	if e.err != nil {
		return e.err
	}
	if !e.started {
		e.buf = AppendStreamHeader(e.buf, e.opts.BigEndian, e.opts.HeaderExtension)
		e.started = true
	}
	if len(e.buf) == 0 {
		return nil
	}
	_, err := e.w.Write(e.buf)
	e.buf = e.buf[:0]
	if err != nil {
		e.err = err
	}
	return err
}

// Buffered is the number of encoded bytes not yet written.
func (e *Encoder) Buffered() int { return len(e.buf) }

func (e *Encoder) appendMessage(dst []byte, ev Event) ([]byte, error) {
	sp := specOf(ev.Kind())
	little := !e.opts.BigEndian
	start := len(dst)
	if u, ok := ev.(*Unknown); ok {
		// Only its id and size are known: the body is written as zeros.
		if u.Element != "" {
			return dst, fmt.Errorf("encode: XML element <%s>: %w", u.Element, ErrNoWireForm)
		}
		if u.Size < messageHeaderSize {
			return dst, fmt.Errorf("encode: unknown message %d with size %d", u.ID, u.Size)
		}
		dst = putU16(dst, little, u.ID)
		dst = putU32(dst, little, u.Size)
		return append(dst, make([]byte, u.Size-messageHeaderSize)...), nil
	}
	if sp.custom {
		c, err := ConventionBody(ev, e.clock)
		if err != nil {
			return dst, err
		}
		return e.appendMessage(dst, c)
	}
	if sp.wireID == 0 {
		return dst, fmt.Errorf("encode: %s: %w", sp.name, ErrNoWireForm)
	}
	dst = putU16(dst, little, sp.wireID)
	dst = append(dst, 0, 0, 0, 0) // size, patched below
	p := sp.base(ev)
	// Optional attributes at the end at their default are left out: the
	// message is then exactly what a writer that predates them sends.
	n := len(sp.fields)
	for n > 0 && sp.fields[n-1].optional && isDefault(&sp.fields[n-1], p) {
		n--
	}
	for i := range sp.fields[:n] {
		f := &sp.fields[i]
		var err error
		switch f.typ {
		case fieldLong, fieldTicks, fieldDouble:
			dst = putU64(dst, little, *fieldAt[uint64](p, f.off))
		case fieldInt:
			dst = putU32(dst, little, *fieldAt[uint32](p, f.off))
		case fieldByte:
			dst = append(dst, *fieldAt[byte](p, f.off))
		case fieldString:
			dst, err = e.appendString(dst, *fieldAt[string](p, f.off))
		case fieldStack:
			dst, err = e.appendStack(dst, little, fieldAt[Stack](p, f.off))
		}
		if err != nil {
			return dst[:start], fmt.Errorf("encode: %s: field %s: %w", sp.name, f.name, err)
		}
	}
	size := len(dst) - start
	if size > math.MaxUint32 {
		return dst[:start], fmt.Errorf("encode: %s: message of %d bytes", sp.name, size)
	}
	if little {
		binary.LittleEndian.PutUint32(dst[start+2:], uint32(size))
	} else {
		binary.BigEndian.PutUint32(dst[start+2:], uint32(size))
	}
	return dst, nil
}

func (e *Encoder) appendString(dst []byte, s string) ([]byte, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return dst, fmt.Errorf("string %s holds a NUL byte", quoteDetail(s))
	}
	if e.tc != nil && s != "" {
		b, err := e.tc.convert(unsafe.Slice(unsafe.StringData(s), len(s)))
		if err != nil {
			return dst, fmt.Errorf("%w: %s", ErrCharset, err)
		}
		dst = append(dst, b...)
		return append(dst, 0), nil
	}
	dst = append(dst, s...)
	return append(dst, 0), nil
}

func (e *Encoder) appendStack(dst []byte, little bool, st *Stack) ([]byte, error) {
	if len(st.Methods) != len(st.Lines) {
		return dst, fmt.Errorf("stack has %d methods but %d lines", len(st.Methods), len(st.Lines))
	}
	if len(st.Methods) > math.MaxInt32 {
		return dst, fmt.Errorf("stack depth %d", len(st.Methods))
	}
	dst = putU32(dst, little, uint32(len(st.Methods)))
	for _, m := range st.Methods {
		var err error
		if dst, err = e.appendString(dst, m); err != nil {
			return dst, err
		}
	}
	for _, l := range st.Lines {
		dst = putU64(dst, little, uint64(l))
	}
	return dst, nil
}

func putU16(dst []byte, little bool, v uint16) []byte {
	if little {
		return binary.LittleEndian.AppendUint16(dst, v)
	}
	return binary.BigEndian.AppendUint16(dst, v)
}

func putU32(dst []byte, little bool, v uint32) []byte {
	if little {
		return binary.LittleEndian.AppendUint32(dst, v)
	}
	return binary.BigEndian.AppendUint32(dst, v)
}

func putU64(dst []byte, little bool, v uint64) []byte {
	if little {
		return binary.LittleEndian.AppendUint64(dst, v)
	}
	return binary.BigEndian.AppendUint64(dst, v)
}
