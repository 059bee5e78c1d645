package decode

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

func gzipped(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

func tarred(files ...[2]string) []byte {
	var out bytes.Buffer
	tw := tar.NewWriter(&out)
	for _, f := range files {
		tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg})
		tw.Write([]byte(f[1]))
	}
	tw.Close()
	return out.Bytes()
}

// A gzipped trace and a bundle (a gzipped tar holding one) decode like the
// trace itself.
func TestGzipAndTarArchives(t *testing.T) {
	var trace bytes.Buffer
	enc := NewEncoder(&trace, EncoderOptions{})
	enc.Encode(&ThreadStart{ThreadID: 7, ThreadName: "main"})
	enc.Encode(&ThreadEnd{ThreadMoment{ThreadIDRef: 7}})
	enc.Flush()
	for name, data := range map[string][]byte{
		"gzip":   gzipped(trace.Bytes()),
		"tar.gz": gzipped(tarred([2]string{"README.txt", "a bundle"}, [2]string{"stream.trcbin", trace.String()})),
	} {
		d, err := Open(bytes.NewReader(data), Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var n int
		for {
			_, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			n++
		}
		if n != 2 || d.Format() != FormatBinary || d.(interface{ Container() string }).Container() != name {
			t.Fatalf("%s: %d events", name, n)
		}
	}
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"no trace in the tar":  {gzipped(tarred([2]string{"README.txt", "x"})), "holds no .trcbin"},
		"no trace in the gzip": {gzipped([]byte("hello")), "want \"0TBF\""},
		"a broken gzip":        {[]byte("\x1f\x8b\x00\x00"), "gzip"},
		"a zip in a gzip":      {gzipped([]byte("PK\x03\x04rest")), "an archive inside a gzip"},
	} {
		_, err := Open(bytes.NewReader(c.data), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// gzippedThreadStarts is a gzipped binary trace of n thread starts.
func gzippedThreadStarts(n int) []byte {
	var trace bytes.Buffer
	enc := NewEncoder(&trace, EncoderOptions{})
	for i := range n {
		enc.Encode(&ThreadStart{ThreadID: int64(i), ThreadName: "a thread of some name"})
	}
	enc.Flush()
	return gzipped(trace.Bytes())
}

// A gzipped file cut short, or damaged, says so and where, whatever the
// format inside: an rbkit recording's decoder passed on the gzip reader's
// bare "unexpected EOF".
func TestGzipCutShortOrDamaged(t *testing.T) {
	frame := func(n int) []byte { // an rbkit frame: a msgpack map {0: <n bytes>}
		b := []byte{0x81, 0x00, 0xc6, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
		payload := make([]byte, n) // that does not compress: cut, the frame is
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range payload {
			payload[i] = byte(rng.Uint32())
		}
		return append(b, payload...)
	}
	whole := gzippedThreadStarts(2000)
	damaged := bytes.Clone(whole)
	damaged[len(damaged)-6] ^= 0xff // the CRC
	for name, data := range map[string][]byte{
		"binary, cut":   whole[:len(whole)/2],
		"binary, crc":   damaged,
		"rbkit, cut":    gzipped(frame(1 << 20))[:20000],
		"binary, tail8": whole[:len(whole)-4],
	} {
		var err error
		d, err := Open(bytes.NewReader(data), Options{})
		for err == nil {
			_, err = d.Next()
		}
		var de *Error
		if !errors.As(err, &de) || de.Element != "gzip" || de.Offset <= 0 || !de.Fatal {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// An error of the file's own reader (a read that failed, a followed file
// that started over) comes through the gzip layer as it is, for whoever
// reads it to see: not as damaged data.
func TestGzipPassesOnItsReadersErrors(t *testing.T) {
	whole := gzippedThreadStarts(2000)
	failed := errors.New("the disk went away")
	d, err := Open(io.MultiReader(bytes.NewReader(whole[:len(whole)/2]), iotestErr{failed}), Options{})
	for err == nil {
		_, err = d.Next()
	}
	if !errors.Is(err, failed) {
		t.Fatalf("%v, want the reader's own error", err)
	}
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }

// A damaged gzip is said to be damaged, not a format unrecognized: it
// begins with gzip's magic. Before, its damage read "gzip: unrecognized
// stream format: the compressed data is damaged…".
func TestGzipDamageIsNotAnUnknownFormat(t *testing.T) {
	whole := gzippedThreadStarts(2000)
	crc := bytes.Clone(whole)
	crc[len(crc)-6] ^= 0xff
	header := bytes.Clone(whole)
	header[2] = 7 // a compression method gzip does not have
	for name, data := range map[string][]byte{"crc": crc, "header": header} {
		t.Run(name, func(t *testing.T) {
			d, err := Open(bytes.NewReader(data), Options{})
			for err == nil {
				_, err = d.Next()
			}
			var de *Error
			if !errors.As(err, &de) || !errors.Is(err, ErrGzipDamaged) || errors.Is(err, ErrUnknownInput) || !de.Fatal || de.Element != "gzip" {
				t.Fatalf("got %v, want a fatal %v", err, ErrGzipDamaged)
			}
		})
	}
}

// A zip entry's damage (a checksum that does not match, data that does
// not inflate) names the entry and the offset in it, as a damaged zip.
// Before, it was the library's bare "zip: checksum error" or "unexpected
// EOF".
func TestZipEntryDamageNamesTheEntry(t *testing.T) {
	var trace bytes.Buffer
	enc := NewEncoder(&trace, EncoderOptions{})
	for i := range 3000 {
		enc.Encode(&ThreadStart{ThreadID: int64(i), ThreadName: "thread " + strings.Repeat("x", i%50)})
	}
	enc.Flush()
	whole := zipOf(t, "first.trcxml", `<TRACE><custom body="1"/>`, "second.trcbin", trace.String())

	// The checksum the directory gives for the second entry.
	crc := bytes.Clone(whole)
	dir := bytes.LastIndex(crc, []byte("PK\x01\x02"))
	crc[dir+16] ^= 0xff
	// Bytes in the middle of the second entry's compressed data.
	inflate := bytes.Clone(whole)
	second := bytes.LastIndex(inflate[:dir], []byte("PK\x03\x04"))
	for i := second + 200; i < second+260; i++ {
		inflate[i] ^= 0x5a
	}
	for name, data := range map[string][]byte{"checksum": crc, "data": inflate} {
		t.Run(name, func(t *testing.T) {
			d, err := Open(bytes.NewReader(data), Options{})
			var events int
			for err == nil {
				if _, err = d.Next(); err == nil {
					events++
				}
			}
			var de *Error
			if !errors.As(err, &de) || !errors.Is(err, ErrZipDamaged) || !de.Fatal || de.Entry != "second.trcbin" ||
				!strings.Contains(err.Error(), `zip entry "second.trcbin": offset `) || !strings.Contains(err.Error(), "damaged") {
				t.Fatalf("got %v, want a fatal %v naming the entry", err, ErrZipDamaged)
			}
			if events == 0 {
				t.Fatal("the first entry's event was lost")
			}
		})
	}
}

// A gzipped or zipped trace says of its data what the trace says: a snapshot is a
// still picture with its notes, and a Jinsight trace has the records of
// its own that decode --stats counts, as many as the plain file's.
func TestArchivedTracesSayWhatTheTraceSays(t *testing.T) {
	gz := func(data []byte) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(data)
		w.Close()
		return b.Bytes()
	}
	zipOf := func(data []byte) []byte {
		var b bytes.Buffer
		w := zip.NewWriter(&b)
		f, _ := w.Create("snapshot.xml")
		f.Write(data)
		w.Close()
		return b.Bytes()
	}
	snap := readFixture(t, "../testdata/profilerj/snapshot-synthetic.xml")
	var decoders []Decoder
	for _, data := range [][]byte{snap, gz(snap), zipOf(snap)} {
		d, err := Open(bytes.NewReader(data), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for { // to the end: what it says stands once read
			if _, err := d.Next(); err != nil {
				break
			}
		}
		decoders = append(decoders, d)
	}
	pd := decoders[0].(Describer)
	for _, d := range decoders[1:] {
		zd := d.(Describer)
		if !zd.Still() || len(zd.Notes()) == 0 || strings.Join(zd.Notes(), "|") != strings.Join(pd.Notes(), "|") {
			t.Fatalf("%T snapshot: still %v, notes %q; plain: %q", d, zd.Still(), zd.Notes(), pd.Notes())
		}
	}

	trace := readFixture(t, jinsightFixture)
	count := func(data []byte) int {
		d, err := Open(bytes.NewReader(data), Options{})
		if err != nil {
			t.Fatal(err)
		}
		rs, ok := d.(RecordSource)
		if !ok {
			t.Fatalf("%T has no records of its own", d)
		}
		n := 0
		for {
			if _, err := rs.NextRecord(); err != nil {
				return n
			}
			n++
		}
	}
	if p, z := count(trace), count(gz(trace)); p == 0 || p != z {
		t.Fatalf("records: %d plain, %d gzipped", p, z)
	}
}
