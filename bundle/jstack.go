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
// (thread-dump analysers: IntelliJ's, TDA, spotify's threaddump-analyzer;
// grep) take. proftop knows less than jstack (no native ids, no
// priorities, no object addresses) and what it knows of locks it knows by
// other numbers: the dump keeps jstack's shape where a tool reads it, and
// says so where what it writes is not what jstack's would be.

// maxIdentityHash is the largest identity hash (HotSpot's are 31 bits).
// proftop's JVM agent names a lock by its identity hash, and one it could
// not name by the address JFR gave it, kept above every identity hash
// (state's maxIdentityHash, Monitor.ByAddress).
const maxIdentityHash = 0x7fffffff

// lowAddressTag is the bit the agent sets on a JFR address no larger than
// an identity hash, to keep the two apart (agent's Contentions.unnamed):
// it is no part of the address.
const lowAddressTag = 1 << 62

// lockNames writes the numbers a source knows its locks by.
//
// jstack writes a lock as <0x%016x>, its object's address. proftop's JVM
// agent knows a lock by its identity hash (ThreadMXBean's LockInfo), which
// no jstack or jcmd of the JDK prints (jstack -l, -e, jcmd Thread.print
// -l: addresses only), so no number here can be looked up in a jstack
// dump. The lines keep jstack's shape, <0x…> (a Class), because the tools
// link waiters to owners by the text between < and > (spotify's reads
// [x0-9a-f]+ only, IntelliJ's and TDA's any text): a form of our own
// (<identity 0x…>) would cost a reader the tools' lock graph. What tells
// the numbers from jstack's is their length, the note under the dump's
// header and the Object.toString form it names: an identity hash is
// written as Object.toString, ThreadMXBean, jconsole and VisualVM write
// it, unpadded (java.lang.Object@58a166db is <0x58a166db>), never padded
// to the 16 digits of an address.
type lockNames struct {
	jvmAgent bool
}

// jfr says the agent knows the lock by JFR's address for it.
func (n lockNames) jfr(obj int64) bool { return n.jvmAgent && obj > maxIdentityHash }

// id is a lock's number as it goes between < and >: JFR's addresses as
// jstack pads addresses (16 digits), every other number unpadded.
func (n lockNames) id(obj int64) string {
	if n.jfr(obj) {
		addr := uint64(obj)
		if addr&lowAddressTag != 0 && addr&^lowAddressTag <= maxIdentityHash {
			addr &^= lowAddressTag
		}
		return fmt.Sprintf("0x%016x", addr)
	}
	return fmt.Sprintf("0x%x", uint64(obj))
}

// lock is a lock as jstack writes it after its verb: <0x…> (a Class).
func (n lockNames) lock(obj int64, class string) string {
	if class == "" {
		class = "java.lang.Object"
	}
	return "<" + n.id(obj) + "> (a " + tui.Inert(class) + ")"
}

// note says what the numbers between < and > are, for the lines between
// the "Full thread dump" line and the first thread. The tools skip what
// is there (jstack writes its SMR info there), but TDA fails on a line
// there holding "at " or "- " (it takes it for a frame or a lock of no
// thread), and IntelliJ's stops at "Java-level deadlock": the note has
// none of these (TestThreadDumpNoteReadsAsNothing).
func (n lockNames) note(s *state.Snapshot) string {
	identity, jfr := int64(0), false
	identityClass := ""
	see := func(obj int64, class string) {
		switch {
		case obj == 0:
		case n.jfr(obj):
			jfr = true
		case identity == 0:
			identity, identityClass = obj, class
		}
	}
	for i := range s.Threads {
		if t := &s.Threads[i]; t.State != state.ThreadEnded {
			see(t.Monitor, t.LockClass)
		}
	}
	for i := range s.Monitors {
		if m := &s.Monitors[i]; m.Owner != 0 && m.Grouped == 0 {
			see(m.Object, m.Class)
		}
	}
	for i := range s.Deadlocks {
		for j, obj := range s.Deadlocks[i].Monitors {
			see(obj, s.Deadlocks[i].Classes[j])
		}
	}
	if identity == 0 && !jfr {
		return ""
	}
	var b strings.Builder
	if !n.jvmAgent {
		b.WriteString("Locks are named by the ids the trace gives its objects, not by object addresses as in jstack.\n")
		return b.String()
	}
	if identity != 0 {
		class := identityClass
		if class == "" {
			class = "java.lang.Object"
		}
		class = tui.Inert(class)
		b.WriteString("Locks are named by identity hash (System.identityHashCode), as ThreadMXBean, jconsole and\n")
		fmt.Fprintf(&b, "VisualVM name them, not by the object addresses jstack prints: <0x%x> (a %s) is %s@%x.\n",
			identity, class, class, identity)
		b.WriteString("No jstack or jcmd option prints identity hashes: match a lock with jstack's by thread, frame and class.\n")
	}
	if jfr {
		b.WriteString("Locks of 16 hex digits are addresses JFR gave locks proftop could not name: for a monitor, the\n")
		b.WriteString("JVM's monitor structure, never the object; for a park, the object's address when JFR saw it,\n")
		b.WriteString("which jstack's matches only if no collection has moved the object since.\n")
	}
	return b.String()
}

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

// headerState is what jstack's thread line says after the ids: HotSpot's
// words for the thread's state (JDK 17: a sleep is "waiting on condition",
// as a park is).
func headerState(t *state.Thread) string {
	switch t.State {
	case state.ThreadRunning, state.ThreadNative:
		return "runnable"
	case state.ThreadBlocked:
		return "waiting for monitor entry"
	case state.ThreadParked, state.ThreadSleeping:
		return "waiting on condition"
	case state.ThreadWaiting, state.ThreadTimedWaiting:
		return "in Object.wait()"
	}
	return "state unknown"
}

// threadLine is jstack's first line of a thread, with what proftop knows:
//
//	"main" #1 daemon prio=? cpu=322.38ms elapsed=3.81s Id=1 waiting on condition
//
// jstack's also has os_prio, tid (the JavaThread's address), nid (the OS
// thread's id) and the stack's address, which proftop does not know and
// leaves out. Two fields stand in for what the tools need of them:
// spotify's analyser takes a line beginning with a quote and holding no
// "prio=" for the first part of a thread name broken over lines, and
// joins every line after it to it (the whole dump, here); IntelliJ's
// takes a thread's line only with "tid=" or "Id=N". So the priority is
// written unknown, prio=?, and the thread's id a second time as Id=N,
// ThreadInfo.toString's name for it, rather than a tid= that would be
// taken for an address (TDA parses tid= as hexadecimal, and fails on
// anything else).
func threadLine(t *state.Thread, at time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\"%s\" #%d", tui.Inert(t.Name), t.ID)
	if t.Daemon {
		b.WriteString(" daemon")
	}
	b.WriteString(" prio=?")
	if t.CPUKnown {
		fmt.Fprintf(&b, " cpu=%.2fms", float64(t.CPU)/1e6)
	}
	if t.Started > 0 && !at.IsZero() {
		fmt.Fprintf(&b, " elapsed=%.2fs", at.Sub(time.Unix(0, t.Started)).Seconds())
	}
	fmt.Fprintf(&b, " Id=%d %s", t.ID, headerState(t))
	return b.String()
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

// lockLine says what a thread waits for, as jstack's line under its top
// frame: "- waiting to lock", "- waiting on" or "- parking to wait for"
// (with jstack's two spaces before the lock, which IntelliJ's analyser
// looks for).
func lockLine(t *state.Thread, names lockNames) string {
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
	return "\t" + what + " " + names.lock(t.Monitor, t.LockClass)
}

// heldHeader heads the monitors a thread holds. jstack writes
// "- locked <…>" under the frame that took a monitor; the snapshot does
// not say which frame did (state.Monitor has no depth), and a "- locked"
// line after the stack would be read as the last frame's by whoever reads
// it (and its lock as a classic monitor of that frame). So they are
// listed after the stack, under a heading of their own, in the form
// jstack gives a held lock of no frame (its ownable synchronizers):
// spotify's analyser counts "- <…> (a …)" as held by the thread.
const heldHeader = "   Monitors held, in frames not known:"

// WriteThreadDump writes every thread of a snapshot (taken with AllStacks)
// in jstack's format, then the deadlocks found in it.
func WriteThreadDump(w io.Writer, s *state.Snapshot, source string) error {
	var b strings.Builder
	names := lockNames{jvmAgent: s.Process.Agent == state.JVMAgentName}
	at := s.Clock
	if at.IsZero() {
		at = s.Taken
	}
	// jstack's two lines: the time alone (tools match it as it is: no
	// zone after it, so the zone is said below), then "Full thread dump
	// NAME (…):", which the tools look for to find a dump (TDA: any line
	// holding "Full thread dump"). jstack's NAME is the VM's; this one
	// says who wrote it.
	fmt.Fprintf(&b, "%s\nFull thread dump by proftop (of %s", at.UTC().Format(time.DateTime), tui.Inert(source))
	if s.Process.PID != 0 {
		fmt.Fprintf(&b, ", pid %d", s.Process.PID)
	}
	b.WriteString("; times UTC")
	if s.Polled {
		fmt.Fprintf(&b, "; states and stacks from the thread poll of %s", s.PolledAt.UTC().Format(time.TimeOnly))
	}
	b.WriteString("):\n")
	b.WriteString(names.note(s))
	b.WriteString("\n")
	monitors := map[int64][]*state.Monitor{}
	synchronizers := map[int64][]*state.Monitor{}
	for i := range s.Monitors {
		m := &s.Monitors[i]
		switch {
		case m.Owner == 0 || m.Grouped != 0:
		case m.Synchronizer:
			synchronizers[m.Owner] = append(synchronizers[m.Owner], m)
		default:
			monitors[m.Owner] = append(monitors[m.Owner], m)
		}
	}
	for i := range s.Threads {
		t := &s.Threads[i]
		if t.State == state.ThreadEnded {
			continue
		}
		b.WriteString(threadLine(t, at) + "\n")
		b.WriteString("   java.lang.Thread.State: " + javaState(t) + "\n")
		for k, f := range t.Stack {
			b.WriteString(frameLine(f) + "\n")
			if k == 0 {
				if l := lockLine(t, names); l != "" {
					b.WriteString(l + "\n")
				}
			}
		}
		if len(t.Stack) == 0 {
			if l := lockLine(t, names); l != "" {
				b.WriteString(l + "\n")
			}
		}
		if ms := monitors[t.ID]; len(ms) > 0 {
			b.WriteString("\n" + heldHeader + "\n")
			for _, m := range ms {
				b.WriteString("\t- " + names.lock(m.Object, m.Class) + "\n")
			}
		}
		// A java.util.concurrent lock it owns is what jstack -l lists as
		// such, with no frame either. Where it owns none, jstack -l says
		// "- None"; proftop knows only the locks someone waited for, so it
		// says nothing.
		if ms := synchronizers[t.ID]; len(ms) > 0 {
			b.WriteString("\n   Locked ownable synchronizers:\n")
			for _, m := range ms {
				b.WriteString("\t- " + names.lock(m.Object, m.Class) + "\n")
			}
		}
		b.WriteString("\n")
	}
	for i := range s.Deadlocks {
		writeDeadlock(&b, &s.Deadlocks[i], names, func(id int64) []state.Frame {
			for j := range s.Threads {
				if s.Threads[j].ID == id {
					return s.Threads[j].Stack
				}
			}
			return nil
		})
	}
	writeDeadlockCount(&b, len(s.Deadlocks))
	_, err := io.WriteString(w, b.String())
	return err
}

// writeDeadlockCount ends the deadlocks as jstack does ("Found 1
// deadlock.", "Found 2 deadlocks."): TDA ends a deadlock at a line ending
// "deadlock." or "deadlocks.".
func writeDeadlockCount(b *strings.Builder, n int) {
	switch {
	case n == 1:
		b.WriteString("Found 1 deadlock.\n")
	case n > 1:
		fmt.Fprintf(b, "Found %d deadlocks.\n", n)
	}
}

// writeDeadlock writes a deadlock as jstack's "Found one Java-level
// deadlock" section. jstack names each lock "monitor ADDRESS (object
// ADDRESS, a Class)": the monitor's address is not known here, the
// object is named as in the threads.
func writeDeadlock(b *strings.Builder, d *state.Deadlock, names lockNames, stackOf func(int64) []state.Frame) {
	b.WriteString("Found one Java-level deadlock:\n=============================\n")
	n := len(d.Threads)
	for i := range d.Threads {
		class := d.Classes[i]
		if class == "" {
			class = "java.lang.Object"
		}
		fmt.Fprintf(b, "\"%s\":\n  waiting to lock monitor (object %s, a %s),\n  which is held by \"%s\"\n\n", tui.Inert(d.Names[i]),
			names.id(d.Monitors[i]), tui.Inert(class), tui.Inert(d.Names[(i+1)%n]))
	}
	b.WriteString("Java stack information for the threads listed above:\n===================================================\n")
	for i, id := range d.Threads {
		fmt.Fprintf(b, "\"%s\":\n", tui.Inert(d.Names[i]))
		st := stackOf(id)
		for k, f := range st {
			b.WriteString(frameLine(f) + "\n")
			if k == 0 {
				b.WriteString("\t- waiting to lock " + names.lock(d.Monitors[i], d.Classes[i]) + "\n")
			}
		}
		if len(st) == 0 {
			b.WriteString("\t(no stack known)\n")
		}
		// What it holds: the lock the thread before it in the cycle waits
		// for. jstack says so at the frame that took it ("- locked");
		// which frame did is not known here, so it is said after the
		// stack, in words of our own.
		before := (i + n - 1) % n
		fmt.Fprintf(b, "\t- holds %s, which \"%s\" is waiting to lock\n", names.lock(d.Monitors[before], d.Classes[before]),
			tui.Inert(d.Names[before]))
	}
	b.WriteString("\n")
}

// WriteDeadlocks writes every deadlock the history saw, with the stacks
// of its threads when it was first seen. Its locks are named as the
// JVM agent names them when the numbers say so: a record does not say
// its source.
func WriteDeadlocks(w io.Writer, ds []state.DeadlockRecord) error {
	var b strings.Builder
	if len(ds) == 0 {
		b.WriteString("No deadlock was seen.\n")
	} else {
		b.WriteString("Locks are named by the numbers proftop knows them by (from its JVM agent, identity hashes,\n" +
			"as Object.toString writes them), not by the object addresses jstack prints.\n\n")
	}
	for i := range ds {
		d := &ds[i]
		fmt.Fprintf(&b, "Deadlock %d of %d: first seen %s, last seen %s (wall clock)\n\n", i+1, len(ds),
			d.First.UTC().Format(time.DateTime), d.Last.UTC().Format(time.DateTime))
		writeDeadlock(&b, &d.Deadlock, lockNames{}, func(id int64) []state.Frame {
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
