package simulator

import (
	"time"

	"github.com/proftop/proftop/decode"
)

// The thread poll, as the JVM agent's: once a virtual second, every live
// thread's state, the lock it waits for and its owner, its CPU time and
// its stack, then the memory pools and the collectors' totals, and the
// telemetry (telemetry.go). A poll goes
// out a few threads per step, so that no ring of events overflows.

// pollChunk is how many threads one step of a poll reports.
const pollChunk = 32

// startPoll begins a poll: the memory pools and GC totals first.
func (w *World) startPoll() {
	w.nextPoll = w.now + decode.Ticks(w.cfg.PollEvery)
	w.pollAt, w.polled, w.polling = w.now, 0, 0
	w.reportMemory()
	w.reportTelemetry()
	w.pollThreads()
}

// pollThreads reports the next threads of the poll in progress, and closes
// it after the last.
func (w *World) pollThreads() {
	for n := 0; n < pollChunk && w.polling < len(w.threads); n++ {
		t := w.threads[w.polling]
		w.polling++
		if t.state == ended {
			continue
		}
		ts := w.pool.threadState.next()
		w.describe(ts, t)
		w.emit(ts)
		w.polled++
	}
	if w.polling < len(w.threads) {
		return
	}
	w.polling = -1
	tp := w.pool.threadPoll.next()
	*tp = decode.ThreadPoll{Time: w.pollAt, Threads: w.polled, Flags: decode.PollComplete}
	w.emit(tp)
}

// describe fills a thread's poll entry.
func (w *World) describe(ts *decode.ThreadState, t *thread) {
	st := ts.Stack
	*ts = decode.ThreadState{ThreadIDRef: t.id, Time: w.pollAt, State: decode.StateRunning, CPUTime: t.cpu, Stack: st}
	if t.kind == kindIdle {
		w.describeIdle(ts, t)
		return
	}
	switch t.state {
	case blocked:
		mon := &w.locks[t.onLock]
		ts.State, ts.LockObjIDRef, ts.LockClass = decode.StateBlocked, mon.obj, lockClass[t.onLock]
		if mon.owner >= 0 {
			ts.LockOwner = w.threads[mon.owner].id
		}
	case waiting:
		ts.State, ts.LockObjIDRef, ts.LockClass = decode.StateWaiting, w.locks[t.onLock].obj, lockClass[t.onLock]
		if t.waitTimeout > 0 {
			ts.State, ts.Flags = decode.StateTimedWaiting, decode.ThreadTimed
		}
	}
	w.fillStack(&ts.Stack, t, t.state == waiting)
}

// idleThread is what a JVM thread that never runs the service's code is
// seen doing: the usual suspects of a jstack.
type idleThread struct {
	state  string
	flags  int32
	parkOn string // the class of what it parks on, if it parks
	stack  []string
}

var idleThreads = map[string]idleThread{
	"main":                                       {state: decode.StateWaiting, parkOn: "java.lang.Thread", stack: []string{"java.lang.Object.wait", "java.lang.Thread.join", "com.acme.shop.Main.main"}},
	"Reference Handler":                          {state: decode.StateRunning, stack: []string{"java.lang.ref.Reference.waitForReferencePendingList", "java.lang.ref.Reference.processPendingReferences", "java.lang.ref.Reference$ReferenceHandler.run"}},
	"Signal Dispatcher":                          {state: decode.StateRunning},
	"Common-Cleaner":                             {state: decode.StateParked, flags: decode.ThreadTimed, parkOn: "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject", stack: []string{"jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.LockSupport.parkNanos", "java.lang.ref.ReferenceQueue.remove", "jdk.internal.ref.CleanerImpl.run"}},
	"C2 CompilerThread0":                         {state: decode.StateRunning},
	"C1 CompilerThread0":                         {state: decode.StateRunning},
	"Attach Listener":                            {state: decode.StateRunning},
	"http-nio-8080-Acceptor":                     {state: decode.StateNative, stack: []string{"sun.nio.ch.Net.accept", "sun.nio.ch.ServerSocketChannelImpl.implAccept", "org.apache.tomcat.util.net.Acceptor.run", "java.lang.Thread.run"}},
	"http-nio-8080-Poller":                       {state: decode.StateNative, stack: []string{"sun.nio.ch.EPoll.wait", "sun.nio.ch.EPollSelectorImpl.doSelect", "org.apache.tomcat.util.net.NioEndpoint$Poller.run", "java.lang.Thread.run"}},
	"HikariPool-1 housekeeper":                   {state: decode.StateParked, flags: decode.ThreadTimed, parkOn: "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject", stack: []string{"jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.LockSupport.parkNanos", "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.take", "java.lang.Thread.run"}},
	"kafka-producer-network-thread | producer-1": {state: decode.StateNative, stack: []string{"sun.nio.ch.EPoll.wait", "org.apache.kafka.common.network.Selector.poll", "org.apache.kafka.clients.producer.internals.Sender.run", "java.lang.Thread.run"}},
}

func (w *World) describeIdle(ts *decode.ThreadState, t *thread) {
	it, ok := idleThreads[t.name]
	if !ok {
		it = idleThread{state: decode.StateRunning}
	}
	ts.State, ts.Flags = it.state, it.flags
	if it.parkOn != "" {
		ts.LockObjIDRef, ts.LockClass = 0x7f4b_0000+t.id*0x40, it.parkOn
	}
	if t.name == "main" {
		ts.LockObjIDRef = 0x7e00_0000 + t.id*0x30 // joins the thread it started
	}
	ts.Stack.Methods, ts.Stack.Lines = ts.Stack.Methods[:0], ts.Stack.Lines[:0]
	for _, f := range it.stack {
		ts.Stack.Methods = append(ts.Stack.Methods, f)
		ts.Stack.Lines = append(ts.Stack.Lines, -1)
	}
}

// The simulated heap: eden fills between collections, what survives them
// goes to the old generation.
const (
	edenSize     = 512 << 20
	survivorSize = 32 << 20
	metaspace    = 96 << 20
)

// reportMemory sends the memory pools and the collectors' totals.
func (w *World) reportMemory() {
	filled := float64(w.now-w.lastGC) / float64(max(w.cfg.GCEvery, time.Millisecond))
	eden := int64(min(filled, 1) * edenSize)
	pools := []decode.MemoryPool{
		{Name: "G1 Eden Space", Heap: 1, Used: eden, Committed: edenSize, Max: -1},
		{Name: "G1 Survivor Space", Heap: 1, Used: survivorSize / 3, Committed: survivorSize, Max: -1},
		{Name: "G1 Old Gen", Heap: 1, Used: w.heapUsed, Committed: w.heapTotal - edenSize - survivorSize, Max: w.heapTotal},
		{Name: "Metaspace", Used: metaspace * 9 / 10, Committed: metaspace, Max: -1},
	}
	for _, p := range pools {
		mp := w.pool.memoryPool.next()
		*mp = p
		mp.Time = w.now
		w.emit(mp)
	}
	for _, c := range []struct {
		name  string
		count int64
		time  decode.Ticks
	}{{"G1 Young Generation", w.youngGCs, w.youngGCTime}, {"G1 Old Generation", w.fullGCs, w.fullGCTime}} {
		gt := w.pool.gcTotals.next()
		*gt = decode.GCTotals{Time: w.now, Collector: c.name, Count: c.count, TotalTime: c.time}
		w.emit(gt)
	}
}
