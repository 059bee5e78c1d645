package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proftop/proftop/config"
)

// A file to be followed may be one its writer has not filled yet: what
// could still become a trace is let through (the interface waits for it,
// and says so), what cannot is refused, as without --follow.
func TestCheckTraceWhenFollowing(t *testing.T) {
	snapshot, err := os.ReadFile("../testdata/profilerj/snapshot-synthetic.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, data string
		followed   bool   // let through when followed
		refusal    string // why it is refused when not followed (and when followed, if not let through)
	}{
		{"empty", "", true, "stream too short to tell its format: the stream is empty"},
		{"binary magic cut", "0TB", true, "stream too short to tell its format"},
		{"Jinsight header cut", "b\x08\x00\x00\x00\x2c\x00\x00\x00\x00", true, "offset 0: header: stream ends inside a message: 10 of 45 bytes"},
		{"XML trace, no event yet", "<?xml version=\"1.0\"?>\n<TRACE>\n", true, "it holds no event"},
		{"ProfilerJ snapshot cut", string(snapshot[:3000]), true, "the document ends inside <profile>"},
		{"text", "hello, world", false, "unrecognized stream format"},
		{"another document", "<?xml version=\"1.0\"?>\n<root>", false, "(line 2, column 1): element #1, <root>"},
		{"a snapshot with an attribute twice", "<doc><profile><thread name=\"a\" name=\"b\">", false, "attribute name given twice"},
		{"a snapshot with a value no number", strings.Replace(string(snapshot), `count="`, `count="x`, 1), false, "invalid value"},
		// Two bytes tell rbkit's frames, which many files begin with: no trace.
		{"a file that begins like rbkit's frames", "\x81\x01\x02\x03\x04", false, "malformed rbkit frame"},
		{"a binary trace of a version to come", "0TBF\x02\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00", false, "version 2.0, this reader knows 1.x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "file")
			os.WriteFile(path, []byte(tc.data), 0o644)
			err := checkTrace(path, config.Settings{}, false)
			// A file of a known format cut inside its first event is cut
			// short; one of none, or with no event, is no trace.
			says := "not a trace"
			switch {
			case strings.HasPrefix(tc.name, "ProfilerJ"):
				says = "a profilerj snapshot cut short (" // read whole: no first event to be inside
			case strings.Contains(tc.refusal, "ends inside"):
				says = "cut short inside its first event"
			case strings.HasPrefix(tc.name, "a snapshot"):
				says = "a damaged profilerj snapshot ("
			case strings.Contains(tc.name, "version"):
				says = "a binary trace of a version proftop cannot read"
			}
			if err == nil || !strings.Contains(err.Error(), says) || !strings.Contains(err.Error(), tc.refusal) {
				t.Fatalf("not followed: %v, want %q", err, tc.refusal)
			}
			err = checkTrace(path, config.Settings{}, true)
			if tc.followed != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.refusal) {
				t.Fatalf("followed: %v", err)
			}
		})
	}
}
