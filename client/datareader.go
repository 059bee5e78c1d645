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
	cur []byte // the rest of the current data frame
	err error  // met after bytes were copied; returned by the next Read
	// beforeWait runs before a read that may block on the network, so that
	// decoded events do not sit in a half-full batch while the profiler is
	// quiet. It runs only when less than a whole frame is buffered: while
	// frames are waiting, batches keep filling.
	beforeWait func()
	onData     func(payload []byte) error // counts and records each frame
	onControl  func(protocol.Message)
	// lowWater, when set, waits for the network (see lowWater).
	lowWater *lowWater
}

// Read copies the current data frame into p, and then as many of the
// frames already buffered as fit: it waits for the network only when it
// has nothing to return.
func (d *dataReader) Read(p []byte) (int, error) {
	if d.err != nil {
		err := d.err
		d.err = nil
		return 0, err
	}
	n := 0
	for n < len(p) {
		if len(d.cur) == 0 {
			got, err := d.next(n == 0)
			if err != nil {
				if n == 0 {
					return 0, err
				}
				d.err = err
				break
			}
			if !got {
				break
			}
			continue
		}
		c := copy(p[n:], d.cur)
		d.cur = d.cur[c:]
		n += c
	}
	return n, nil
}

// next makes the next data frame current. With mayWait false it returns
// false instead of waiting for a frame that is not buffered yet.
func (d *dataReader) next(mayWait bool) (bool, error) {
	for {
		if early, ok := d.c.takeEarly(); ok {
			d.cur = early
			return true, d.onData(d.cur)
		}
		var f protocol.Frame
		var err error
		if d.c.fr.Buffered() {
			f, err = d.c.fr.Next()
		} else {
			if !mayWait {
				return false, nil
			}
			d.beforeWait()
			if d.lowWater != nil {
				f, err = d.lowWater.next(d.c)
			} else {
				f, err = d.c.fr.Next()
			}
		}
		if err != nil {
			return false, err
		}
		if !f.Data {
			m, err := protocol.ParseMessage(f.Payload)
			if err != nil {
				continue
			}
			if err := endedBy(m); err != nil {
				return false, err
			}
			if d.onControl != nil {
				d.onControl(m)
			}
			continue
		}
		d.cur = f.Payload
		return true, d.onData(f.Payload)
	}
}
