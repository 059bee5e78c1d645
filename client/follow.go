package client

import (
	"bytes"
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
	// head is the file's first bytes as read (up to headSize): a file
	// rewritten in place, as long as before or longer (cat new > file,
	// the truncation unseen between two looks), has other first bytes.
	head    []byte
	scratch []byte
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

// headSize is how much of the file's start is kept to tell a rewrite from
// an append: more than a trace's header and first definitions, which two
// recordings may share.
const headSize = 4096

func (r *followReader) Read(p []byte) (int, error) {
	waited := false
	for {
		n, err := r.f.Read(p)
		if n > 0 && waited {
			// Written while the reader waited, perhaps as another content:
			// looked at before it is handed on, not after it was decoded
			// as the old one's.
			if why := r.changed(); why != "" {
				return 0, &startOver{why}
			}
		}
		if n > 0 {
			if keep := headSize - len(r.head); keep > 0 && r.read == int64(len(r.head)) {
				r.head = append(r.head, p[:min(n, keep)]...)
			}
			r.read += int64(n)
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
		waited = true
	}
}

// changed says how the file changed under the reader: truncated below what
// was read, rewritten in place (its first bytes are others), or replaced
// by another file under its name; "" if none. A name that is briefly gone
// (a writer replacing the file) is waited for.
func (r *followReader) changed() string {
	st, err := r.f.Stat()
	if err == nil && st.Size() < r.read {
		return "the file was truncated"
	}
	if len(r.head) > 0 {
		r.scratch = append(r.scratch[:0], make([]byte, len(r.head))...)
		n, _ := r.f.ReadAt(r.scratch, 0)
		if n < len(r.head) {
			return "the file was truncated"
		}
		if !bytes.Equal(r.scratch, r.head) {
			return "the file was rewritten"
		}
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
