package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A --record path whose directory cannot take the recording is refused
// before connecting: found when the stream began, it read as a broken
// connection, retried for ever with nothing shown, and a batch run exited 0.
func TestRecordPathIsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, refusal string
	}{
		{"", ""},
		{filepath.Join(dir, "rec"), ""},
		{filepath.Join(dir, "missing", "rec"), "no directory " + filepath.Join(dir, "missing") + " to record in"},
		{filepath.Join(file, "rec"), "no directory " + file},
	} {
		err := recordable(c.path)
		if c.refusal == "" && err != nil || c.refusal != "" && (err == nil || !strings.Contains(err.Error(), c.refusal)) {
			t.Errorf("%q: %v, want %q", c.path, err, c.refusal)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the check left files: %v", entries)
	}
}
