package decode

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
)

// Archives besides zip: a gzipped trace (trace.trcbin.gz), and a gzipped
// tar holding one — a proftop triage bundle, whose stream.trcbin is the
// raw stream of its last minutes. Either is decoded as it is read, never
// inflated whole into memory.

const gzipMagic = "\x1f\x8b"

// ErrZipGrowing refuses to follow a zip archive: it is read from its
// directory, written last.
var ErrZipGrowing = errors.New("a zip archive cannot be followed (its directory is written last): replay it once complete")

// openArchive opens a zip, or a gzipped trace or tar.
func openArchive(orig, whole io.Reader, opts Options) (Decoder, error) {
	br := bufio.NewReader(whole)
	if head, _ := br.Peek(2); string(head) != gzipMagic {
		if opts.Growing {
			return nil, ErrZipGrowing // its directory would be waited for forever
		}
		return openZip(orig, br, opts)
	}
	gz, err := gzip.NewReader(br)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		// Its header is not all there: a file still being written, or cut.
		return nil, &Error{Err: ErrTruncated, Fatal: true, Detail: "gzip header cut short"}
	}
	if err != nil {
		// It begins with gzip's magic, so it is a gzip: its header is
		// what is wrong, not its format.
		return nil, &Error{Err: ErrGzipDamaged, Element: "gzip", Fatal: true, Detail: "its header: " + err.Error()}
	}
	var inflated io.Reader = gz
	if opts.Growing {
		inflated = newGzipMembers(gz, br)
	}
	in := bufio.NewReaderSize(&inflateErrors{r: inflated, element: "gzip", cutShort: ErrTruncated, damaged: ErrGzipDamaged}, 1024)
	if head, _ := in.Peek(263); len(head) == 263 && string(head[257:262]) == "ustar" {
		return openTar(in, opts)
	}
	return openInner(in, "", "gzip", opts)
}

// openTar decodes the first trace of a tar: the first entry whose name
// ends in .trcbin or .trcxml.
func openTar(r io.Reader, opts Options) (Decoder, error) {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, &Error{Err: ErrUnknownInput, Fatal: true, Detail: "the tar archive holds no .trcbin or .trcxml file"}
		}
		if err != nil {
			return nil, &Error{Err: ErrUnknownInput, Fatal: true, Detail: "tar: " + err.Error()}
		}
		if h.Typeflag == tar.TypeReg && (path.Ext(h.Name) == ".trcbin" || path.Ext(h.Name) == ".trcxml") {
			return openInner(tr, h.Name, "tar.gz", opts)
		}
	}
}

// openInner decodes a trace found inside an archive.
func openInner(r io.Reader, entry, container string, opts Options) (Decoder, error) {
	f, zipped, whole, err := SniffStream(r)
	if err == nil && zipped {
		err = &Error{Err: ErrUnknownInput, Fatal: true, Detail: "an archive inside a " + container}
	}
	if err != nil {
		if de := (*Error)(nil); errors.As(err, &de) {
			de.Entry = entry
		}
		return nil, err
	}
	inner := NewDecoder(f, whole, opts)
	a := &archiveDecoder{Decoder: inner, says: says{inner}, entry: entry, container: container}
	if _, ok := inner.(RecordSource); ok {
		return &archiveRecords{a}, nil
	}
	return a, nil
}

// archiveDecoder is the decoder of a trace inside a gzip or a tar.
type archiveDecoder struct {
	Decoder
	says
	entry, container string
}

// says forwards what the decoder of a trace inside an archive says of its
// data (Describer, the rbkit handshake, losses, an XML root's other
// attributes): a zipped or gzipped snapshot is a still picture as the
// snapshot is, a gzipped Jinsight trace's times approximate. inner is the
// latest entry's decoder, kept once it has ended: what it said stands.
type says struct{ inner Decoder }

func (s says) Notes() []string {
	if d, ok := s.inner.(Describer); ok {
		return d.Notes()
	}
	return nil
}

func (s says) Still() bool {
	d, ok := s.inner.(Describer)
	return ok && d.Still()
}

// Lost counts what the decoder inside could not read (rbkit's frames).
func (s says) Lost() int64 {
	if d, ok := s.inner.(interface{ Lost() int64 }); ok {
		return d.Lost()
	}
	return 0
}

// Handshake is an rbkit recording's handshake reply, when it is one.
func (s says) Handshake() (RbkitHandshake, bool) {
	if d, ok := s.inner.(interface {
		Handshake() (RbkitHandshake, bool)
	}); ok {
		return d.Handshake()
	}
	return RbkitHandshake{}, false
}

// ExtraAttrs are an XML trace's root attributes proftop does not read.
func (s says) ExtraAttrs() []Attr {
	if d, ok := s.inner.(interface{ ExtraAttrs() []Attr }); ok {
		return d.ExtraAttrs()
	}
	return nil
}

// archiveRecords is an archiveDecoder of a format with records of its
// own (Jinsight's), which decode --stats counts as the plain file's.
type archiveRecords struct{ *archiveDecoder }

func (a *archiveRecords) NextRecord() (Record, error) {
	rec, err := a.Decoder.(RecordSource).NextRecord()
	if de := (*Error)(nil); err != nil && errors.As(err, &de) {
		de.Entry = a.entry
	}
	return rec, err
}

func (a *archiveDecoder) Next() (Event, error) {
	ev, err := a.Decoder.Next()
	if de := (*Error)(nil); err != nil && errors.As(err, &de) {
		de.Entry = a.entry
	}
	return ev, err
}

// Container says what the trace came out of: "gzip" or "tar.gz".
func (a *archiveDecoder) Container() string { return a.container }

// Entry names the tar entry being decoded.
func (a *archiveDecoder) Entry() string { return a.entry }

// gzipMembers reads a gzip file that is still being written, and the
// members after the first that are there already (cat a.gz b.gz). The
// gzip reader's own way to go on reads the next member's header before
// it returns the last bytes of the one before, which, the file not
// holding that header yet, held them back for as long as the writer
// paused; and a member's end is where a followed trace ends (proftop then
// watches the file for a new one), unless the next one's bytes have come.
type gzipMembers struct {
	gz    *gzip.Reader
	src   *bufio.Reader
	ended bool // a member ended and another follows: the next read starts it
}

func newGzipMembers(gz *gzip.Reader, src *bufio.Reader) *gzipMembers {
	gz.Multistream(false)
	return &gzipMembers{gz: gz, src: src}
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	if g.ended {
		if err := g.gz.Reset(g.src); err != nil {
			return 0, err
		}
		g.gz.Multistream(false)
		g.ended = false
	}
	n, err := g.gz.Read(p)
	if err == io.EOF && g.src.Buffered() > 0 {
		g.ended = true
		if n == 0 {
			return g.Read(p)
		}
		return n, nil
	}
	return n, err
}

// inflateErrors names what a decompressor (gzip's, or a zip entry's)
// found wrong: compressed data cut short, a checksum that does not match,
// data that does not inflate. The decoder above it would pass on
// "unexpected EOF" or "zip: checksum error", which say neither that the
// archive is at fault nor where, nor which entry.
type inflateErrors struct {
	r        io.Reader
	inflated int64
	element  string // "gzip", "" for a zip entry (its name says it)
	entry    string // the zip entry's name, "" for a gzip
	// cutShort is the kind of error for data that ends early: for a gzip,
	// ErrTruncated (a file still being written, which more bytes may
	// complete); for a zip entry, whose size the archive's directory gives,
	// damage. damaged is the kind for data that is wrong.
	cutShort, damaged error
}

func (g *inflateErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.inflated += int64(n)
	var corrupt flate.CorruptInputError
	switch {
	case err == nil || err == io.EOF:
		return n, err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return n, &Error{Err: g.cutShort, Offset: g.inflated, Element: g.element, Entry: g.entry, Fatal: true,
			Detail: fmt.Sprintf("the compressed data ends early, %d bytes inflated: cut short", g.inflated)}
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.Is(err, zip.ErrChecksum), errors.As(err, &corrupt):
		return n, &Error{Err: g.damaged, Offset: g.inflated, Element: g.element, Entry: g.entry, Fatal: true,
			Detail: fmt.Sprintf("after %d bytes inflated: %v", g.inflated, err)}
	}
	return n, err // the file's reader's own (a read that failed, a followed file that started over)
}
