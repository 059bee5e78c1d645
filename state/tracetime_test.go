package state

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// On trace time (a recorded file), the methods' window is the last N
// seconds of the trace, however fast it is read, and stays there once it
// has been read: a snapshot taken a minute later still shows it. On the
// wall clock (a live source), methods that stop being called leave it.
func TestWindowOnTraceTime(t *testing.T) {
	start := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	at := func(s int) decode.Ticks { return decode.Ticks(start.Add(time.Duration(s) * time.Second).UnixNano()) }
	// get is called at 1 s and 2 s of the trace, load at 25 s and 28 s: 27 s of trace, read at once.
	events := append(defs(),
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 10, Ticket: 1, Time: at(1)},
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 1, Time: at(2)},
		&decode.MethodEntry{ThreadIDRef: 1, MethodIDRef: 11, Ticket: 2, Time: at(25)},
		&decode.MethodExit{ThreadIDRef: 1, Ticket: 2, Time: at(28)},
	)
	wall := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		traceTime bool
		later     time.Duration // when the snapshot is taken, after the events were applied
		want      string        // the methods in the window
	}{
		{"trace time, at once", true, 0, "com.acme.Cache.load"},
		{"trace time, a minute later", true, time.Minute, "com.acme.Cache.load"},
		{"wall clock, at once", false, 0, "com.acme.Cache.get com.acme.Cache.load"},
		{"wall clock, a minute later", false, time.Minute, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(Options{TraceTime: tc.traceTime})
			a.Apply(events, 1, decode.Clock{}, wall)
			s := a.Snapshot(wall.Add(tc.later), Query{Recent: true, CallersOf: -1})
			var names []string
			for i := range s.Methods {
				names = append(names, s.MethodName(&s.Methods[i]))
			}
			slices.Sort(names)
			if got := strings.Join(names, " "); got != tc.want {
				t.Fatalf("window holds %q, want %q", got, tc.want)
			}
		})
	}
}
