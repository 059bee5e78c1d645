// Package endless makes readers that never run out, for benchmarks that
// decode a stream for as long as they measure: a stream's head once, then
// a block of whole messages again and again, so that the repeats read as
// one endless stream.
package endless

import "io"

type reader struct {
	head, block []byte
	pos         int
	inBlock     bool
}

// Reader delivers head, then block forever. block must not be empty.
func Reader(head, block []byte) io.Reader { return &reader{head: head, block: block} }

func (r *reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		src := r.head
		if r.inBlock {
			src = r.block
		}
		c := copy(p[n:], src[r.pos:])
		n += c
		r.pos += c
		if r.pos == len(src) {
			r.pos, r.inBlock = 0, true
		}
	}
	return n, nil
}
