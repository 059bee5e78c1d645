package cli

import (
	"testing"
	"time"

	"github.com/proftop/proftop/bundle"
)

// TestBundleWritten checks the words for a bundle written: the raw
// stream's span, or its size when it was read in under a second (a
// replayed file), never "0s".
func TestBundleWritten(t *testing.T) {
	for _, tc := range []struct {
		sum  bundle.Summary
		want string
	}{
		{bundle.Summary{Path: "b.tar.gz", Bytes: 3 << 20, Pictures: 5, Deadlocks: 1, Stream: 90 * time.Second, StreamBytes: 80 << 20},
			"bundle written: b.tar.gz (3.0 MiB; 5 pictures, 1 deadlock, 1m30s of raw stream)"},
		{bundle.Summary{Path: "b.tar.gz", Bytes: 3 << 20, Pictures: 1, Stream: 300 * time.Millisecond, StreamBytes: 83 << 20},
			"bundle written: b.tar.gz (3.0 MiB; 1 picture, 0 deadlocks, 83.0 MiB of raw stream)"},
		{bundle.Summary{Path: "b.tar.gz", Bytes: 2048, Pictures: 2},
			"bundle written: b.tar.gz (2.0 KiB; 2 pictures, 0 deadlocks)"},
	} {
		if got := bundleWritten(tc.sum); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.sum, got, tc.want)
		}
	}
}
