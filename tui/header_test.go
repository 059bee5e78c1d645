package tui

import "testing"

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
