package client

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/proftop/proftop/decode"
)

// recorder writes each stream's bytes to a file, exactly as received.
// Every data frame is written at once, unbuffered, so that a proftop that
// is killed leaves a file readable up to its last complete message.
type recorder struct {
	base string // as the user gave it
	file *os.File
	path string
}

// Extension is the file extension of a trace format.
func Extension(f decode.Format) string {
	switch f {
	case decode.FormatBinary:
		return ".trcbin"
	case decode.FormatRbkit:
		return ".msgpack"
	}
	return ".trcxml"
}

// recordPath names the file of the n-th stream (1-based): the user's name
// with the extension of the format actually received (".trcbin" or
// ".trcxml" replaces either, or is added), and "-2", "-3"… before it for
// the streams of later connections.
func recordPath(base string, f decode.Format, n int) string {
	stem := base
	switch strings.ToLower(filepath.Ext(base)) {
	case ".trcbin", ".trcxml", ".msgpack":
		stem = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if n > 1 {
		stem = fmt.Sprintf("%s-%d", stem, n)
	}
	return stem + Extension(f)
}

// start opens the file for a new stream.
func (r *recorder) start(f decode.Format, n int) (string, error) {
	r.stop()
	r.path = recordPath(r.base, f, n)
	file, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return "", fmt.Errorf("recording: %w", err)
	}
	r.file = file
	return r.path, nil
}

func (r *recorder) write(p []byte) error {
	if r.file == nil {
		return nil
	}
	if _, err := r.file.Write(p); err != nil {
		return fmt.Errorf("recording to %s: %w", r.path, err)
	}
	return nil
}

func (r *recorder) stop() {
	if r.file != nil {
		r.file.Close()
		r.file = nil
	}
}
