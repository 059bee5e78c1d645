package endless

import (
	"bytes"
	"io"
	"testing"
)

// The head comes once, then the block again and again, whatever the
// reads' sizes (an empty head too).
func TestReaderRepeatsTheBlock(t *testing.T) {
	for _, head := range []string{"HEAD", ""} {
		for _, size := range []int{1, 3, 7, 64} {
			r := Reader([]byte(head), []byte("abcde"))
			var got bytes.Buffer
			buf := make([]byte, size)
			for got.Len() < len(head)+23 {
				n, err := r.Read(buf)
				if err != nil || n != size {
					t.Fatalf("read %d, %v; want %d", n, err, size)
				}
				got.Write(buf[:n])
			}
			want := head + "abcdeabcdeabcdeabcdeabc"
			if s := got.String()[:len(want)]; s != want {
				t.Fatalf("head %q, reads of %d: %q, want %q", head, size, s, want)
			}
		}
	}
	var _ io.Reader = Reader(nil, []byte{1})
}
