package state

import "time"

// Summary is one JVM in a line: what the fleet overview shows of it, read
// from a snapshot of its aggregator.
type Summary struct {
	Process Process `json:"process"`
	Events  int64   `json:"events"`  // applied so far
	Streams int     `json:"streams"` // connections that streamed
	// Clock is the latest event time, the trace's "now" (zero before any).
	Clock  time.Time     `json:"traceTime,omitzero"`
	Window time.Duration `json:"windowNs"` // the span of the GC share and the top method
	// Threads is the threads alive now; Blocked those held up by a lock
	// now: blocked on a monitor or parked on a java.util.concurrent lock
	// (not those waiting for a notification or a condition).
	Threads int `json:"threads"`
	Blocked int `json:"blocked"`
	// CPUPercent is the sum of the threads' CPU over the last 2 to 4 s:
	// 100 is one core, as top counts a process (the trace does not say
	// how many cores the JVM has). CPUKnown says some thread's share is
	// known (it takes two readings of its CPU time).
	CPUPercent float64 `json:"cpuPercent"`
	CPUKnown   bool    `json:"cpuKnown"`
	// GCPercent is the share of wall time spent in collections over the
	// window, or over the time watched when that is shorter (GC.PercentOver).
	GCPercent float64 `json:"gcPercent"`
	// TopMethod is the method with the most self time over the window, and
	// its share of all self time.
	TopMethod        string        `json:"topMethod,omitempty"`
	TopMethodPercent float64       `json:"topMethodPercent,omitempty"`
	TopMethodSelf    time.Duration `json:"topMethodSelfNs,omitempty"`
	// TopLock is the lock threads have spent the most time blocked on
	// (the Monitors pane's first row), with that time and how many are
	// blocked on it now.
	TopLock        string        `json:"topLock,omitempty"`
	TopLockBlocked time.Duration `json:"topLockBlockedNs,omitempty"`
	TopLockNow     int           `json:"topLockBlockedNow,omitempty"`
	Deadlocks      []Deadlock    `json:"deadlocks"`
}

// HasData says events have arrived.
func (s *Summary) HasData() bool { return s.Events > 0 }

// Summarize reads a snapshot (taken with Recent, for the window's
// figures) into a summary. It keeps nothing of the snapshot but strings
// and the deadlocks, so the snapshot can be released at once.
func Summarize(s *Snapshot) Summary {
	out := Summary{Process: s.Process, Events: s.Events, Streams: s.Streams, Clock: s.Clock, Window: s.Window,
		GCPercent: s.GC.Percent, Deadlocks: s.Deadlocks}
	for i := range s.Threads {
		t := &s.Threads[i]
		if t.State == ThreadEnded {
			continue
		}
		out.Threads++
		// A share is known from a thread's second CPU reading: before,
		// the sum would say 0 where nothing is known yet.
		if t.CPUPercent.Known() {
			out.CPUPercent += float64(t.CPUPercent)
			out.CPUKnown = true
		}
	}
	top := -1
	for i := range s.Methods {
		if top < 0 || s.Methods[i].Self > s.Methods[top].Self {
			top = i
		}
	}
	if top >= 0 && s.Methods[top].Self > 0 {
		m := &s.Methods[top]
		out.TopMethod, out.TopMethodPercent, out.TopMethodSelf = s.MethodName(m), s.Percent(m), m.Self
	}
	lock := -1
	for i := range s.Monitors {
		m := &s.Monitors[i]
		out.Blocked += contenders(m)
		if m.BlockedSum > 0 && (lock < 0 || m.BlockedSum > s.Monitors[lock].BlockedSum) {
			lock = i
		}
	}
	if lock >= 0 {
		m := &s.Monitors[lock]
		out.TopLock, out.TopLockBlocked, out.TopLockNow = MonitorName(m), m.BlockedSum, contenders(m)
	}
	return out
}

// contenders counts the threads blocked on (or parked on) a lock now, as
// opposed to those waiting on it for a notification.
func contenders(m *Monitor) (n int) {
	for i := range m.Waiters {
		if !m.Waiters[i].Waiting {
			n++
		}
	}
	return n
}

// Summary takes a snapshot of the window and summarizes it.
func (a *Aggregator) Summary(now time.Time) Summary {
	s := a.Snapshot(now, Query{Recent: true, CallersOf: -1})
	sum := Summarize(s)
	a.Release(s)
	return sum
}
