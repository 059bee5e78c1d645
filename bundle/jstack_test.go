package bundle

import (
	"testing"

	"github.com/proftop/proftop/state"
)

// Frames as jstack prints them: a native method's (line -2, as Java gives
// it) says so, where it read "Unknown Source".
func TestFrameLinesAsJstack(t *testing.T) {
	for _, c := range []struct {
		frame state.Frame
		want  string
	}{
		{state.Frame{Method: "java.lang.Thread.sleep", Line: -2}, "\tat java.lang.Thread.sleep(Native Method)"},
		{state.Frame{Method: "com.acme.Lazy.run", Line: -1}, "\tat com.acme.Lazy.run(Unknown Source)"},
		{state.Frame{Method: "com.acme.Shop$Cart.add", Line: 42}, "\tat com.acme.Shop$Cart.add(Shop.java:42)"},
	} {
		if got := frameLine(c.frame); got != c.want {
			t.Errorf("%+v: %q, want %q", c.frame, got, c.want)
		}
	}
}
