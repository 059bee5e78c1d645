package decode

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
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
