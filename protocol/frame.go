package protocol

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
)

// Magic starts every frame: ASCII "PTAC" (ProfTop Agent Controller).
const Magic uint32 = 0x50544143

// HeaderSize is the size of a frame's envelope.
const HeaderSize = 12

// FlagData marks a data frame (trace bytes); without it a frame is a
// control frame (one command). The other 31 bits are reserved and zero.
const FlagData uint32 = 1

// DefaultMaxPayload is the largest payload either side accepts (16 MiB).
const DefaultMaxPayload = 16 << 20

// DefaultPort is the agent controller's TCP port (TPTP's).
const DefaultPort = 10002

// Frame is one frame as read. Payload is valid until the next read.
type Frame struct {
	Data    bool
	Payload []byte
}

// Error is a violation of the framing: what was received, where.
type Error struct {
	Offset int64  // connection offset of the frame's first byte
	What   string // what is wrong, with what was received
}

func (e *Error) Error() string {
	return fmt.Sprintf("protocol error at byte %d of the connection: %s", e.Offset, e.What)
}

// FrameReader reads frames from a connection. A read error (a deadline,
// say) may stop it anywhere inside a frame; the next call resumes there.
type FrameReader struct {
	r       io.Reader
	br      *bufio.Reader // the buffer of NewBufferedFrameReader; nil without one
	max     int
	hdr     [HeaderSize]byte
	hn      int // header bytes read so far
	flags   uint32
	size    int // payload size, once the header is complete
	payload []byte
	offset  int64
	err     error // a framing error: the connection is unusable
}

// NewFrameReader reads frames from r; maxPayload 0 means DefaultMaxPayload.
func NewFrameReader(r io.Reader, maxPayload int) *FrameReader {
	if maxPayload <= 0 {
		maxPayload = DefaultMaxPayload
	}
	return &FrameReader{r: r, max: maxPayload}
}

// NewBufferedFrameReader is NewFrameReader reading through a buffer of
// bufSize bytes. One read from the connection then brings in every frame
// that has arrived, instead of a header and a payload at a time; a frame
// that fits in the buffer is handed out in place, not copied; and Buffered
// tells whether the next frame can be had without waiting.
func NewBufferedFrameReader(r io.Reader, maxPayload, bufSize int) *FrameReader {
	fr := NewFrameReader(r, maxPayload)
	fr.br = bufio.NewReaderSize(r, bufSize)
	fr.r = fr.br
	return fr
}

// Offset is the number of bytes read from the connection so far; with a
// buffer, the number of bytes of the frames returned.
func (fr *FrameReader) Offset() int64 { return fr.offset }

// Buffered reports whether a whole frame is buffered, so that Next will not
// read from the connection. Without a buffer it is always false.
func (fr *FrameReader) Buffered() bool {
	if fr.br == nil || fr.hn != 0 || fr.err != nil {
		return false
	}
	n := fr.br.Buffered()
	if n < HeaderSize {
		return false
	}
	h, _ := fr.br.Peek(HeaderSize)
	return uint64(n) >= HeaderSize+uint64(binary.BigEndian.Uint32(h[8:]))
}

// BufferedBytes is the number of bytes read from the connection and not
// yet returned in a frame (0 without a buffer).
func (fr *FrameReader) BufferedBytes() int {
	if fr.br == nil {
		return 0
	}
	return fr.br.Buffered()
}

// Next reads one frame. At a clean end between frames it returns io.EOF; a
// connection that ends inside a frame gives io.ErrUnexpectedEOF; a framing
// violation gives an *Error, and every later call the same.
func (fr *FrameReader) Next() (Frame, error) {
	if fr.err != nil {
		return Frame{}, fr.err
	}
	if fr.br != nil && fr.hn == 0 {
		if f, ok, err := fr.inPlace(); ok || err != nil {
			return f, err
		}
	}
	for fr.hn < HeaderSize {
		n, err := fr.r.Read(fr.hdr[fr.hn:])
		fr.hn += n
		fr.offset += int64(n)
		if fr.hn == HeaderSize {
			break
		}
		if err != nil {
			if err == io.EOF && fr.hn > 0 {
				err = io.ErrUnexpectedEOF
			}
			return Frame{}, err
		}
		if n == 0 {
			return Frame{}, io.ErrNoProgress
		}
		if fr.hn == HeaderSize {
			break
		}
	}
	if fr.payload == nil || fr.size < 0 {
		if err := fr.checkHeader(); err != nil {
			fr.err = err
			return Frame{}, err
		}
	}
	for len(fr.payload) < fr.size {
		// Grow with the bytes that actually arrive, not with the declared size.
		if len(fr.payload) == cap(fr.payload) {
			grown := make([]byte, len(fr.payload), min(fr.size, max(2*cap(fr.payload), 64<<10)))
			copy(grown, fr.payload)
			fr.payload = grown
		}
		n, err := fr.r.Read(fr.payload[len(fr.payload):min(fr.size, cap(fr.payload))])
		fr.payload = fr.payload[:len(fr.payload)+n]
		fr.offset += int64(n)
		if len(fr.payload) == fr.size {
			break
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return Frame{}, err
		}
		if n == 0 {
			return Frame{}, io.ErrNoProgress
		}
	}
	f := Frame{Data: fr.flags&FlagData != 0, Payload: fr.payload[:fr.size]}
	fr.hn, fr.size, fr.payload = 0, -1, fr.payload[:0]
	return f, nil
}

// inPlace returns the next frame as a slice of the buffer, waiting for the
// whole frame. Nothing is consumed until it is complete, so a read error
// leaves the frame to a later call. ok is false, with no error, for a frame
// larger than the buffer: Next reads that one by copying.
func (fr *FrameReader) inPlace() (f Frame, ok bool, err error) {
	h, err := fr.br.Peek(HeaderSize)
	if err != nil {
		if err == io.EOF && len(h) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, false, err
	}
	flags, size, err := fr.parseHeader(h, fr.offset)
	if err != nil {
		fr.err = err
		return Frame{}, false, err
	}
	total := HeaderSize + size
	if total > fr.br.Size() {
		return Frame{}, false, nil
	}
	b, err := fr.br.Peek(total)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, false, err
	}
	fr.br.Discard(total)
	fr.offset += int64(total)
	return Frame{Data: flags&FlagData != 0, Payload: b[HeaderSize:total:total]}, true, nil
}

// parseHeader validates an envelope that starts at connection offset start.
func (fr *FrameReader) parseHeader(h []byte, start int64) (flags uint32, size int, err error) {
	magic := binary.BigEndian.Uint32(h[0:])
	flags = binary.BigEndian.Uint32(h[4:])
	n := binary.BigEndian.Uint32(h[8:])
	if magic != Magic {
		return 0, 0, &Error{Offset: start, What: fmt.Sprintf("bad frame magic %q (0x%08x), want \"PTAC\": is this an agent controller?", printable(h[:4]), magic)}
	}
	if flags&^FlagData != 0 {
		return 0, 0, &Error{Offset: start, What: fmt.Sprintf("reserved frame flag bits set: 0x%08x", flags)}
	}
	if uint64(n) > uint64(fr.max) {
		return 0, 0, &Error{Offset: start, What: fmt.Sprintf("frame payload of %d bytes exceeds the limit of %d", n, fr.max)}
	}
	return flags, int(n), nil
}

// checkHeader validates a complete envelope and prepares for its payload.
func (fr *FrameReader) checkHeader() error {
	flags, size, err := fr.parseHeader(fr.hdr[:], fr.offset-HeaderSize)
	if err != nil {
		return err
	}
	fr.flags, fr.size = flags, size
	if fr.payload == nil {
		fr.payload = make([]byte, 0, min(fr.size, 4096))
	}
	fr.payload = fr.payload[:0]
	return nil
}

func printable(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			c = '.'
		}
		out[i] = c
	}
	return string(out)
}

// FrameWriter writes frames; it is safe for concurrent use, so that control
// replies and data can share one connection.
type FrameWriter struct {
	mu  sync.Mutex
	w   io.Writer
	max int
	hdr [HeaderSize]byte
}

// NewFrameWriter writes frames to w; maxPayload 0 means DefaultMaxPayload.
func NewFrameWriter(w io.Writer, maxPayload int) *FrameWriter {
	if maxPayload <= 0 {
		maxPayload = DefaultMaxPayload
	}
	return &FrameWriter{w: w, max: maxPayload}
}

// MaxPayload is the largest payload one frame may carry.
func (fw *FrameWriter) MaxPayload() int { return fw.max }

// WriteFrame writes one frame. Payloads over the limit are refused.
func (fw *FrameWriter) WriteFrame(data bool, payload []byte) error {
	if len(payload) > fw.max {
		return fmt.Errorf("frame payload of %d bytes exceeds the limit of %d", len(payload), fw.max)
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	flags := uint32(0)
	if data {
		flags = FlagData
	}
	binary.BigEndian.PutUint32(fw.hdr[0:], Magic)
	binary.BigEndian.PutUint32(fw.hdr[4:], flags)
	binary.BigEndian.PutUint32(fw.hdr[8:], uint32(len(payload)))
	bufs := net.Buffers{fw.hdr[:], payload}
	_, err := bufs.WriteTo(fw.w)
	return err
}

// WriteData writes trace bytes as data frames, split at the payload limit.
func (fw *FrameWriter) WriteData(p []byte) error {
	for len(p) > 0 {
		n := min(len(p), fw.max)
		if err := fw.WriteFrame(true, p[:n]); err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}
