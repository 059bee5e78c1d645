package state

import (
	"strconv"
	"sync"
	"time"

	"github.com/proftop/proftop/decode"
)

// Options bound the aggregator's memory and set its window.
type Options struct {
	// Window is the "last N seconds" of the recent view (default 10 s).
	Window time.Duration
	// EndedRetention is how long an ended thread stays listed (default 60 s).
	EndedRetention time.Duration
	// MaxEndedThreads bounds the ended threads kept (default 10,000).
	MaxEndedThreads int
	// MaxMonitors bounds the monitors kept; idle ones go first (default 10,000).
	MaxMonitors int
	// MaxMethods bounds the methods kept (default 200,000).
	MaxMethods int
	// History is how many GC pauses and heap samples are kept (default 300).
	History int
	// MaxThreads bounds the live threads kept, and the threads of one
	// poll (default 50,000).
	MaxThreads int
	// MaxTrackedObjects bounds the live objects whose class is remembered
	// to attribute their frees (default 1,000,000); MaxClasses the classes
	// of the Objects pane (default 20,000).
	MaxTrackedObjects int
	MaxClasses        int
	// MaxRecentAllocations bounds the latest allocations whose class is
	// remembered to name the monitors they become (default 65,536).
	MaxRecentAllocations int
	// TelemetryWindow is how long telemetry series keep every point
	// (default 5 min); older points are kept downsampled, within
	// TelemetryMemory bytes for MaxSeries series (defaults 32 MiB, 512).
	TelemetryWindow time.Duration
	TelemetryMemory int64
	MaxSeries       int
	// MaxVirtualListed bounds the virtual threads of a listing kept one
	// by one (default 5,000); the others are counted in groups, of which
	// MaxVirtualGroups are kept (default 1,000).
	MaxVirtualListed int
	MaxVirtualGroups int
	// MaxTreeNodes bounds the nodes of the call tree (default 200,000,
	// about 18 MB at most); stacks beyond are cut, and counted.
	MaxTreeNodes int
	// NoCallTree keeps no call tree: nothing will read it (a batch run's
	// text and JSON show none, and it keeps no history and writes no
	// bundle). Building it was a third of aggregating a wide trace.
	NoCallTree bool
	// TraceTime runs the window of the methods and the call tree on the
	// trace's time (a recorded file): its now is the latest event's, so
	// that a replay that has ended keeps showing the window that ends
	// with the recording. Else it runs on the wall clock (a live source:
	// methods that stop being called leave it).
	TraceTime bool
}

func (o Options) withDefaults() Options {
	if o.Window <= 0 {
		o.Window = 10 * time.Second
	}
	if o.EndedRetention <= 0 {
		o.EndedRetention = time.Minute
	}
	if o.MaxEndedThreads <= 0 {
		o.MaxEndedThreads = 10_000
	}
	if o.MaxMonitors <= 0 {
		o.MaxMonitors = 10_000
	}
	if o.History <= 0 {
		o.History = 300
	}
	if o.MaxThreads <= 0 {
		o.MaxThreads = 50_000
	}
	if o.MaxMethods <= 0 {
		o.MaxMethods = 200_000
	}
	if o.MaxTrackedObjects <= 0 {
		o.MaxTrackedObjects = 1_000_000
	}
	if o.MaxClasses <= 0 {
		o.MaxClasses = 20_000
	}
	if o.MaxRecentAllocations <= 0 {
		o.MaxRecentAllocations = 1 << 16
	}
	if o.TelemetryWindow <= 0 {
		o.TelemetryWindow = 5 * time.Minute
	}
	if o.TelemetryMemory <= 0 {
		o.TelemetryMemory = 32 << 20
	}
	if o.MaxSeries <= 0 {
		o.MaxSeries = 512
	}
	if o.MaxVirtualListed <= 0 {
		o.MaxVirtualListed = 5_000
	}
	if o.MaxVirtualGroups <= 0 {
		o.MaxVirtualGroups = 1_000
	}
	if o.MaxTreeNodes <= 0 {
		o.MaxTreeNodes = 200_000
	}
	return o
}

// Aggregator turns events into the live picture. Apply feeds it (from one
// goroutine); Snapshot may be called from any goroutine. Its memory grows
// with the number of threads, methods and monitors, never with the number
// of events.
type Aggregator struct {
	mu   sync.Mutex
	opts Options

	stream int
	clock  decode.Clock
	events int64
	latest int64 // latest event time, ns since the epoch
	first  int64 // earliest event time, ns since the epoch (0: none yet)
	// streamEvents says the stream has had an event beyond the thread
	// starts it may begin with.
	streamEvents bool

	threads  threadTable
	methods  methodTable
	monitors monitorTable
	classes  map[int64]string // class id -> name, for the current stream
	gc       gcState
	objects  objectTable
	deadlog  deadlockLog
	// deadlocksAt is the trace time deadlocks were last looked for;
	// eventAt the time of the latest event applied that had one;
	// deadlocksDirty says an event since may have changed who owns or
	// waits for a lock (else looking again finds what was found).
	deadlocksAt, eventAt int64
	deadlocksDirty       bool
	// warmSink keeps what warm read, so that its reads are not left out.
	warmSink int64
	// onTrace takes a recording's pictures on its own time (RecordOnTraceTime).
	onTrace *traceRecording
	// The deadlocks a snapshot found, and the generation of the locks'
	// changes (locksGen and the monitors') they were found at: the next
	// snapshot finds the same while nothing changed.
	locksGen      uint64
	deadlocksSeen deadlocksFound
	telemetry     telemetryTable
	probes        probeTable
	coverage      coverageTable
	tree          stackTree // the call tree (stacktree.go)
	// leftTrees are the origins of the trees restarts replaced whose
	// shapes are kept (treeorigin.go), oldest first.
	leftTrees []*treeOrigin
	cost      costState // what watching costs the JVM (agentcost.go)
	process   Process
	processID string // what the source calls the process (ProcessCreate's), to tell a restart under the same pid
	unpaired  int64
	resetAt   time.Time // the latest Reset, wall clock
	resetNs   int64     // and in trace time (0: none)

	// The present of a polled source (present.go, episodes.go).
	polled    bool // the stream sends thread polls
	polledAt  int64
	pollMark  uint32
	poll      pollBuffer
	badStates int64 // thread states of a name this aggregator does not know
	// The threads of the latest poll the picture leaves out (a full table).
	pollUntracked int64
	// Virtual threads (virtual.go), and the contentions reported of
	// threads no poll lists (virtual ones), which count for their locks.
	virtual   virtualTable
	strangers map[int64]histOpen

	// Tables of released snapshots, for the next ones to reuse.
	freeMethods []methodBuffer
	freeThreads []threadRows
	// Released monitor rows, object classes and their histories, as the
	// threads: a snapshot of a thousand monitors and two thousand classes
	// otherwise allocates most of a megabyte.
	freeMonitors  [][]Monitor
	freeClasses   [][]ObjectClass
	freeHistories [][]int64
}

// New returns an empty aggregator.
func New(opts Options) *Aggregator {
	opts = opts.withDefaults()
	a := &Aggregator{opts: opts}
	a.makeTables()
	return a
}

// makeTables makes every table empty: New's, and Restart's again.
func (a *Aggregator) makeTables() {
	o := &a.opts
	a.threads = threadTable{}
	a.threads.init(o.MaxThreads)
	a.virtual = virtualTable{}
	a.virtual.init()
	a.methods = methodTable{}
	a.methods.init(o.Window, o.MaxMethods)
	a.monitors = monitorTable{}
	a.monitors.init(o.MaxMonitors, o.MaxRecentAllocations)
	a.gc = gcState{}
	a.gc.init(o.History)
	a.objects = objectTable{}
	a.objects.init(o.Window, o.MaxTrackedObjects, o.MaxClasses)
	a.telemetry = telemetryTable{}
	a.telemetry.init(o.TelemetryWindow, o.TelemetryMemory, o.MaxSeries)
	a.probes = probeTable{}
	a.probes.init()
	a.coverage = coverageTable{}
	a.coverage.init(o.MaxClasses)
	a.tree = stackTree{off: o.NoCallTree}
	a.tree.init(o.Window, o.MaxTreeNodes)
	a.classes, a.strangers = map[int64]string{}, map[int64]histOpen{}
}

// deadlockCheckEvery is how often, in trace time, Apply looks for
// deadlocks: one shorter than this may pass unseen between two snapshots.
const deadlockCheckEvery = 100 * time.Millisecond

// checkDeadlocks looks for deadlocks at the trace time of the event just
// applied. Not the latest time seen: a recording may begin with the
// definitions of threads that start later, stamped with their start.
func (a *Aggregator) checkDeadlocks() {
	a.deadlocksAt = a.eventAt
	if a.deadlocksDirty && len(a.monitors.byObj) > 0 {
		a.deadlocksDirty = false
		a.deadlog.update(a.monitors.deadlocks(&a.threads), time.Unix(0, a.eventAt))
	}
}

// Apply adds a run of events from one stream. now is the wall-clock time,
// which drives the recent window.
func (a *Aggregator) Apply(events []decode.Event, stream int, clock decode.Clock, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if stream != a.stream {
		a.newStream(stream)
	}
	a.clock = clock
	if !a.opts.TraceTime {
		a.rotate(now)
	}
	for i, ev := range events {
		if i%warmRun == 0 {
			a.warm(events[i:min(i+warmRun, len(events))])
		}
		a.apply(ev)
		// Deadlocks are looked for between snapshots too, every so often
		// in trace time: a replay reads minutes of trace between two
		// snapshots (in batches of any size), and a deadlock that came
		// and went in them would never be seen.
		if d := a.eventAt - a.deadlocksAt; d >= int64(deadlockCheckEvery) {
			a.checkDeadlocks()
		} else if d < -int64(deadlockCheckEvery) {
			a.deadlocksAt = a.eventAt // the trace went back (a new stream)
		}
	}
	a.events += int64(len(events))
	if a.threads.ended > 2*a.opts.MaxEndedThreads {
		// Threads that come and go faster than snapshots are taken.
		a.threads.expire(a.latest, a.opts.EndedRetention, a.opts.MaxEndedThreads)
	}
}

// applied is how many events have been applied, whether the windows run
// on trace time, and the latest event's time (zero before any).
func (a *Aggregator) applied() (events int64, traceTime bool, clock time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.latest > 0 {
		clock = time.Unix(0, a.latest)
	}
	return a.events, a.opts.TraceTime, clock
}

// newStream forgets what only made sense in the previous stream (ids,
// owners, open calls) and keeps every statistic.
func (a *Aggregator) newStream(stream int) {
	a.stream = stream
	a.streamEvents = false
	a.threads.endAll(a.latest)
	a.methods.newStream()
	a.monitors.newStream()
	clear(a.classes)
	a.objects.newStream()
	a.telemetry.newStream()
	a.gc.newStream()
	a.process.Exited = time.Time{} // a new stream: the process is back (or another one)
	a.locksChanged()
	a.polled, a.poll.entries, a.poll.overflow, a.pollUntracked = false, a.poll.entries[:0], 0, 0
	a.virtual.newStream()
	clear(a.strangers)
	for _, t := range a.threads.all {
		t.live, t.pending, t.hist = nil, nil, histOpen{}
	}
}

func (a *Aggregator) ns(t decode.Ticks) int64 { return a.clock.Nanos(t) }

// at records the latest event time seen, which moves a window that runs
// on trace time.
func (a *Aggregator) at(t decode.Ticks) int64 {
	n := a.clock.Nanos(t)
	a.eventAt = n
	if n > a.latest {
		prev := a.latest
		a.latest = n
		if a.opts.TraceTime && (n >= a.methods.dueNs || n >= a.tree.dueNs) {
			// A recording read at once passes its seconds between two
			// snapshots: the threads' CPU is marked as they pass, at the
			// latest event before this one, up to which it is whole.
			if prev != 0 {
				a.threads.mark(prev)
			}
			a.rotate(time.Unix(0, n))
		}
	}
	if a.first == 0 {
		// Watching began with the first dated event to arrive, not the
		// earliest dated: an event of a wait or a contention is dated by
		// its start, which may be a minute before watching began (a
		// thread waiting when proftop attached), and the call tree's and
		// the GC's time since the start would count that minute.
		a.first = n
	}
	a.streamEvents = true
	return n
}

// rotate closes the seconds of the windows (methods, call tree) that have
// passed by now.
func (a *Aggregator) rotate(now time.Time) {
	a.methods.rotate(now)
	a.tree.rotate(now)
}

// windowNow is the now of the windows: the wall clock's, or, on trace
// time, the latest event's (zero before any: nothing to rotate).
func (a *Aggregator) windowNow(wall time.Time) time.Time {
	if !a.opts.TraceTime {
		return wall
	}
	if a.latest == 0 {
		return time.Time{}
	}
	return time.Unix(0, a.latest)
}

func (a *Aggregator) apply(ev decode.Event) {
	switch e := ev.(type) {
	case *decode.MethodEntry:
		t := a.threads.get(e.ThreadIDRef, a.stream)
		now := a.at(e.Time)
		if t != nil && t.ownsByDepth {
			a.locksChanged() // back as deep as it held a monitor: its owner again
		}
		if t == nil || t.state == ThreadEnded {
			return
		}
		slot := a.methods.byID(e.MethodIDRef) // -1, not tracked: the call is kept for the pairing only
		caller := int32(-1)
		if n := len(t.calls); n > 0 {
			caller = t.calls[n-1].slot
		}
		a.methods.called(slot, caller, 1)
		if e.ThreadCPUTime > 0 {
			a.threads.readCPU(t, int64(a.clock.Duration(e.ThreadCPUTime)), now)
		}
		node, cut := a.tree.enter(t, slot)
		t.push(openCall{ticket: e.Ticket, slot: slot, start: now, cpuStart: t.cpuMark(), node: node, cut: cut})
	case *decode.MethodExit:
		t := a.threads.get(e.ThreadIDRef, a.stream)
		if t != nil && t.ownsByDepth {
			a.locksChanged() // a synchronized frame it holds a monitor in may be gone
		}
		now := a.at(e.Time)
		if t == nil {
			return
		}
		if e.ThreadCPUTime > 0 {
			a.threads.readCPU(t, int64(a.clock.Duration(e.ThreadCPUTime)), now)
		}
		c, ok := t.pop(e.Ticket)
		if !ok {
			a.unpaired++
			return
		}
		dur := max(now-c.start, 0) // timestamps may step back a little
		self := max(dur-c.child, 0)
		if n := len(t.calls); n > 0 {
			t.calls[n-1].child += dur
		}
		cpu := int64(-1)
		if e.ThreadCPUTime > 0 && c.cpuStart >= 0 {
			cpu = max(t.cpu-c.cpuStart, 0)
		}
		if c.slot >= 0 {
			total, totalCPU := max(dur-c.credited, 0), cpu
			if c.inner {
				// A recursive call: its time is inside the outermost one's,
				// of which its own time counts now.
				total, totalCPU = self, min(cpu, 0)
				t.creditOutermost(c.slot, self)
			}
			a.methods.record(c.slot, 1, self, total, dur, dur, totalCPU)
		}
		a.tree.exit(&c, self)
	case *decode.AgMethodEntry:
		t := a.threads.get(e.ThreadIDRef, a.stream)
		if t == nil || e.NumCalls <= 0 {
			return
		}
		slot := a.methods.byID(e.MethodIDRef)
		if slot < 0 {
			return
		}
		measured := func(v decode.Ticks) int64 {
			if v < 0 {
				return -1
			}
			return int64(a.clock.Duration(v))
		}
		cpu := measured(e.BaseCPUTime)
		if cpu > 0 {
			t.cpuKnown = true
			t.cpu += cpu
		}
		a.methods.record(slot, e.NumCalls, max(measured(e.BaseTime), 0), -1, measured(e.MinTime), measured(e.MaxTime), cpu)
	case *decode.MonContendedEnter:
		a.locksChanged()
		now := a.at(e.Time)
		if a.polled {
			a.historyBegins(a.threads.lookup(e.ThreadIDRef), e.ThreadIDRef, e.ObjIDRef, false, now, &e.Stack)
			break
		}
		t := a.threads.get(e.ThreadIDRef, a.stream)
		if t == nil {
			return // not tracked: counted as such
		}
		if t.predates(now) {
			t.beginLate(now, e.ObjIDRef, false)
			break
		}
		var owner *thread
		if e.ThreadOwner != 0 {
			owner = a.threads.get(e.ThreadOwner, a.stream)
		}
		t.setStack(&e.Stack)
		a.monitors.detach(t)
		t.block(now, e.ObjIDRef)
		a.monitors.contend(e.ObjIDRef, t, owner, now)
	case *decode.MonContendedEntered:
		a.locksChanged()
		now := a.at(e.Time)
		if a.polled {
			a.historyEnds(a.threads.lookup(e.ThreadIDRef), e.ThreadIDRef, e.ObjIDRef, false, now)
			break
		}
		t := a.threads.get(e.ThreadIDRef, a.stream)
		if t == nil {
			return // not tracked: counted as such
		}
		if d, late := t.endLate(now, e.ObjIDRef, false); late {
			a.monitors.lateEntered(e.ObjIDRef, now, d)
			break
		}
		t.setStack(&e.Stack)
		if t.monitor != e.ObjIDRef {
			a.monitors.detach(t)
		}
		waited := t.unblock(now)
		a.monitors.entered(e.ObjIDRef, t, now, waited)
	case *decode.MonWait:
		a.locksChanged()
		now := a.at(e.Time)
		if a.polled {
			a.historyBegins(a.threads.lookup(e.ThreadIDRef), e.ThreadIDRef, e.ObjIDRef, true, now, &e.Stack)
			break
		}
		t := a.threads.get(e.ThreadIDRef, a.stream)
		if t == nil {
			return // not tracked: counted as such
		}
		if t.predates(now) {
			t.beginLate(now, e.ObjIDRef, true)
			break
		}
		t.setStack(&e.Stack)
		a.monitors.detach(t)
		t.wait(now, e.ObjIDRef, e.Timeout)
		a.monitors.wait(e.ObjIDRef, t, now)
	case *decode.MonWaited:
		a.locksChanged()
		now := a.at(e.Time)
		if a.polled {
			a.historyEnds(a.threads.lookup(e.ThreadIDRef), e.ThreadIDRef, e.ObjIDRef, true, now)
			break
		}
		t := a.threads.get(e.ThreadIDRef, a.stream)
		if t == nil {
			return // not tracked: counted as such
		}
		if _, late := t.endLate(now, e.ObjIDRef, true); late {
			a.monitors.lateWaited(e.ObjIDRef, now)
			break
		}
		t.setStack(&e.Stack)
		t.unwait(now)
		a.monitors.waited(e.ObjIDRef, t, now)
	case *decode.ThreadState:
		a.locksChanged()
		if isVirtualState(e) {
			a.addVirtual(e)
		} else {
			a.addThreadState(e)
		}
	case *decode.ThreadGroup:
		a.addThreadGroup(e)
	case *decode.VirtualThreads:
		a.virtualCounts(e)
	case *decode.VirtualPinned:
		a.virtualPinned(e)
	case *decode.SourceNote:
		a.sourceNote(e)
	case *decode.ThreadPoll:
		a.locksChanged()
		a.applyPoll(e)
	case *decode.Sample:
		a.at(e.Time)
		if e.Flags&decode.SampleCalls != 0 {
			n := treeNodeOf(e, func(t decode.Ticks) int64 { return int64(a.clock.Duration(t)) })
			if e.Flags&decode.SampleUnprofiled != 0 {
				// Time in callees the source did not profile: for the call
				// tree (under the method that spent it), not a method of its own.
				a.methods.frameSlots(&e.Stack, true)
			} else {
				a.methods.callTreeNode(&e.Stack, n)
			}
			if len(e.Stack.Methods) > 0 {
				// The node's path, as callTreeNode left it, is a stack of the call tree too.
				a.tree.addStack(a.threads.get(e.ThreadIDRef, a.stream), a.methods.stackBuf, n.self, n.calls)
			}
			break
		}
		n, w := max(e.Count, 1), max(int64(a.clock.Duration(e.Weight)), 0)
		a.methods.sample(&e.Stack, n, w, e.Flags&decode.SampleFirstLines != 0)
		// A polled source's sample of a thread no poll lists (a virtual
		// thread) counts for its methods only.
		t := a.threads.lookup(e.ThreadIDRef)
		if t == nil && !a.polled {
			t = a.threads.get(e.ThreadIDRef, a.stream)
		}
		if t == nil {
			break
		}
		if len(e.Stack.Methods) > 0 {
			if e.Flags&decode.SampleAggregate == 0 {
				t.sampleTop = e.Stack.Methods[0]
				if !a.polled {
					t.sampled = framesOf(&e.Stack) // a poll's stack is the present, else the latest sample's
				}
			}
			// A snapshot's sampler hits beside its measured call tree are a
			// second view of the same calls: the call tree keeps the first.
			if e.Flags&decode.SampleAggregate == 0 || !a.methods.measured {
				a.tree.addStack(t, a.methods.stackBuf, w, n)
			}
		}
		if e.Weight == 0 {
			a.threads.sampled(t, n)
		}
	case *decode.ThreadCPU:
		now := a.at(e.Time)
		if t := a.threads.get(e.ThreadIDRef, a.stream); t != nil && e.CPUTime >= 0 {
			a.threads.readCPU(t, int64(a.clock.Duration(e.CPUTime)), now)
		}
	case *decode.TraceEnd:
		a.at(e.Time)
		a.threads.traceEnded()
	case *decode.Coverage:
		a.coverage.add(e, a.at(e.Time))
	case *decode.Collection:
		end := a.at(e.Time)
		a.gc.collection(end, int64(a.clock.Duration(e.Pause)), e.Collector, e.Cause, e.UsedBefore, e.UsedAfter, e.Committed, e.Sequence)
	case *decode.GCTotals:
		a.gc.collectorTotals(a.at(e.Time), e.Collector, e.Count, int64(a.clock.Duration(e.TotalTime)))
	case *decode.MemoryPool:
		at := a.at(e.Time)
		a.gc.pool(at, e.Name, e.Heap == decode.PoolHeap, e.Used, e.Committed, e.Max)
		a.telemetry.pool(at, e.Name, e.Heap, e.Used, e.Committed)
	case *decode.TelemetrySeries:
		a.telemetry.declare(e)
	case *decode.TelemetryValue:
		a.telemetry.value(a.at(e.Time), e.Series, e.Value)
	case *decode.TelemetryProblem:
		at := int64(0) // a refusal before the stream began has no time
		if e.Time != 0 {
			at = a.at(e.Time)
		}
		a.telemetry.problem(at, e.Spec, e.Problem)
	case *decode.Probe:
		a.at(e.Time)
		a.probes.record(e, int64(a.clock.Duration(e.Total)), int64(a.clock.Duration(e.Max)))
	case *decode.RuntimeShutdown:
		a.locksChanged()
		now := a.at(e.Time)
		if !a.process.Exited.IsZero() && a.process.Exited.UnixNano() <= now {
			break // told twice in one stream (the agent, then the client finding the process gone): the first is when
		}
		a.process.Exited = time.Unix(0, now)
		for _, t := range a.threads.all {
			if t.stream == a.stream && t.state != ThreadEnded {
				a.endThread(t, now) // a process found gone may be told of long after
			}
		}
	case *decode.ThreadStart:
		// The definitions a stream begins with do not move the trace's
		// clock on: a bundle's stream (the last minutes, after the
		// definitions of what they refer to) gives first the starts of
		// threads that start minutes later, and the clock would read the
		// end of the recording from its first second — the JVM's uptime,
		// how long a deadlock has lasted, in the header and the banner.
		at := a.ns(e.Time)
		if a.streamEvents {
			at = a.at(e.Time)
		}
		a.threads.start(e, at, a.stream)
		if !a.process.Exited.IsZero() {
			// Told after the process said it shut down (a thread its
			// shutdown starts, a SIGTERM handler): it went with the
			// process, and would be listed running for ever.
			if t := a.threads.lookup(e.ThreadID); t != nil && t.state != ThreadEnded {
				a.endThread(t, max(at, a.process.Exited.UnixNano()))
			}
		}
		a.locksChanged() // a deadlock's names
	case *decode.ThreadEnd:
		a.locksChanged()
		now := a.at(e.Time)
		if t := a.threads.lookup(e.ThreadIDRef); t != nil {
			a.threadEnded(t, now)
		}
	case *decode.ClassDef:
		if _, ok := a.classes[e.ClassID]; ok || len(a.classes) < maxClasses {
			a.classes[e.ClassID] = e.Name
		}
		a.methods.classDefined(e.ClassID, e.Name)
		a.monitors.classDefined(e.ClassID, e.Name)
	case *decode.MethodDef:
		a.methods.define(e, a.classes)
	case *decode.ObjAlloc:
		a.monitors.classOf(e.ObjID, e.ClassIDRef)
		a.objects.allocated(e.ObjID, a.className(e.ClassIDRef), e.Size, a.at(e.Time))
	case *decode.ObjClass:
		a.monitors.classOf(e.ObjID, e.ClassIDRef) // a name, not an allocation
	case *decode.GCStart:
		a.gc.start(a.at(e.Time))
	case *decode.GCFinish:
		a.gc.finish(a.at(e.Time), e.UsedObjSpace, e.TotalObjSpace)
	case *decode.ObjFree:
		a.gc.freed++
		a.gc.freedKnown = true
		a.objects.freed(e.ObjIDRef, a.at(e.Time))
	case *decode.ObjectCensus:
		a.objects.counted(e.Census, a.at(e.Time), CensusRow{Class: e.Class, Site: e.Site, Count: e.Count, Bytes: e.Bytes, MaxCount: e.MaxCount})
	case *decode.Allocation:
		a.objects.sampled(e.Class, e.Count, e.Bytes, a.at(e.Time))
	case *decode.Node:
		a.process.Host = e.Hostname
	case *decode.ProcessCreate:
		if a.anotherProcess(e) {
			a.newProcess()
		}
		a.process.PID = e.PID
		a.process.Name = e.Name
		a.process.Started = time.Time{}
		if e.Time != 0 { // 0: the source does not say (rbkit)
			a.process.Started = time.Unix(0, a.ns(e.Time))
		}
		a.processID = e.ProcessID
	case *decode.AgentCreate:
		a.process.Agent, a.process.Version = e.AgentName, e.Version
	case *decode.AgentCost:
		a.agentCost(e)
	}
}

// Reset zeroes the statistics (method figures, contention counts, GC
// figures, thread counters) and keeps what is live: threads, owners, waiters.
func (a *Aggregator) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.resetAt, a.resetNs = time.Now(), a.latest
	a.methods.reset()
	a.monitors.reset()
	a.threads.reset(a.latest)
	a.gc.reset(a.latest)
	a.objects.reset()
	a.tree.reset()
	a.telemetry.reset()
	a.probes.reset()
	clear(a.virtual.pinning)
	a.unpaired = 0
}

// Release hands back a snapshot nobody will read again, so that the next
// snapshots reuse its tables instead of allocating: an interface that
// refreshes every 100 ms then makes no garbage worth speaking of.
func (a *Aggregator) Release(s *Snapshot) {
	if s == nil || s.picture {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.freeMethods) < 2 && s.Methods != nil && s.Page == nil {
		a.freeMethods = append(a.freeMethods, methodBuffer{rows: s.Methods, gen: s.gen, recent: s.Recent})
	}
	if len(a.freeThreads) < 2 && s.Threads != nil {
		// Kept as they are: the next snapshot makes again the rows that
		// changed (threadrows.go). What the rows point to (names, stacks)
		// is the threads' own, alive anyway.
		a.freeThreads = append(a.freeThreads, s.threadRows)
	}
	if len(a.freeMonitors) < 2 && s.Monitors != nil {
		a.freeMonitors = append(a.freeMonitors, s.Monitors[:0])
	}
	if len(a.freeClasses) < 2 && s.Objects.Classes != nil {
		a.freeClasses = append(a.freeClasses, s.Objects.Classes[:0])
		a.freeHistories = append(a.freeHistories, s.objectHistories[:0])
	}
	s.Methods, s.Threads, s.Monitors, s.Objects.Classes, s.objectHistories = nil, nil, nil, nil, nil
}

// methodBuffer is a released method table, the generation it was built
// at and its view (recent or cumulative).
type methodBuffer struct {
	rows   []Method
	gen    uint32
	recent bool
}

// reuse takes the table released last, or none (the zero value).
func reuse[T any](free *[]T) T {
	var v T
	if n := len(*free); n > 0 {
		v = (*free)[n-1]
		*free = (*free)[:n-1]
	}
	return v
}

// className names a class by id: "" for none (id 0), "class#N" while its
// definition has not come.
func (a *Aggregator) className(id int64) string {
	if id == 0 {
		return ""
	}
	if name, ok := a.classes[id]; ok {
		return name
	}
	return "class#" + strconv.FormatInt(id, 10)
}

// Snapshot returns the live picture now.
func (a *Aggregator) Snapshot(now time.Time, q Query) *Snapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	if w := a.windowNow(now); !w.IsZero() {
		a.rotate(w)
	}
	nowNS := a.latest
	if nowNS == 0 {
		nowNS = now.UnixNano()
	}
	a.threads.expire(nowNS, a.opts.EndedRetention, a.opts.MaxEndedThreads)
	a.monitors.expire(a.opts.MaxMonitors)
	s := &Snapshot{
		Taken:    now,
		Window:   a.opts.Window,
		Recent:   q.Recent,
		Process:  a.process,
		Events:   a.events,
		Streams:  a.stream,
		Unpaired: a.unpaired,
		ResetAt:  a.resetAt,
		NotTracked: NotTracked{Threads: a.threads.refused.count(), Methods: a.methods.refused.count(),
			Monitors: a.monitors.refused.count(), MonitorsForgotten: a.monitors.forgotten.count()},
	}
	if a.polled {
		s.NotTracked.Threads = a.pollUntracked // the present, as the latest poll has it
	}
	if a.latest > 0 {
		s.Clock = time.Unix(0, a.latest)
	}
	s.onTraceTime = a.opts.TraceTime
	if a.first > 0 {
		s.First = time.Unix(0, a.first)
	}
	if a.resetNs > 0 {
		s.ResetClock = time.Unix(0, a.resetNs)
	}
	if a.polled {
		s.Polled, s.PolledAt = true, time.Unix(0, a.polledAt)
	}
	s.Sampled = a.methods.sampled
	s.SamplesUntimed = a.methods.samples > 0 && a.methods.samplerSelf == 0
	s.MethodCPU, s.MethodOwnCPU = a.methods.cpuMeasured, a.methods.ownCPUMeasured
	s.threadRows = a.threads.rows(nowNS, q.StackOf, q.AllStacks, &a.methods, threadNames{a.ownerName, a.mountedName}, reuse(&a.freeThreads))
	s.Threads = s.threadRows.rows
	if s.Threads == nil {
		s.Threads = []Thread{} // an empty list in JSON, not null
	}
	for i := range s.Threads {
		if s.Threads[i].CPUKnown {
			s.ThreadCPU = true
			break
		}
	}
	s.VirtualGroups, s.Virtual, s.VirtualPinning, s.Notes = a.virtualRows(nowNS)
	var total selfTotals
	if q.Methods != nil && a.methods.stats.len() > pageAbove {
		s.Methods, s.Page = a.methods.page(q.Recent, q.Methods)
		total, s.gen = a.methods.totals(q.Recent), noGen
	} else {
		buf := methodBuffer{gen: noGen}
		if n := len(a.freeMethods); n > 0 {
			buf = a.freeMethods[n-1]
			a.freeMethods = a.freeMethods[:n-1]
			if buf.recent != q.Recent {
				buf.gen = noGen // the other view's rows: rebuild
			}
		}
		s.Methods, total, s.gen = a.methods.rows(q.Recent, buf.rows, buf.gen)
	}
	s.TotalSelf = time.Duration(total.measured + total.sampled)
	if a.methods.twoViews() {
		s.Views, s.TotalSelf, s.SamplerSelf = true, time.Duration(total.measured), time.Duration(total.sampled)
	}
	s.Names = a.methods.names
	s.Samples = SampleCounts{Window: a.methods.window.self.samples, Cumulative: a.methods.samples}
	s.Monitors = a.monitors.rows(nowNS, &a.methods, a.liveOnMonitors(nowNS), reuse(&a.freeMonitors))
	if a.process.Agent == JVMAgentName {
		for i := range s.Monitors {
			s.Monitors[i].ByAddress = s.Monitors[i].Object > maxIdentityHash
		}
	}
	if q.GroupMonitors {
		s.Monitors = groupMonitors(s.Monitors)
	}
	s.Deadlocks = a.deadlocks()
	a.deadlog.update(s.Deadlocks, time.Unix(0, nowNS))
	for i := range s.Deadlocks {
		s.Deadlocks[i].Since = a.deadlog.since(&s.Deadlocks[i])
	}
	s.RecentDeadlocks = append([]PastDeadlock(nil), a.deadlog.recent...)
	s.GC = a.gc.snapshot(nowNS, a.first, a.opts.Window)
	s.Objects, s.objectHistories, s.HasObjects = a.objects.rows(nowNS, reuse(&a.freeClasses), reuse(&a.freeHistories))
	s.Telemetry, s.TelemetryProblems = a.telemetry.snapshot(q.Telemetry)
	s.TelemetryWindow = a.opts.TelemetryWindow
	s.TelemetryDropped, s.TelemetryUndeclared = a.telemetry.dropped, a.telemetry.undeclared
	s.Probes = a.probes.snapshot()
	s.Coverage = a.coverage.rows()
	s.AgentCost = a.cost.snapshot()
	if q.CallersOf >= 0 {
		s.Callers = a.methods.callersOf(q.CallersOf)
		s.FocusRecent, s.FocusCumulative, s.HasFocus = a.methods.both(q.CallersOf)
	}
	return s
}
