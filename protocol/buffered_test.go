package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"testing"
	"testing/iotest"
)

// frames is what a reader makes of a connection: each frame or error, in
// order, until an error that ends it. A timeout is retried, as a caller
// with a deadline does.
func frames(fr *FrameReader) []string {
	var out []string
	for range 10000 {
		f, err := fr.Next()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			continue
		}
		if err != nil {
			return append(out, fmt.Sprintf("error %v", err))
		}
		out = append(out, fmt.Sprintf("data=%v %q", f.Data, f.Payload))
	}
	return append(out, "no end")
}

// timeouts fails every other read with a deadline error, as a connection
// with a read deadline does when the bytes are slow to come.
type timeouts struct {
	r io.Reader
	n int
}

func (t *timeouts) Read(p []byte) (int, error) {
	t.n++
	if t.n%2 == 1 {
		return 0, os.ErrDeadlineExceeded
	}
	return t.r.Read(p)
}

func frameStream(t testing.TB) []byte {
	var buf bytes.Buffer
	fw := NewFrameWriter(&buf, 1000)
	fw.WriteFrame(false, []byte("<Cmd/>"))
	fw.WriteData(bytes.Repeat([]byte("abcdefgh"), 100)) // larger than the small buffers below
	for i := range 20 {
		fw.WriteFrame(true, fmt.Appendf(nil, "frame %d", i))
	}
	fw.WriteFrame(true, nil)
	return buf.Bytes()
}

// A buffered reader reads the frames an unbuffered one does, whether they
// fit in its buffer (handed out in place) or not (copied), whatever the
// reads return, and resumes after a timeout anywhere.
func TestBufferedFrameReaderReadsTheSameFrames(t *testing.T) {
	data := frameStream(t)
	want := frames(NewFrameReader(bytes.NewReader(data), 1000))
	if len(want) != 24 {
		t.Fatalf("%d frames: %v", len(want), want)
	}
	for _, size := range []int{16, 100, 1 << 10, 256 << 10} {
		for name, r := range map[string]func() io.Reader{
			"whole":     func() io.Reader { return bytes.NewReader(data) },
			"one byte":  func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
			"timeouts":  func() io.Reader { return &timeouts{r: iotest.HalfReader(bytes.NewReader(data))} },
			"truncated": func() io.Reader { return bytes.NewReader(data[:len(data)-3]) },
		} {
			got := frames(NewBufferedFrameReader(r(), 1000, size))
			w := want
			if name == "truncated" {
				w = frames(NewFrameReader(bytes.NewReader(data[:len(data)-3]), 1000))
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("buffer %d, %s reads:\n got %v\nwant %v", size, name, got, w)
			}
		}
	}
}

// Buffered says whether the next frame is all there: a reader that would
// have to wait for the connection says no.
func TestBufferedSaysWhetherAFrameIsThere(t *testing.T) {
	var buf bytes.Buffer
	fw := NewFrameWriter(&buf, 0)
	fw.WriteFrame(true, []byte("one"))
	fw.WriteFrame(true, []byte("two"))
	data := buf.Bytes()
	cut := len(data) - 1 // the second frame lacks its last byte
	r := &stepReader{parts: [][]byte{data[:cut], data[cut:]}}
	fr := NewBufferedFrameReader(r, 0, 4096)
	if fr.Buffered() {
		t.Fatal("buffered before anything was read")
	}
	if f, err := fr.Next(); err != nil || string(f.Payload) != "one" {
		t.Fatalf("%q %v", f.Payload, err)
	}
	if fr.Buffered() {
		t.Fatal("a frame missing its last byte counts as buffered")
	}
	if f, err := fr.Next(); err != nil || string(f.Payload) != "two" {
		t.Fatalf("%q %v", f.Payload, err)
	}
	if NewFrameReader(bytes.NewReader(data), 0).Buffered() {
		t.Fatal("an unbuffered reader says a frame is buffered")
	}
	r = &stepReader{parts: [][]byte{data}}
	fr = NewBufferedFrameReader(r, 0, 4096)
	fr.Next()
	if !fr.Buffered() {
		t.Fatal("the second frame came with the first and is not buffered")
	}
}

// stepReader returns its parts one read at a time.
type stepReader struct{ parts [][]byte }

func (s *stepReader) Read(p []byte) (int, error) {
	if len(s.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.parts[0])
	s.parts[0] = s.parts[0][n:]
	if len(s.parts[0]) == 0 {
		s.parts = s.parts[1:]
	}
	return n, nil
}
