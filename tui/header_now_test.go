package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/protocol"
	"github.com/proftop/proftop/state"
)

// Viewing a moment of the history, the source's notes and its last
// decode error say they are of now, not of the moment shown.
func TestHeaderSaysTheSourcesNotesAreOfNow(t *testing.T) {
	st := PlainStyles()
	status := client.Status{Source: "f.trcbin", State: client.StateStreaming, Notes: []string{"the file was replaced at 06:14:34: read again from its start"},
		DecodeErrors: 1, LastError: "offset 0: unrecognized stream format"}
	for _, tc := range []struct {
		moment      string
		frozen      *momentCounts
		note, error string
	}{
		{"", nil, "note: the file was replaced", "last decode error: offset 0"},
		{"-2m14s, 06:11:54", nil, "note (now): the file was replaced", "last decode error (now): offset 0"},
		{"", &momentCounts{}, "note (now): the file was replaced", "last decode error (now): offset 0"}, // frozen
	} {
		screen := strings.Join(renderHeader(headerInfo{status: status, moment: tc.moment, frozen: tc.frozen, now: time.Now()}, nil, 200, &st), "\n")
		if !strings.Contains(screen, tc.note) || !strings.Contains(screen, tc.error) {
			t.Errorf("moment %q: want %q and %q in\n%s", tc.moment, tc.note, tc.error, screen)
		}
	}
}

// A decode error that ended the source is its cause: the header says it
// once, not again as the last decode error (four lines of 24 at 80×24).
func TestHeaderSaysTheErrorThatEndedTheSourceOnce(t *testing.T) {
	st := PlainStyles()
	const err = "decode: offset 1999916: message #10222, id 1101 (threadState): stream ends inside a message: 84 of 131 bytes"
	for _, tc := range []struct {
		name  string
		cause string
		times int
	}{
		{"the error ended it", err, 1},
		{"something else ended it", "end of file", 1},
	} {
		status := client.Status{Source: "/tmp/h2.trcbin", State: client.StateEnded, Cause: tc.cause, DecodeErrors: 1, LastError: err}
		for _, width := range []int{80, 200} {
			lines := renderHeader(headerInfo{status: status, now: time.Now()}, nil, width, &st)
			screen := strings.Join(lines, " ")
			if n := strings.Count(screen, "84 of 131 bytes"); n != tc.times {
				t.Errorf("%s, %d columns: the error %d times in\n%s", tc.name, width, n, strings.Join(lines, "\n"))
			}
		}
	}
}

// Batch text cuts and drops nothing of the header: its reader cannot
// widen the terminal. A long path stays whole, on a line of its own if
// need be, and every piece a narrow screen would drop is there.
func TestBatchHeaderCutsNothing(t *testing.T) {
	st := PlainStyles()
	const path = "/tmp/a-rather-long-directory-name/with-another-level/and-another-one/h2-recording-of-the-contention-run.trcbin"
	const cause = "decode: offset 1999916: message #10222, id 1101 (threadState): stream ends inside a message: 84 of 131 bytes"
	status := client.Status{Source: path, State: client.StateEnded, Cause: cause, Format: decode.FormatBinary, Negotiation: client.OutcomeFile,
		Agent: protocol.Agent{ID: "1", PID: 6464, Name: "H2Load", Version: "1.0"}, Events: 10_221, DecodeErrors: 1, LastError: cause}
	for _, width := range []int{80, 132} {
		batch := strings.Join(renderHeader(headerInfo{status: status, now: time.Now(), whole: true}, nil, width, &st), "\n")
		for _, want := range []string{path, "H2Load", "pid 6464", "v1.0", "binary", "(from the file's content)", "■ ended", "events 10.2k", "0B/s", "84 of 131 bytes"} {
			if !strings.Contains(batch, want) {
				t.Errorf("%d columns: no %q in the batch header\n%s", width, want, batch)
			}
		}
		// A cause naming a path longer than the line keeps it whole.
		long := "open /var/tmp/" + strings.Repeat("very-long-directory-name/", 5) + "recording.trcbin: no such file or directory"
		ended := status
		ended.Cause, ended.DecodeErrors, ended.LastError = long, 0, ""
		if text := strings.Join(renderHeader(headerInfo{status: ended, now: time.Now(), whole: true}, nil, width, &st), " "); !strings.Contains(text, "/var/tmp/"+strings.Repeat("very-long-directory-name/", 5)+"recording.trcbin:") {
			t.Errorf("%d columns: the cause's path cut:\n%s", width, text)
		}
		// On screen the same header fits the width, the path shortened.
		screen := renderHeader(headerInfo{status: status, now: time.Now(), refresh: time.Second}, nil, width, &st)
		if strings.Contains(strings.Join(screen, "\n"), path) || widthOf(screen[0]) > width {
			t.Errorf("%d columns: the screen's header\n%s", width, strings.Join(screen, "\n"))
		}
	}
}

// A JVM that exited is said once, with its time: the state's cause said
// it again ("ended: JVM 13539 exited").
func TestHeaderSaysTheJVMExitedOnce(t *testing.T) {
	st := PlainStyles()
	status := client.Status{Source: "127.0.0.1:41000", State: client.StateEnded, Cause: "JVM 13539 exited"}
	snap := &state.Snapshot{Process: state.Process{PID: 13539, Exited: time.Date(2026, 11, 27, 9, 1, 17, 0, time.Local)}}
	for _, width := range []int{80, 200} {
		screen := strings.Join(renderHeader(headerInfo{status: status, now: time.Now(), refresh: time.Second}, snap, width, &st), "\n")
		if strings.Count(screen, "exited") != 1 || !strings.Contains(screen, "■ JVM 13539 exited at 09:01:17") || !strings.Contains(screen, "■ ended") {
			t.Errorf("%d columns:\n%s", width, screen)
		}
	}
	// Without the snapshot's word of it, the cause says it.
	screen := strings.Join(renderHeader(headerInfo{status: status, now: time.Now(), refresh: time.Second}, nil, 200, &st), "\n")
	if !strings.Contains(screen, "ended: JVM 13539 exited") {
		t.Errorf("no exit said:\n%s", screen)
	}
}
