package client

import (
	"context"
	"io"
	"os"
	"time"
)

// followReader reads a file that is still being written, like tail -f:
// at its end it waits for more rather than ending, and it notices the file
// being truncated or replaced (a new recording under the same name), which
// it reports as a startOver error, so that the reading starts again from
// the beginning of the new content. Any decoder reads it: following is
// the same for every format.
type followReader struct {
	f    *os.File
	path string
	ctx  context.Context
	poll time.Duration
	read int64
	// beforeWait runs before each wait, so that what was decoded is shown
	// while the writer is quiet.
	beforeWait func()
}

// startOver says a followed file changed under the reader.
type startOver struct{ why string }

func (e *startOver) Error() string { return e.why }

// defaultPoll is how often a followed file is looked at when it has no
// more data.
const defaultPoll = 250 * time.Millisecond

func (r *followReader) Read(p []byte) (int, error) {
	for {
		n, err := r.f.Read(p)
		r.read += int64(n)
		if n > 0 {
			return n, nil
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
		if why := r.changed(); why != "" {
			return 0, &startOver{why}
		}
		r.beforeWait()
		if err := r.sleep(); err != nil {
			return 0, err
		}
	}
}

// changed says how the file changed under the reader: truncated below what
// was read, or replaced by another file under its name; "" if neither.
// A name that is briefly gone (a writer replacing the file) is waited for.
func (r *followReader) changed() string {
	st, err := r.f.Stat()
	if err == nil && st.Size() < r.read {
		return "the file was truncated"
	}
	named, err := os.Stat(r.path)
	if err != nil || st == nil {
		return ""
	}
	if !os.SameFile(st, named) {
		return "the file was replaced"
	}
	return ""
}

// waitForChange waits, once the data has ended (the format's end, or an
// error that stops the decoding), until the file is truncated or replaced.
func (r *followReader) waitForChange() error {
	for {
		if why := r.changed(); why != "" {
			return &startOver{why}
		}
		if err := r.sleep(); err != nil {
			return err
		}
	}
}

func (r *followReader) sleep() error {
	t := time.NewTimer(r.poll)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-r.ctx.Done():
		return r.ctx.Err()
	}
}
