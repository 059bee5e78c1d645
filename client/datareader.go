package client

import (
	"github.com/proftop/proftop/protocol"
)

// dataReader presents the data frames of a connection as one byte stream,
// which is what a decoder reads. Control frames that arrive meanwhile are
// handed to onControl; an error the profiler ends the connection with
// ends the stream.
type dataReader struct {
	c   *control
	cur []byte
	// beforeWait runs before a read that may block on the network, so that
	// decoded events do not sit in a half-full batch while the profiler is quiet.
	beforeWait func()
	onData     func(payload []byte) error // counts and records each frame
	onControl  func(protocol.Message)
}

func (d *dataReader) Read(p []byte) (int, error) {
	for len(d.cur) == 0 {
		if early, ok := d.c.takeEarly(); ok {
			d.cur = early
			if err := d.onData(d.cur); err != nil {
				return 0, err
			}
			continue
		}
		d.beforeWait()
		f, err := d.c.fr.Next()
		if err != nil {
			return 0, err
		}
		if !f.Data {
			m, err := protocol.ParseMessage(f.Payload)
			if err != nil {
				continue
			}
			if err := endedBy(m); err != nil {
				return 0, err
			}
			if d.onControl != nil {
				d.onControl(m)
			}
			continue
		}
		if err := d.onData(f.Payload); err != nil {
			return 0, err
		}
		d.cur = f.Payload
	}
	n := copy(p, d.cur)
	d.cur = d.cur[n:]
	return n, nil
}
