package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/state"
)

// virtualJVM is an aggregator fed with a JVM of virtual threads as the
// agent reports one: a poll of the platform threads (two carriers, one
// running a virtual thread), a listing of the virtual threads (a few one
// by one, thousands in groups), their counts, a pinning and a note.
func virtualJVM(t testing.TB) *state.Aggregator {
	t.Helper()
	at := func(ms int) decode.Ticks {
		return decode.Ticks(t0.Add(time.Duration(ms) * time.Millisecond).UnixNano())
	}
	st := func(frames ...string) decode.Stack {
		var s decode.Stack
		for i, f := range frames {
			s.Methods = append(s.Methods, f)
			s.Lines = append(s.Lines, int64(40+i))
		}
		return s
	}
	const pool = "java.util.concurrent.ThreadPerTaskExecutor@5b6f7412"
	ledger := st("com.acme.shop.Ledger.post", "java.lang.VirtualThread.run")
	evs := []decode.Event{
		&decode.ThreadStart{ThreadID: 1, ThreadName: "main", GroupName: "main", Time: at(0)},
		&decode.ThreadStart{ThreadID: 21, ThreadName: "ForkJoinPool-1-worker-1", GroupName: "CarrierThreads", Time: at(0)},
		&decode.ThreadStart{ThreadID: 22, ThreadName: "ForkJoinPool-1-worker-2", GroupName: "CarrierThreads", Time: at(0)},
		&decode.ThreadState{ThreadIDRef: 1, Time: at(1000), State: "sleeping", CPUTime: 120_000_000, Stack: st("java.lang.Thread.sleep", "com.acme.shop.Main.main")},
		&decode.ThreadState{ThreadIDRef: 21, Time: at(1000), State: "running", Flags: decode.ThreadCarrier, CPUTime: 900_000_000, Carrier: 102,
			Stack: st("jdk.internal.vm.Continuation.run", "java.lang.VirtualThread.runContinuation")},
		&decode.ThreadState{ThreadIDRef: 22, Time: at(1000), State: "parked", Flags: decode.ThreadCarrier, CPUTime: 300_000_000,
			LockObjIDRef: 0x77, LockClass: "java.util.concurrent.ForkJoinPool", Stack: st("jdk.internal.misc.Unsafe.park", "java.util.concurrent.ForkJoinPool.awaitWork")},
		&decode.ThreadPoll{Time: at(1000), Threads: 3, Flags: decode.PollComplete},
		&decode.VirtualThreads{Time: at(1000), Count: 3190, Started: 41_000, Ended: 37_810},
		&decode.ThreadState{ThreadIDRef: 101, Time: at(1100), State: "sleeping", Flags: decode.ThreadVirtual | decode.ThreadTimed, CPUTime: -1,
			Stack: st("java.lang.Thread.sleep", "com.acme.shop.Ledger.post"), ThreadName: "ledger-owner", Container: pool},
		&decode.ThreadState{ThreadIDRef: 102, Time: at(1100), State: "running", Flags: decode.ThreadVirtual | decode.ThreadMounted, CPUTime: -1,
			Carrier: 21, Stack: ledger, Container: pool},
		&decode.ThreadState{ThreadIDRef: 103, Time: at(1100), State: "blocked", Flags: decode.ThreadVirtual, LockObjIDRef: 0x5f6cc0fb,
			LockClass: "com.acme.shop.Ledger", LockOwner: 101, CPUTime: -1, Stack: ledger, Container: pool},
		&decode.ThreadState{ThreadIDRef: 104, Time: at(1100), State: "blocked", Flags: decode.ThreadVirtual, LockObjIDRef: 0x5f6cc0fb,
			LockClass: "com.acme.shop.Ledger", LockOwner: 101, CPUTime: -1, Stack: ledger, Container: pool},
		&decode.ThreadGroup{Time: at(1100), Container: pool, State: "parked", Flags: decode.ThreadVirtual, LockObjIDRef: 0x39d1f20,
			LockClass: "java.util.concurrent.CountDownLatch$Sync", Count: 3110, Site: "com.acme.shop.OrderService.await",
			Stack: st("java.lang.VirtualThread.park", "java.util.concurrent.CountDownLatch.await", "com.acme.shop.OrderService.await")},
		&decode.ThreadGroup{Time: at(1100), Container: pool, State: "blocked", Flags: decode.ThreadVirtual, LockObjIDRef: 0x5f6cc0fb,
			LockClass: "com.acme.shop.Ledger", LockOwner: 101, Count: 74, Site: "com.acme.shop.Ledger.post", Stack: ledger},
		&decode.ThreadGroup{Time: at(1100), Container: "<root>", State: "sleeping", Flags: decode.ThreadVirtual | decode.ThreadMounted | decode.ThreadPinned,
			Count: 2, Site: "com.acme.shop.Native.call", Stack: st("java.lang.VirtualThread.parkOnCarrierThread", "com.acme.shop.Native.call")},
		&decode.VirtualThreads{Time: at(1100), Count: 3190, Started: 41_000, Ended: 37_810, Flags: decode.VirtualListing | decode.VirtualComplete,
			ListedAt: at(1100), Listed: 4, Groups: 3, Cost: 2_900_000_000, Period: 58_000_000_000},
		&decode.SourceNote{Time: at(1100), Topic: "virtual-threads", Level: 1,
			Text: "virtual threads: 3,190; listing them costs 2.9 s of CPU, so they are listed every 58 s (at most 5% of a core); their number stays live in between"},
		&decode.VirtualPinned{ThreadIDRef: 120, Time: at(1200), Duration: 240_000_000, Carrier: 22, Reason: "Native or VM frame on stack",
			Operation: "Object.wait", Stack: st("java.lang.VirtualThread.parkOnCarrierThread", "com.acme.shop.Native.call")},
		&decode.VirtualThreads{Time: at(3000), Count: 3210, Started: 42_000, Ended: 38_790, Flags: decode.VirtualEstimated,
			ListedAt: at(1100), Cost: 2_900_000_000, Period: 58_000_000_000},
	}
	agg := state.New(state.Options{})
	agg.Apply(evs, 1, decode.Clock{}, t0)
	return agg
}

// The Threads pane lists the platform threads, then the virtual threads
// in a handful of rows; the header says how often they are listed; a row
// opens on its threads.
func TestVirtualThreadsOnScreen(t *testing.T) {
	agg := virtualJVM(t)
	m := New(Config{Refresh: time.Second, Theme: ThemeDark}, &fakeSource{st: streamingStatus()}, agg)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	deliver(m, agg)
	screen := m.render()
	golden(t, "virtual-threads-120x30", screen)
	for _, want := range []string{"3,110 virtual", "OrderService.await", "runs virtual-102", "virtual ≈3,210 +500/s −490/s", "listed every 58 s", "pinned"} {
		if !strings.Contains(screen, want) {
			t.Errorf("no %q on the screen", want)
		}
	}
	press(m, "/", "v", "i", "r", "t", "u", "a", "l", "enter", "g", "enter")
	deliver(m, agg)
	golden(t, "virtual-group-drill-in-120x30", m.render())
}

// Text snapshots have the virtual threads too.
func TestVirtualThreadsInText(t *testing.T) {
	s := virtualJVM(t).Snapshot(t0, state.Query{CallersOf: -1})
	text := RenderText(s, streamingStatus(), 120, 20, false)
	// From the panes on: the header says when the text was made.
	golden(t, "virtual-threads-batch", text[strings.Index(text, "\nTHREADS"):])
}

// The filter finds a group by the name of a virtual thread it lists, not
// only by its state, container, lock class or method.
func TestVirtualThreadsFilteredByName(t *testing.T) {
	agg := virtualJVM(t)
	m := New(Config{Refresh: time.Second, Theme: ThemeDark}, &fakeSource{st: streamingStatus()}, agg)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	deliver(m, agg)
	press(m, "/", "l", "e", "d", "g", "e", "r", "-", "o", "w", "n", "enter")
	deliver(m, agg)
	screen := m.render()
	if !strings.Contains(screen, "sleeping") || strings.Contains(screen, "OrderService.await") || strings.Contains(screen, "ForkJoinPool-1-worker") {
		t.Fatalf("/ledger-own should keep the group of virtual thread ledger-owner alone:\n%s", screen)
	}
}

// A listing as old as the picture says so in words: "listed 0 ago" had no
// unit (JDK 25, no virtual threads: the listing takes no time).
func TestVirtualListingAge(t *testing.T) {
	st := PlainStyles()
	clock := time.Unix(1_000, 0)
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{clock, "  listed just now, 0 one by one"},
		{clock.Add(-2100 * time.Millisecond), "  listed 2.1s ago, 0 one by one"},
	} {
		s := &state.Snapshot{Clock: clock, Virtual: &state.VirtualSummary{ListedAt: tc.at, Started: -1}}
		text := ansi.Strip(strings.Join(virtualLines(s, &st), "\n"))
		if !strings.Contains(text, tc.want+"\n") && !strings.HasSuffix(text, tc.want) {
			t.Errorf("listed at %v: no %q in\n%s", clock.Sub(tc.at), tc.want, text)
		}
	}
}
