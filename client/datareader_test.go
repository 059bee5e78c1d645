package client

import (
	"bytes"
	"io"
	"testing"

	"github.com/proftop/proftop/protocol"
)

// chunks returns one chunk per read, as a connection returns what has
// arrived.
type chunks [][]byte

func (c *chunks) Read(p []byte) (int, error) {
	if len(*c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, (*c)[0])
	(*c)[0] = (*c)[0][n:]
	if len((*c)[0]) == 0 {
		*c = (*c)[1:]
	}
	return n, nil
}

// framed makes data frames of its arguments; "" stands for a control frame.
func framed(t *testing.T, frames ...string) []byte {
	var buf bytes.Buffer
	fw := protocol.NewFrameWriter(&buf, 0)
	for _, f := range frames {
		payload, data := []byte(f), true
		if f == "" {
			payload, _ = protocol.EncodeMessage("agent:1", protocol.ClientName, 0, &protocol.MonitoringStarted{})
			data = false
		}
		if err := fw.WriteFrame(data, payload); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// Frames that arrived together are read as one run of bytes, with no flush
// of the batch in between; the flush comes only when the reader would wait
// for the network.
func TestDataReaderFlushesOnlyBeforeWaiting(t *testing.T) {
	conn := chunks{framed(t, "one,", "two,", "", "three,"), framed(t, "four,")}
	flushes, controls := 0, 0
	var data []byte
	d := &dataReader{
		c:          &control{fr: protocol.NewBufferedFrameReader(&conn, 0, 4096)},
		beforeWait: func() { flushes++ },
		onData:     func(p []byte) error { data = append(data, p...); return nil },
		onControl:  func(protocol.Message) { controls++ },
	}
	p := make([]byte, 1024)
	n, err := d.Read(p)
	if err != nil || string(p[:n]) != "one,two,three," || flushes != 1 || controls != 1 {
		t.Fatalf("first read %q, %v, %d flushes, %d control frames", p[:n], err, flushes, controls)
	}
	n, err = d.Read(p)
	if err != nil || string(p[:n]) != "four," || flushes != 2 {
		t.Fatalf("second read %q, %v, %d flushes", p[:n], err, flushes)
	}
	if n, err = d.Read(p); n != 0 || err != io.EOF {
		t.Fatalf("at the end: %d, %v", n, err)
	}
	if string(data) != "one,two,three,four," {
		t.Fatalf("recorded %q", data)
	}
}

// A read smaller than a frame takes the frame in parts.
func TestDataReaderSplitsFramesForSmallReads(t *testing.T) {
	conn := chunks{framed(t, "abcdef", "gh")}
	d := &dataReader{
		c:          &control{fr: protocol.NewBufferedFrameReader(&conn, 0, 4096)},
		beforeWait: func() {},
		onData:     func([]byte) error { return nil },
	}
	var got []string
	p := make([]byte, 4)
	for {
		n, err := d.Read(p)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(p[:n]))
	}
	if want := []string{"abcd", "efgh"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("reads %q, want %q", got, want)
	}
}
