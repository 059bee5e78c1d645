package state

import (
	"encoding/json"
	"testing"
)

// A history line read back from a bundle is untrusted: whatever it holds
// is an error or a picture, never a panic.
func FuzzPictureJSON(f *testing.F) {
	f.Add([]byte(`{"at":"2026-11-21T09:00:00Z","marks":["deadlock"],"heldUp":2,"picture":{"taken":"2026-11-21T09:00:00Z","threads":[{"id":1,"name":"main","state":"blocked","stack":[{"method":"a.b","line":3}]}],"methods":[{"name":"a.b","selfNs":5,"totalNs":7}],"monitors":[{"object":16,"waiters":[]}],"deadlocks":[],"gc":{"pausesNs":[1,2]}}}`))
	f.Add([]byte(`{"at":"2026-11-21T09:00:00Z","picture":{"threads":[{"state":"nonsense"}]}}`))
	f.Add([]byte(`{"picture":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Picture
		if err := json.Unmarshal(b, &p); err != nil {
			return
		}
		if p.Snap == nil || !p.Snap.IsPicture() || len(p.Snap.Names) != len(p.Snap.Methods) {
			t.Fatalf("a picture read without its snapshot or names: %+v", p)
		}
		h := NewHistory(HistoryOptions{})
		h.Add(&p)
		if _, err := json.Marshal(&p); err != nil {
			t.Fatal(err)
		}
	})
}
