package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// Bundle is what reading a bundle gives back.
type Bundle struct {
	Readme    string
	Pictures  []*state.Picture
	Deadlocks []state.DeadlockRecord
	Profile   []byte // profile.pb.gz, when it holds one
	Files     []string
	// Origin is what the bundle's source said about itself; nil in a
	// bundle written before bundles kept it.
	Origin *client.Origin
	// Streams are the raw streams it holds (its .trcbin and .trcxml
	// files), in their order in the archive: the first is played.
	Streams []string
}

// Bounds on what is read: a bundle is read whole into memory only for its
// small files; the history is read a line at a time.
const (
	maxSmallFile = 64 << 20
	maxLine      = 64 << 20
)

// IsBundle says path is a bundle: a gzipped tar whose first file is
// README.txt.
func IsBundle(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return false
	}
	h, err := tar.NewReader(zr).Next()
	return err == nil && h.Name == FileReadme
}

// Read reads a bundle's README, history (with its pictures' call trees),
// deadlocks and profile. A bad
// file is an error naming it (and the line, in the history).
func Read(path string) (*Bundle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not a bundle (gzip: %v)", path, err)
	}
	tr := tar.NewReader(zr)
	b := &Bundle{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		b.Files = append(b.Files, h.Name)
		if isStream(h) {
			b.Streams = append(b.Streams, h.Name)
		}
		switch h.Name {
		case FileReadme:
			data, err := small(tr, h)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", path, h.Name, err)
			}
			b.Readme = string(data)
		case FileHistory:
			if b.Pictures, err = readHistory(tr); err != nil {
				return nil, fmt.Errorf("%s: %s: %v", path, h.Name, err)
			}
		case FileHistoryTree:
			// Written after the history, whose pictures it gives their call trees.
			if err = state.ReadPastTrees(tr, b.Pictures); err != nil {
				return nil, fmt.Errorf("%s: %s: %v", path, h.Name, err)
			}
		case FileDeadJSON:
			data, err := small(tr, h)
			if err == nil {
				err = json.Unmarshal(data, &b.Deadlocks)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", path, h.Name, err)
			}
		case FileOrigin:
			data, err := small(tr, h)
			if err == nil {
				b.Origin = &client.Origin{}
				err = json.Unmarshal(data, b.Origin)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", path, h.Name, err)
			}
		case FileProfile:
			if b.Profile, err = small(tr, h); err != nil {
				return nil, fmt.Errorf("%s: %s: %v", path, h.Name, err)
			}
		}
	}
	if len(b.Files) == 0 || b.Files[0] != FileReadme {
		return nil, fmt.Errorf("%s: not a proftop bundle (its first file is not %s)", path, FileReadme)
	}
	return b, nil
}

// isStream says a tar entry is a raw stream, as the decoder of a bundle
// tells one (decode's openTar plays the first).
func isStream(h *tar.Header) bool {
	ext := path.Ext(h.Name)
	return h.Typeflag == tar.TypeReg && (ext == ".trcbin" || ext == ".trcxml")
}

func small(r io.Reader, h *tar.Header) ([]byte, error) {
	if h.Size > maxSmallFile {
		return nil, fmt.Errorf("%d bytes, more than the %d read", h.Size, maxSmallFile)
	}
	return io.ReadAll(io.LimitReader(r, maxSmallFile))
}

// readHistory reads one picture a line, oldest first.
func readHistory(r io.Reader) ([]*state.Picture, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var out []*state.Picture
	var last time.Time
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		p := &state.Picture{}
		if err := json.Unmarshal(line, p); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if p.At.Before(last) {
			return nil, fmt.Errorf("line %d: taken at %s, before the picture above it", n, p.At.Format(time.RFC3339))
		}
		last = p.At
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d is longer than %d bytes", len(out)+1, maxLine)
		}
		return nil, err
	}
	return out, nil
}

// History makes a history of the bundle's pictures and deadlocks, within
// the byte bound of opts (its span is the bundle's).
func (b *Bundle) History(opts state.HistoryOptions) *state.History {
	opts.Span = 1<<63 - 1
	h := state.NewHistory(opts)
	still := b.Origin != nil && b.Origin.Still
	for _, p := range b.Pictures {
		if still {
			// A still picture has no timeline: the pictures, taken of
			// the window, hold its one moment, cumulative, and say so
			// as the source does.
			p.Snap.Recent = false
		}
		h.Add(p)
	}
	if len(b.Deadlocks) > 0 {
		h.RestoreDeadlocks(b.Deadlocks)
	}
	return h
}
