package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/state"
)

// A collection timed at 0 (rbkit stamps collections to the millisecond)
// reads as under a millisecond, not as no pause; with no pause seen at
// all, the pause is unknown.
func TestPausesShorterThanTheSourcesClock(t *testing.T) {
	st := PlainStyles()
	for _, c := range []struct {
		gc   state.GC
		want string
	}{
		{state.GC{Count: 3, Pauses: []time.Duration{0, 2 * time.Millisecond, 0}}, "last pause <1ms"},
		{state.GC{Count: 1, Pauses: []time.Duration{2 * time.Millisecond}, LastPause: 2 * time.Millisecond}, "last pause 2ms"},
		{state.GC{Count: 5}, "last pause –"},
	} {
		s := &state.Snapshot{GC: c.gc, Window: 10 * time.Second}
		if got := strings.Join(renderGC(s, 100, 8, &st, false), "\n"); !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q lacks %q", c.gc, got, c.want)
		}
	}
}
