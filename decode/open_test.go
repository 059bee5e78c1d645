package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fileOf writes data to a temporary file and opens it, read from at.
func fileOf(t *testing.T, data []byte, at int64) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.Seek(at, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	return f
}

// A file that begins as a zip does but whose directory (at its end) is
// missing or unreadable is said to be a zip cut short or damaged, with its
// size: not a format unrecognized.
func TestOpenZipCutShort(t *testing.T) {
	zipped, err := os.ReadFile("../testdata/sample-zipped.trcxml")
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{4, 100, len(zipped) / 2, len(zipped) - 1} {
		for _, via := range []string{"file", "reader"} {
			t.Run(fmt.Sprintf("%s cut at %d", via, cut), func(t *testing.T) {
				var r io.Reader = bytes.NewReader(zipped[:cut])
				if via == "file" {
					r = fileOf(t, zipped[:cut], 0)
				}
				_, err := Open(r, Options{})
				if !errors.Is(err, ErrZipDamaged) || !strings.Contains(err.Error(), fmt.Sprintf("at the end of its %d bytes, is missing or unreadable", cut)) {
					t.Fatalf("%v", err)
				}
			})
		}
	}
}

// messageAt is where a little-endian binary trace's message n (from 0)
// starts.
func messageAt(data []byte, n int) int64 {
	at := int64(binary.LittleEndian.Uint32(data[8:]))
	for range n {
		at += int64(binary.LittleEndian.Uint32(data[at+2:]))
	}
	return at
}

// A binary message declaring more than the maximum is, in a regular file
// with less than that left, a damaged size: said so, with what is left.
// A stream's size is unknown, and a message that fits in the file is
// simply too large: both keep the error that names the maximum.
func TestBinarySizePastTheFileEnd(t *testing.T) {
	var trace bytes.Buffer
	enc := NewEncoder(&trace, EncoderOptions{})
	for _, name := range []string{"main", strings.Repeat("x", 2000), "worker"} {
		enc.Encode(&ThreadStart{ThreadID: 1, ThreadName: name})
	}
	enc.Flush()
	const huge = 64<<20 + 84
	junk := []byte("junk before the trace")
	for _, tc := range []struct {
		name   string
		size   uint32 // declared by the second message; 0 leaves it
		maxMsg int
		open   func(t *testing.T, data []byte) (io.Reader, Options)
		want   error
	}{
		{"file", huge, 0, func(t *testing.T, d []byte) (io.Reader, Options) { return fileOf(t, d, 0), Options{} }, ErrPastEnd},
		{"file read from past its start", huge, 0, func(t *testing.T, d []byte) (io.Reader, Options) {
			return fileOf(t, append(append([]byte{}, junk...), d...), int64(len(junk))), Options{}
		}, ErrPastEnd},
		{"file, message fitting in it but over the maximum", 0, 1024, func(t *testing.T, d []byte) (io.Reader, Options) { return fileOf(t, d, 0), Options{} }, ErrTooLarge},
		{"file, message under the maximum but past its end", 3000, 0, func(t *testing.T, d []byte) (io.Reader, Options) { return fileOf(t, d, 0), Options{} }, ErrTruncated},
		{"stream", huge, 0, func(t *testing.T, d []byte) (io.Reader, Options) { return bytes.NewReader(d), Options{} }, ErrTooLarge},
		{"followed file", huge, 0, func(t *testing.T, d []byte) (io.Reader, Options) { return fileOf(t, d, 0), Options{Growing: true} }, ErrTooLarge},
		{"gzipped file", huge, 0, func(t *testing.T, d []byte) (io.Reader, Options) { return fileOf(t, gzipped(d), 0), Options{} }, ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := bytes.Clone(trace.Bytes())
			at := messageAt(data, 1)
			if tc.size != 0 {
				binary.LittleEndian.PutUint32(data[at+2:], tc.size)
			}
			r, opts := tc.open(t, data)
			opts.MaxMessageSize = tc.maxMsg
			d, err := Open(r, opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.Next(); err != nil {
				t.Fatalf("first message: %v", err)
			}
			_, err = d.Next()
			var de *Error
			if !errors.Is(err, tc.want) || !errors.As(err, &de) || de.Offset != at {
				t.Fatalf("%v, want %v at offset %d", err, tc.want, at)
			}
			if tc.want == ErrPastEnd {
				left := int64(len(data)) - at
				if want := fmt.Sprintf("it declares %d bytes but only %d are left in the file", huge, left); !strings.Contains(err.Error(), want) {
					t.Fatalf("%v, want %q", err, want)
				}
			}
		})
	}
}

// An unrecognized stream's first bytes are shown exactly, each byte that
// is not UTF-8 as \xNN, and a stream that starts as a msgpack map is told
// why it is not rbkit's. Before, 86 a9 d6 08 showed as "?\x08" and the
// message asked for "a msgpack map", which 0x86 is.
func TestUnknownFormatShowsItsBytes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  []string
	}{
		{"a msgpack map keyed by a string", "\x86\xa9\xd6\x08rest", []string{`starts with "\x86\xa9\xd6\x08"`, "a msgpack map (byte 0x86) whose first key is not an integer", "msgpack map whose first key is an integer (rbkit)"}},
		{"random bytes", "\x00\xff\xfe\x01GIF", []string{`starts with "\x00\xff\xfe\x01"`}},
		{"text", "GIF89a\x01\x02\x03", []string{`starts with "GIF8"`}},
		{"a JFR recording", "FLR\x00\x00\x02\x00\x01", []string{`starts with "FLR\x00`, "JDK Flight Recorder recording", "proftop attach PID", "jfr print"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(strings.NewReader(tc.input), Options{})
			if !errors.Is(err, ErrUnknownInput) {
				t.Fatalf("got %v, want %v", err, ErrUnknownInput)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %s", err, w)
				}
			}
			if strings.Contains(tc.name, "random") && strings.Contains(err.Error(), "msgpack map (byte") {
				t.Errorf("%q calls it a map", err)
			}
		})
	}
}

// quoteDetail shows every byte it is given: valid UTF-8 as it is, a byte
// that is not as \xNN, controls (C0 and C1) escaped; and it cuts a long
// value between characters.
func TestQuoteDetailShowsEveryByte(t *testing.T) {
	for in, want := range map[string]string{
		"héllo":                          `"héllo"`,
		"\x86\xa9\xd6\x08":               `"\x86\xa9\xd6\x08"`,
		"a\xffb":                         `"a\xffb"`,
		"\xc2\x85\x1b[31m":               `"\u0085\x1b[31m"`,
		`say "hi"\`:                      `"say \"hi\"\\"`,
		strings.Repeat("a", 39) + "é123": `"` + strings.Repeat("a", 39) + `…"`,
	} {
		if got := quoteDetail(in); got != want {
			t.Errorf("quoteDetail(%q) = %s, want %s", in, got, want)
		}
	}
}
