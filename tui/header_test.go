package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// A narrow header drops its pieces by their drop, highest first; a piece
// with a short form takes it instead and stays; drop 0 stays whole.
func TestJoinItems(t *testing.T) {
	items := []item{{text: "proftop"}, {text: "/srv/app/bin/worker.rb", short: "worker.rb", drop: 2}, {text: "pid 42"},
		{text: "v0.1.10", drop: 3}, {text: "up 5s", drop: 1}}
	for _, tc := range []struct {
		width int
		want  string
	}{
		{80, "proftop  /srv/app/bin/worker.rb  pid 42  v0.1.10  up 5s"},
		{50, "proftop  /srv/app/bin/worker.rb  pid 42  up 5s"},
		{40, "proftop  worker.rb  pid 42  up 5s"},
		{28, "proftop  worker.rb  pid 42"},
		{20, "proftop  worker.rb  "}, // cut: the pid is what goes
	} {
		if got := joinItems(items, tc.width, "  "); got != tc.want {
			t.Errorf("width %d: %q, want %q", tc.width, got, tc.want)
		}
	}
}

// A text snapshot of a recording says its trace's time beside when it was
// taken; of a live JVM on this machine's clock, only the one.
func TestBatchHeaderSaysTheTraceTime(t *testing.T) {
	for _, tc := range []struct {
		ago  time.Duration
		says bool
	}{{time.Hour, true}, {2 * time.Second, false}} {
		snap := &state.Snapshot{Clock: time.Now().Add(-tc.ago), Window: 10 * time.Second}
		text := RenderText(snap, client.Status{}, 132, 5, false)
		want := "trace time " + snap.Clock.Local().Format("2006-01-02 15:04:05")
		if strings.Contains(text, want) != tc.says {
			t.Errorf("%v behind: %q said %v:\n%.300s", tc.ago, want, !tc.says, text)
		}
	}
}
