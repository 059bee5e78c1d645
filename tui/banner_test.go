package tui

import (
	"testing"
	"time"

	"github.com/proftop/proftop/state"
)

// The banner says how long a deadlock has lasted only when it saw it
// form; else how long it has been seen, and whether it was there before
// proftop attached.
func TestDeadlockAge(t *testing.T) {
	clock := time.Date(2026, 11, 26, 10, 0, 10, 0, time.UTC)
	since := clock.Add(-4 * time.Second)
	cases := []struct {
		d    state.Deadlock
		want string
	}{
		{state.Deadlock{Since: since}, " (for 4s)"},
		{state.Deadlock{Since: since, FirstSeen: true}, " (seen for 4s)"},
		{state.Deadlock{Since: since, FirstSeen: true, BeforeWatching: true}, " (formed before proftop attached; seen for 4s)"},
		{state.Deadlock{Since: clock, FirstSeen: true, BeforeWatching: true}, " (formed before proftop attached)"},
		{state.Deadlock{Since: clock}, ""},
	}
	for _, c := range cases {
		if got := deadlockAge(&c.d, clock); got != c.want {
			t.Errorf("%+v: %q, want %q", c.d, got, c.want)
		}
	}
}
