package decode

import (
	"io"
)

// chunkReader buffers an io.Reader for a decoder that needs whole units
// (a message, an XML tag) before it parses them. A read may end anywhere;
// whatever arrived stays buffered until the unit is complete, so a decoder
// that returns a read error (a timeout, say) resumes exactly where it was.
//
// The buffer only grows when it is full, doubling each time: a hostile
// length field cannot make it allocate more than about twice the bytes
// actually received.
type chunkReader struct {
	src  io.Reader
	buf  []byte
	r, w int   // unread bytes are buf[r:w]
	base int64 // stream offset of buf[0]
}

const minReadBuffer = 64 << 10

func newChunkReader(src io.Reader) chunkReader {
	return chunkReader{src: src}
}

// offset is the stream offset of the next unread byte.
func (c *chunkReader) offset() int64 { return c.base + int64(c.r) }

// buffered is the number of unread bytes in the buffer.
func (c *chunkReader) buffered() int { return c.w - c.r }

// peek returns the next n unread bytes without consuming them; fill(n) must
// have succeeded. The slice is valid until the next fill.
func (c *chunkReader) peek(n int) []byte { return c.buf[c.r : c.r+n] }

// unread returns every buffered unread byte.
func (c *chunkReader) unread() []byte { return c.buf[c.r:c.w] }

func (c *chunkReader) consume(n int) { c.r += n }

// maxZeroReads bounds how often a reader may return 0 bytes and no error
// before we call it broken (io.Reader allows it, but not forever).
const maxZeroReads = 100

// fill makes at least n unread bytes available. It returns the reader's
// error if the bytes cannot be had; bytes that did arrive stay buffered.
// Small enough to be inlined: most calls find the bytes buffered already.
func (c *chunkReader) fill(n int) error {
	if c.w-c.r >= n {
		return nil
	}
	return c.fillMore(n)
}

// fillMore reads until n unread bytes are buffered (see fill).
func (c *chunkReader) fillMore(n int) error {
	zero := 0
	for c.w-c.r < n {
		if err := c.readMore(); err != nil {
			if err == io.ErrNoProgress {
				zero++
				if zero < maxZeroReads {
					continue
				}
			}
			if c.w-c.r >= n {
				return nil
			}
			return err
		}
		zero = 0
	}
	return nil
}

// readMore reads at least one byte into the buffer, or returns an error
// (io.ErrNoProgress for a read of zero bytes without error).
func (c *chunkReader) readMore() error {
	if c.w == len(c.buf) {
		c.makeRoom()
	}
	m, err := c.src.Read(c.buf[c.w:])
	if m < 0 || m > len(c.buf)-c.w {
		return io.ErrShortBuffer
	}
	c.w += m
	if m > 0 {
		return nil
	}
	if err == nil {
		return io.ErrNoProgress
	}
	return err
}

// makeRoom frees space after w: first by moving unread bytes to the front,
// then, when the buffer is all unread bytes, by doubling it.
func (c *chunkReader) makeRoom() {
	if c.r > 0 && c.r >= (c.w-c.r) {
		n := copy(c.buf, c.buf[c.r:c.w])
		c.base += int64(c.r)
		c.r, c.w = 0, n
		return
	}
	size := 2 * len(c.buf)
	if size < minReadBuffer {
		size = minReadBuffer
	}
	nb := make([]byte, size)
	n := copy(nb, c.buf[c.r:c.w])
	c.base += int64(c.r)
	c.buf, c.r, c.w = nb, 0, n
}
