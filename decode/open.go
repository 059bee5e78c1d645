package decode

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// Sniff tells the format of a stream from its first bytes: "0TBF" is
// binary, a zip signature is a zipped trace, gzip's a gzipped trace or a
// proftop bundle (archive.go), 'b' and a little-endian version is a
// Jinsight trace, a msgpack map whose first key is an integer is a
// recording of rbkit frames, and '<' (after an optional byte-order mark and
// white space) is XML: a ProfilerJ snapshot when its root element is <doc>
// (once the prefix holds the root's name), else a trace stream. zipped
// reports an archive.
func Sniff(prefix []byte) (f Format, zipped bool, ok bool) {
	switch {
	case bytes.HasPrefix(prefix, []byte(Magic)):
		return FormatBinary, false, true
	case bytes.HasPrefix(prefix, []byte("PK\x03\x04")), bytes.HasPrefix(prefix, []byte(gzipMagic)):
		return 0, true, true
	case len(prefix) >= 5 && prefix[0] == jinsightMagic && prefix[1] != 0 && string(prefix[2:5]) == "\x00\x00\x00":
		return FormatJinsight, false, true
	}
	if yes, _ := sniffRbkit(prefix); yes {
		return FormatRbkit, false, true
	}
	p := bytes.TrimPrefix(prefix, []byte("\xef\xbb\xbf"))
	p = bytes.TrimLeft(p, " \t\r\n")
	if len(p) > 0 && p[0] == '<' {
		if root, done := xmlRoot(p); done && root == profilerJRoot {
			return FormatProfilerJ, false, true
		}
		return FormatXML, false, true
	}
	return 0, false, false
}

// maxSniff bounds the white space Open skips looking for an XML '<'.
const maxSniff = 256

// Open detects the encoding of r by content (never by file name) and
// returns a decoder for it. A zip archive is opened transparently and every
// trace document in it is decoded in turn. r may be an *os.File, in which
// case a zip is read in place; other readers holding a zip are read into
// memory first, since a zip's directory sits at its end. Of a regular
// file not being followed, Open sets opts.InputSize to what is left of it.
func Open(r io.Reader, opts Options) (Decoder, error) {
	if opts.InputSize == 0 && !opts.Growing {
		opts.InputSize = fileRest(r)
	}
	f, zipped, whole, err := SniffStream(r)
	if err != nil {
		return nil, err
	}
	if zipped {
		opts.InputSize = 0 // the entries' sizes are their own
		return openArchive(r, whole, opts)
	}
	return NewDecoder(f, whole, opts), nil
}

// fileRest is how many bytes a regular file holds past its read position,
// 0 for any other reader.
func fileRest(r io.Reader) int64 {
	f, ok := r.(*os.File)
	if !ok {
		return 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	at, err := f.Seek(0, io.SeekCurrent)
	if err != nil || at >= st.Size() {
		return 0
	}
	return st.Size() - at
}

// SniffStream reads the first bytes of r, as few as tell its format, and
// returns the format with a reader that yields the whole stream again.
func SniffStream(r io.Reader) (f Format, zipped bool, whole io.Reader, err error) {
	prefix := make([]byte, 0, maxSniff)
	var readErr error
	for zero := 0; readErr == nil && undecided(prefix) && zero < maxZeroReads; {
		want := 4 - len(prefix)
		switch {
		case xmlUndecided(prefix):
			want = 512 // the prologue before the root element
		case want < 1:
			want = 1 // past the first bytes only white space is left to skip
		}
		prefix = slices.Grow(prefix, want)
		var n int
		n, readErr = r.Read(prefix[len(prefix) : len(prefix)+want])
		prefix = prefix[:len(prefix)+n]
		if n == 0 {
			zero++
		}
	}
	if (readErr == nil || readErr == io.EOF) && undecided(prefix) {
		// The input ended (or stalled) before its format could be told:
		// more bytes could still make it a trace.
		detail := "the stream is empty"
		if len(prefix) > 0 {
			detail = fmt.Sprintf("it ends after %d bytes, %s", len(prefix), quoteDetail(string(prefix[:min(len(prefix), 16)])))
		}
		return 0, false, nil, &Error{Err: ErrTooShort, Offset: int64(len(prefix)), Fatal: true, Detail: detail}
	}
	f, zipped, ok := Sniff(prefix)
	switch {
	case ok:
		return f, zipped, io.MultiReader(bytes.NewReader(prefix), r), nil
	case readErr != nil && readErr != io.EOF:
		return 0, false, nil, readErr
	}
	return 0, false, nil, &Error{Err: ErrUnknownInput, Fatal: true, Detail: unknownFormatDetail(prefix)}
}

// unknownFormatDetail says what an unrecognized stream starts with, byte
// for byte, and what was wanted. A stream that starts as a msgpack map is
// told why it is not rbkit's: its first key is not an integer, which is
// what tells rbkit's frames from any other msgpack.
func unknownFormatDetail(prefix []byte) string {
	const want = "want \"0TBF\" (binary), \"PK\" (zip), gzip, 'b' (Jinsight), '<' (XML) or a msgpack map whose first key is an integer (rbkit)"
	detail := "starts with " + quoteDetail(string(prefix[:min(len(prefix), 8)]))
	if bytes.HasPrefix(prefix, []byte("FLR\x00")) {
		// What a JVM's own profiler writes: the format users of a
		// JFR-based tool try first.
		return detail + ": a JDK Flight Recorder recording (.jfr), which proftop does not read: watch the JVM with proftop attach PID " +
			"(its agent reads JFR as it records), or read the file with the JDK's jfr print or JDK Mission Control"
	}
	if c := prefix[0]; c >= 0x81 && c <= 0x8f || c == 0xde || c == 0xdf {
		detail += fmt.Sprintf(", a msgpack map (byte 0x%02x) whose first key is not an integer, so not an rbkit frame", c)
	}
	return detail + "; " + want
}

// undecided reports whether more bytes could still change what Sniff says.
func undecided(prefix []byte) bool {
	if xmlUndecided(prefix) {
		return true
	}
	if _, _, ok := Sniff(prefix); ok {
		return false
	}
	if len(prefix) >= maxSniff {
		return false
	}
	if _, maybe := sniffRbkit(prefix); maybe {
		return true
	}
	if len(prefix) > 0 && len(prefix) < 5 && prefix[0] == jinsightMagic {
		return len(prefix) < 2 || prefix[1] != 0 && bytes.Count(prefix[2:], []byte{0}) == len(prefix)-2
	}
	if len(prefix) < 4 {
		return bytes.HasPrefix([]byte(Magic), prefix) || bytes.HasPrefix([]byte("PK\x03\x04"), prefix) || bytes.HasPrefix([]byte(gzipMagic), prefix) ||
			len(bytes.TrimLeft(bytes.TrimPrefix(prefix, []byte("\xef\xbb\xbf")), " \t\r\n")) == 0 ||
			bytes.HasPrefix([]byte("\xef\xbb\xbf"), prefix)
	}
	return len(bytes.TrimLeft(bytes.TrimPrefix(prefix, []byte("\xef\xbb\xbf")), " \t\r\n")) == 0
}

// sniffRbkit says whether prefix starts an rbkit frame (yes), or may once
// more bytes have come (maybe): a non-empty msgpack map whose first key is
// an integer. No other format proftop reads starts with a map's byte.
func sniffRbkit(prefix []byte) (yes, maybe bool) {
	if len(prefix) == 0 {
		return false, false
	}
	head := 0
	switch c := prefix[0]; {
	case c >= 0x81 && c <= 0x8f:
	case c == 0xde:
		head = 2
	case c == 0xdf:
		head = 4
	default:
		return false, false
	}
	if len(prefix) < 2+head {
		return false, true
	}
	return isIntCode(prefix[1+head]), false
}

// NewDecoder returns the decoder for a stream known to be in format f.
func NewDecoder(f Format, r io.Reader, opts Options) Decoder {
	switch f {
	case FormatBinary:
		return NewBinaryDecoder(r, opts)
	case FormatRbkit:
		return NewRbkitDecoder(r, opts)
	case FormatJinsight:
		return NewJinsightDecoder(r, opts)
	case FormatProfilerJ:
		return NewProfilerJDecoder(r, opts)
	}
	return NewXMLDecoder(r, opts)
}

// openZip opens a zip archive: in place for a file, else from memory.
func openZip(orig io.Reader, all io.Reader, opts Options) (Decoder, error) {
	var ra io.ReaderAt
	var size int64
	if f, ok := orig.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			ra, size = f, st.Size()
		}
	}
	if ra == nil {
		data, err := io.ReadAll(all)
		if err != nil {
			return nil, err
		}
		ra, size = bytes.NewReader(data), int64(len(data))
	}
	zr, err := zip.NewReader(ra, size)
	if errors.Is(err, zip.ErrFormat) {
		// It begins as a zip does, so it is one: its end is what is wrong.
		return nil, &Error{Err: ErrZipDamaged, Fatal: true,
			Detail: fmt.Sprintf("its directory, at the end of its %d bytes, is missing or unreadable", size)}
	}
	if err != nil {
		return nil, &Error{Err: ErrUnknownInput, Fatal: true, Detail: "zip archive: " + err.Error()}
	}
	z := &zipDecoder{opts: opts}
	for _, f := range zr.File {
		if !f.FileInfo().IsDir() {
			z.files = append(z.files, f)
		}
	}
	if len(z.files) == 0 {
		return nil, &Error{Err: ErrUnknownInput, Fatal: true, Detail: "zip archive holds no file"}
	}
	// Open the first document now, so that its format is known at once.
	if err := z.openEntry(z.files[0]); err != nil {
		return nil, err
	}
	z.next = 1
	return z, nil
}

// zipDecoder decodes each trace document of a zip archive in turn.
type zipDecoder struct {
	says  // what the latest entry's decoder says of its data
	opts  Options
	files []*zip.File
	next  int
	cur   Decoder
	rc    io.ReadCloser
	entry string
	done  int64  // bytes of the entries already finished
	last  Format // format of the latest entry
}

func (z *zipDecoder) Next() (Event, error) {
	for {
		if z.cur == nil {
			if z.next == len(z.files) {
				return nil, io.EOF
			}
			if err := z.openEntry(z.files[z.next]); err != nil {
				return nil, err
			}
			z.next++
		}
		ev, err := z.cur.Next()
		if err == io.EOF {
			z.done += z.cur.InputOffset()
			z.rc.Close()
			z.cur = nil
			continue
		}
		if err != nil {
			var de *Error
			if errors.As(err, &de) {
				de.Entry = z.entry
			}
			return nil, err
		}
		return ev, nil
	}
}

func (z *zipDecoder) openEntry(f *zip.File) error {
	rc, err := f.Open()
	if err != nil {
		return &Error{Err: ErrUnknownInput, Entry: f.Name, Fatal: true, Detail: err.Error()}
	}
	// The entry's damage (cut short, a checksum, data that does not
	// inflate) is said as such, with the entry's name.
	in := &inflateErrors{r: rc, entry: f.Name, cutShort: ErrZipDamaged, damaged: ErrZipDamaged}
	format, zipped, whole, err := SniffStream(in)
	if err == nil && zipped {
		// Refused before a byte of it is inflated: a zip inside a zip is no trace.
		err = &Error{Err: ErrUnknownInput, Fatal: true, Detail: "a zip inside a zip"}
	}
	if err != nil {
		rc.Close()
		var de *Error
		if errors.As(err, &de) {
			de.Entry = f.Name
		}
		return err
	}
	d := NewDecoder(format, whole, z.opts)
	z.cur, z.rc, z.entry, z.last, z.inner = d, rc, f.Name, d.Format(), d
	return nil
}

func (z *zipDecoder) Offset() int64 {
	if z.cur == nil {
		return 0
	}
	return z.cur.Offset()
}

func (z *zipDecoder) InputOffset() int64 {
	if z.cur == nil {
		return z.done
	}
	return z.done + z.cur.InputOffset()
}

func (z *zipDecoder) Clock() Clock {
	if z.cur == nil {
		return Clock{}
	}
	return z.cur.Clock()
}

func (z *zipDecoder) Format() Format { return z.last }

// Container says the stream came out of a zip archive.
func (z *zipDecoder) Container() string { return "zip" }

// Entry names the zip entry being decoded.
func (z *zipDecoder) Entry() string { return z.entry }
