package export

import (
	"bytes"
	"testing"
)

// Collapsed stacks and pprof profiles from elsewhere are untrusted: an
// error or a tree, never a panic.
func FuzzReadProfiles(f *testing.F) {
	f.Add([]byte("a;b;c 3\na;b 1\n"))
	f.Add([]byte("a;b\n"))
	f.Add([]byte("\x1f\x8b\x08\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if stacks, err := ReadCollapsed(bytes.NewReader(b)); err == nil {
			for _, s := range stacks {
				if s.Value < 0 || len(s.Frames) == 0 {
					t.Fatalf("%+v", s)
				}
			}
		}
		if tree, _, err := ReadPprof(bytes.NewReader(b)); err == nil && len(tree.Nodes) == 0 {
			t.Fatal("a tree without its root")
		}
	})
}
