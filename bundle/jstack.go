package bundle

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/proftop/proftop/state"
	"github.com/proftop/proftop/tui"
)

// The thread dump in jstack's format: what tools that read jstack's output
// (thread-dump analysers, fastThread, grep) take. proftop knows less than
// jstack (no native ids, no priorities): what it does not know is left out,
// and where a lock's owner takes it is unknown, so owned locks are listed
// after the stack rather than at their frame.

// javaState is jstack's java.lang.Thread.State line for a state.
func javaState(t *state.Thread) string {
	switch t.State {
	case state.ThreadRunning, state.ThreadNative:
		return "RUNNABLE"
	case state.ThreadBlocked:
		return "BLOCKED (on object monitor)"
	case state.ThreadParked:
		if t.Timed {
			return "TIMED_WAITING (parking)"
		}
		return "WAITING (parking)"
	case state.ThreadWaiting:
		return "WAITING (on object monitor)"
	case state.ThreadTimedWaiting:
		return "TIMED_WAITING (on object monitor)"
	case state.ThreadSleeping:
		return "TIMED_WAITING (sleeping)"
	case state.ThreadUnknown:
		return "UNKNOWN (the trace ended)"
	}
	return "TERMINATED"
}

// nativeLine is the line Java gives a native method's frame
// (StackTraceElement.isNativeMethod), which jstack prints "Native Method".
const nativeLine = -2

// frameLine is a frame as jstack prints it: the source file is the class's
// (its outermost class) with .java, which is what javac names it.
func frameLine(f state.Frame) string {
	m := tui.Inert(f.Method)
	switch {
	case f.Line == nativeLine:
		return "\tat " + m + "(Native Method)"
	case f.Line <= 0:
		return "\tat " + m + "(Unknown Source)"
	}
	class := m
	if i := strings.LastIndexByte(class, '.'); i > 0 {
		class = class[:i]
	}
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		class = class[i+1:]
	}
	if i := strings.IndexByte(class, '$'); i > 0 {
		class = class[:i]
	}
	return fmt.Sprintf("\tat %s(%s.java:%d)", m, class, f.Line)
}

// lockLine says what a thread waits for, as jstack's "- waiting to lock" line.
func lockLine(t *state.Thread) string {
	if t.Monitor == 0 {
		return ""
	}
	what := "- waiting on"
	switch t.State {
	case state.ThreadBlocked:
		what = "- waiting to lock"
	case state.ThreadParked:
		what = "- parking to wait for "
	}
	class := t.LockClass
	if class == "" {
		class = "java.lang.Object"
	}
	return fmt.Sprintf("\t%s <0x%016x> (a %s)", what, t.Monitor, tui.Inert(class))
}

// WriteThreadDump writes every thread of a snapshot (taken with AllStacks)
// in jstack's format, then the deadlocks found in it.
func WriteThreadDump(w io.Writer, s *state.Snapshot, source string) error {
	var b strings.Builder
	at := s.Clock
	if at.IsZero() {
		at = s.Taken
	}
	fmt.Fprintf(&b, "%s\nFull thread dump (proftop, from %s", at.UTC().Format(time.DateTime), tui.Inert(source))
	if s.Process.PID != 0 {
		fmt.Fprintf(&b, ", pid %d", s.Process.PID)
	}
	if s.Polled {
		fmt.Fprintf(&b, "; states and stacks from the thread poll of %s", s.PolledAt.UTC().Format(time.TimeOnly))
	}
	b.WriteString("):\n\n")
	owned := map[int64][]*state.Monitor{}
	for i := range s.Monitors {
		if m := &s.Monitors[i]; m.Owner != 0 && m.Grouped == 0 {
			owned[m.Owner] = append(owned[m.Owner], m)
		}
	}
	for i := range s.Threads {
		t := &s.Threads[i]
		if t.State == state.ThreadEnded {
			continue
		}
		fmt.Fprintf(&b, "\"%s\" #%d", tui.Inert(t.Name), t.ID)
		if t.Daemon {
			b.WriteString(" daemon")
		}
		if t.CPUKnown {
			fmt.Fprintf(&b, " cpu=%.2fms", float64(t.CPU)/1e6)
		}
		if t.Started > 0 && !at.IsZero() {
			fmt.Fprintf(&b, " elapsed=%.2fs", at.Sub(time.Unix(0, t.Started)).Seconds())
		}
		b.WriteString("\n   java.lang.Thread.State: " + javaState(t) + "\n")
		for k, f := range t.Stack {
			b.WriteString(frameLine(f) + "\n")
			if k == 0 {
				if l := lockLine(t); l != "" {
					b.WriteString(l + "\n")
				}
			}
		}
		if len(t.Stack) == 0 {
			if l := lockLine(t); l != "" {
				b.WriteString(l + "\n")
			}
		}
		if ms := owned[t.ID]; len(ms) > 0 {
			b.WriteString("\n   Locks held:\n")
			for _, m := range ms {
				fmt.Fprintf(&b, "\t- <0x%016x> (a %s)\n", m.Object, tui.Inert(m.Class))
			}
		}
		b.WriteString("\n")
	}
	for i := range s.Deadlocks {
		writeDeadlock(&b, &s.Deadlocks[i], func(id int64) []state.Frame {
			for j := range s.Threads {
				if s.Threads[j].ID == id {
					return s.Threads[j].Stack
				}
			}
			return nil
		})
	}
	if len(s.Deadlocks) > 0 {
		fmt.Fprintf(&b, "Found %d deadlock(s).\n", len(s.Deadlocks))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeDeadlock writes a deadlock as jstack's "Found one Java-level
// deadlock" section.
func writeDeadlock(b *strings.Builder, d *state.Deadlock, stackOf func(int64) []state.Frame) {
	b.WriteString("Found one Java-level deadlock:\n=============================\n")
	n := len(d.Threads)
	for i := range d.Threads {
		fmt.Fprintf(b, "\"%s\":\n  waiting to lock monitor <0x%016x> (a %s),\n  which is held by \"%s\"\n", tui.Inert(d.Names[i]),
			d.Monitors[i], tui.Inert(d.Classes[i]), tui.Inert(d.Names[(i+1)%n]))
	}
	b.WriteString("\nJava stack information for the threads listed above:\n===================================================\n")
	for i, id := range d.Threads {
		fmt.Fprintf(b, "\"%s\":\n", tui.Inert(d.Names[i]))
		st := stackOf(id)
		for k, f := range st {
			b.WriteString(frameLine(f) + "\n")
			if k == 0 {
				fmt.Fprintf(b, "\t- waiting to lock <0x%016x> (a %s)\n", d.Monitors[i], tui.Inert(d.Classes[i]))
			}
		}
		if len(st) == 0 {
			b.WriteString("\t(no stack known)\n")
		}
		// What it holds: the lock the thread before it in the cycle waits
		// for. jstack says so at the frame that took it; which frame did
		// is not known here, so it is said after the stack.
		before := (i + n - 1) % n
		fmt.Fprintf(b, "\t- holds <0x%016x> (a %s), which \"%s\" is waiting to lock\n", d.Monitors[before],
			tui.Inert(d.Classes[before]), tui.Inert(d.Names[before]))
	}
	b.WriteString("\n")
}

// WriteDeadlocks writes every deadlock the history saw, with the stacks
// of its threads when it was first seen.
func WriteDeadlocks(w io.Writer, ds []state.DeadlockRecord) error {
	var b strings.Builder
	if len(ds) == 0 {
		b.WriteString("No deadlock was seen.\n")
	}
	for i := range ds {
		d := &ds[i]
		fmt.Fprintf(&b, "Deadlock %d of %d: first seen %s, last seen %s (wall clock)\n\n", i+1, len(ds),
			d.First.UTC().Format(time.DateTime), d.Last.UTC().Format(time.DateTime))
		writeDeadlock(&b, &d.Deadlock, func(id int64) []state.Frame {
			for j, t := range d.Threads {
				if t == id && j < len(d.Stacks) {
					return d.Stacks[j]
				}
			}
			return nil
		})
	}
	_, err := io.WriteString(w, b.String())
	return err
}
