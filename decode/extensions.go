package decode

// proftop's extensions to the trace format: what a profiler that watches a
// live JVM knows and TPTP has no message for. They have binary ids from
// 1100 up (a reader that predates them skips them by their size) and XML
// elements of the same names; docs/trace-extensions.md specifies them.

// The states a ThreadState reports, as on the wire and in JSON.
const (
	StateRunning      = "running"       // RUNNABLE, in Java code
	StateNative       = "native"        // RUNNABLE, in native code (a socket read, epoll)
	StateBlocked      = "blocked"       // BLOCKED entering a monitor
	StateParked       = "parked"        // LockSupport.park: a java.util.concurrent lock, condition or queue
	StateWaiting      = "waiting"       // Object.wait or Thread.join without a timeout
	StateTimedWaiting = "timed-waiting" // Object.wait or Thread.join with a timeout
	StateSleeping     = "sleeping"      // Thread.sleep
	StateNew          = "new"           // created, not yet started
	StateEnded        = "ended"
)

// Flags of a ThreadState.
const (
	// ThreadStackUnchanged: the stack is the one this thread's previous
	// ThreadState carried, and is omitted (depth 0).
	ThreadStackUnchanged int32 = 1 << iota
	// ThreadDaemon: a daemon thread.
	ThreadDaemon
	// ThreadTimed: the wait or park has a timeout.
	ThreadTimed
	// ThreadSuspended: suspended (Thread.suspend, a debugger).
	ThreadSuspended
	// ThreadVirtual: a virtual thread (JDK 21 and later). A virtual
	// thread's ThreadState belongs to a listing of the virtual threads,
	// which a VirtualThreads message closes, not to the poll of the
	// platform threads.
	ThreadVirtual
	// ThreadCarrier: a carrier thread, which runs virtual threads.
	ThreadCarrier
	// ThreadPinned: a virtual thread that blocks, parks, waits or sleeps
	// without leaving its carrier, which it holds meanwhile.
	ThreadPinned
	// ThreadMounted: a virtual thread that is on a carrier (running, or
	// pinned); a runnable one that is not waits for a carrier.
	ThreadMounted
	// ThreadOnLock: parked on a lock (an ownable synchronizer, such as a
	// ReentrantLock's): contention for it, even at an instant it has no
	// owner, not a wait (a condition, a latch, a queue).
	ThreadOnLock
)

// Sample is one distinct stack of one thread as a sampling profiler saw it
// (rbkit's cpu_sample, JFR's execution samples aggregated per stack), Count
// times since the thread's previous Sample. Weight is the time those samples
// stand for (the thread's CPU time between them, for the JVM agent); 0
// means the source does not say, and a sample counts as one unit.
//
// With SampleCalls in Flags it is a node of an instrumented call tree (a
// ProfilerJ profile) instead: the stack is the node's path, Count the calls
// measured of its innermost frame from the frame below, Weight the time
// spent in that frame itself; and, as its flags say, Total its cumulated
// time (its own and its callees', profiled or not), CPU the CPU time of the
// frame itself, TotalCPU its cumulated CPU time.
type Sample struct {
	ThreadIDRef int64 `tptp:"threadIdRef"`
	Time        Ticks `tptp:"time"`
	Count       int64 `tptp:"count"` // 0 means 1
	Weight      Ticks `tptp:"weight"`
	Stack       Stack `tptp:"stack"`
	Flags       int32 `tptp:"flags,optional"`    // SampleCalls, SampleAggregate, SampleTotal, SampleFirstLines…
	Total       Ticks `tptp:"total,optional"`    // with SampleTotal
	CPU         Ticks `tptp:"cpu,optional"`      // with SampleCPU
	TotalCPU    Ticks `tptp:"totalCpu,optional"` // with SampleTotalCPU
}

// Flags of a Sample.
const (
	// SampleCalls: Count is measured calls and Weight measured self time:
	// the sample is a node of an instrumented call tree.
	SampleCalls int32 = 1 << iota
	// SampleAggregate: the stack is a profile summed over a span, not
	// where the thread is now.
	SampleAggregate
	// SampleTotal: Total is the node's cumulated time, as the source
	// measured it: its method's total time where the method is not already
	// on the path below it.
	SampleTotal
	// SampleCPU: CPU is the CPU time of the node's method itself.
	SampleCPU
	// SampleTotalCPU: TotalCPU is the node's cumulated CPU time.
	SampleTotalCPU
	// SampleUnprofiled: the node stands for the time the frame below it
	// spent in callees the source did not profile (its cumulated time less
	// its own and its profiled calls'): the call tree shows it, the
	// methods do not.
	SampleUnprofiled
	// SampleFirstLines: the stack's lines are each frame's method's first
	// line (rbkit's), not the line running: they name the method.
	SampleFirstLines
)

// UnprofiledFrame names a SampleUnprofiled node's frame.
const UnprofiledFrame = "(unprofiled callees)"

// ThreadCPU is a thread's CPU time so far, as a source that reports it
// apart from any poll or call (a ProfilerJ snapshot) says.
type ThreadCPU struct {
	ThreadIDRef int64 `tptp:"threadIdRef"`
	Time        Ticks `tptp:"time"`
	CPUTime     Ticks `tptp:"cpuTime"`
}

// Coverage is the line coverage of one method: how often it was invoked
// and, line by line from FirstLine, how often each line ran (-1: the line
// holds no code; 0: never reached), as blank-separated integers, which is
// how ProfilerJ writes its footprints. A later Coverage of the same class,
// method and signature replaces the earlier one.
type Coverage struct {
	Time       Ticks  `tptp:"time"`
	Class      string `tptp:"className"`
	Source     string `tptp:"sourceName"`
	Method     string `tptp:"methodName"`
	Signature  string `tptp:"signature"`
	FirstLine  int64  `tptp:"firstLine"`
	Count      int64  `tptp:"count"`
	Footprints string `tptp:"footprints"`
}

// ThreadState is what one thread is doing at a poll: its state, the lock it
// waits for (a monitor or a java.util.concurrent synchronizer: its object id
// and class, the thread owning it), its CPU time so far and its stack. A
// poll reports every live thread, then a ThreadPoll; a client shows the
// latest complete poll as the present.
type ThreadState struct {
	ThreadIDRef  int64  `tptp:"threadIdRef"`
	Time         Ticks  `tptp:"time"`
	State        string `tptp:"state"`
	Flags        int32  `tptp:"flags"`
	LockObjIDRef int64  `tptp:"lockObjIdRef"` // 0: waits for no lock
	LockClass    string `tptp:"lockClass"`
	LockOwner    int64  `tptp:"lockOwner"` // thread id; 0: none or unknown
	CPUTime      Ticks  `tptp:"cpuTime"`   // the thread's CPU time since it started; -1: unknown
	Stack        Stack  `tptp:"stack"`
	// Appended in version 1.2 (a message of an earlier version ends
	// before them): for a virtual thread, the carrier it is mounted on;
	// for a carrier, the virtual thread it carries; 0: none. A thread no
	// ThreadStart announces (a virtual thread) is named here, with the
	// thread container (executor) it belongs to.
	Carrier    int64  `tptp:"carrier,optional"`
	ThreadName string `tptp:"threadName,optional"`
	Container  string `tptp:"container,optional"`
	// Appended in version 1.4: how many times the thread has blocked on a
	// monitor, and waited or parked, since it started (0: unknown): one
	// block seen at two polls is told from two.
	BlockedCount int64 `tptp:"blockedCount,optional"`
	WaitedCount  int64 `tptp:"waitedCount,optional"`
}

// ThreadPoll closes a poll: Threads ThreadState messages came before it.
// With PollComplete, they are every live thread: one missing has ended.
type ThreadPoll struct {
	Time    Ticks `tptp:"time"`
	Threads int32 `tptp:"threads"`
	Flags   int32 `tptp:"flags"`
}

// PollComplete marks a ThreadPoll that lists every live thread.
const PollComplete int32 = 1

// MemoryPool is one memory pool's usage at a poll, in bytes (-1: undefined).
// The kinds of memory pool (MemoryPool.Heap): the JVM's heap and non-heap
// memory, and the memory of a runtime that has neither (rbkit's memsize of
// all objects, which is more than its object heap and not apart from it).
const (
	PoolNonHeap byte = 0
	PoolHeap    byte = 1
	PoolOther   byte = 2
)

type MemoryPool struct {
	Time      Ticks  `tptp:"time"`
	Name      string `tptp:"name"` // "G1 Eden Space", "Metaspace"
	Heap      byte   `tptp:"heap"` // PoolHeap, PoolNonHeap or PoolOther
	Used      int64  `tptp:"used"`
	Committed int64  `tptp:"committed"`
	Max       int64  `tptp:"max"`
}

// Collection is one garbage collection, reported when it ended: which
// collector, why, how long the application was paused, and the heap before
// and after (bytes; -1: unknown). Sequence is the collector's count with
// this collection (the JVM's GcInfo id): a client tells by it whether the
// collector's GCTotals already count it; 0: unknown.
type Collection struct {
	Time       Ticks  `tptp:"time"` // when it ended
	Collector  string `tptp:"collector"`
	Cause      string `tptp:"cause"`
	Pause      Ticks  `tptp:"pause"`
	UsedBefore int64  `tptp:"usedBefore"`
	UsedAfter  int64  `tptp:"usedAfter"`
	Committed  int64  `tptp:"committed"`
	Sequence   int64  `tptp:"sequence,optional"`
}

// GCTotals is a collector's count and accumulated time since the JVM
// started, as of Time: the figures jstat shows, whatever was missed.
type GCTotals struct {
	Time      Ticks  `tptp:"time"`
	Collector string `tptp:"collector"`
	Count     int64  `tptp:"count"`
	TotalTime Ticks  `tptp:"totalTime"`
}

// ObjectCensus is one line of a count of the live objects: how many of a
// class (allocated at a site, when the source knows) and how many bytes
// (-1: unknown). The lines of one census share its id; a census with a new
// id replaces the previous one (rbkit's object-space dump, a ProfilerJ
// snapshot's memory section).
type ObjectCensus struct {
	Time     Ticks  `tptp:"time"`
	Census   int64  `tptp:"census"`
	Class    string `tptp:"className"`
	Site     string `tptp:"site"` // "file:line" where allocated; "": unknown
	Count    int64  `tptp:"count"`
	Bytes    int64  `tptp:"bytes"`
	MaxCount int64  `tptp:"maxCount"` // the most there were at once; -1: unknown
}

// Allocation is what a sampling source saw allocated of a class since its
// previous Allocation of that class: a count (-1: unknown, when the source
// samples by size, as JFR does) and bytes.
type Allocation struct {
	Time  Ticks  `tptp:"time"`
	Class string `tptp:"className"`
	Count int64  `tptp:"count"`
	Bytes int64  `tptp:"bytes"`
}

// ObjClass names the class of an object without saying it was allocated
// now: a profiler that sees an object first in a monitor event (a JVM
// agent watching locks through JFR) tells its class this way, where
// objAlloc would count it as a new live object, over and over.
type ObjClass struct {
	ObjID      int64 `tptp:"objId"`
	ClassIDRef int64 `tptp:"classIdRef"`
	Time       Ticks `tptp:"time"`
}

// ThreadGroup stands for Count threads of a listing that are not listed
// one by one (a source with 100,000 virtual threads lists a few and counts
// the rest): alike in container, state, flags, lock and owner, and in the
// method they are in (Site, the first application frame); Stack is one
// member's.
type ThreadGroup struct {
	Time         Ticks  `tptp:"time"`
	Container    string `tptp:"container"`
	State        string `tptp:"state"`
	Flags        int32  `tptp:"flags"` // a ThreadState's
	LockObjIDRef int64  `tptp:"lockObjIdRef"`
	LockClass    string `tptp:"lockClass"`
	LockOwner    int64  `tptp:"lockOwner"`
	Count        int64  `tptp:"count"`
	Site         string `tptp:"site"`
	Stack        Stack  `tptp:"stack"`
}

// VirtualThreads says how many virtual threads there are, and closes a
// listing of them: the ThreadState messages with the ThreadVirtual flag
// and the ThreadGroup messages since the previous VirtualThreads, when
// Flags has VirtualListing. Sources list virtual threads less often than
// they poll platform threads when a listing is costly (Period, Cost); the
// counts come every poll.
type VirtualThreads struct {
	Time     Ticks `tptp:"time"`
	Count    int64 `tptp:"count"`   // alive now; -1: unknown
	Started  int64 `tptp:"started"` // since the source began counting; -1: unknown
	Ended    int64 `tptp:"ended"`
	Flags    int32 `tptp:"flags"`
	ListedAt Ticks `tptp:"listedAt"` // when the latest listing was taken; 0: none yet
	Listed   int32 `tptp:"listed"`   // ThreadState messages in this listing
	Groups   int32 `tptp:"groups"`   // ThreadGroup messages in this listing
	Cost     Ticks `tptp:"cost"`     // the CPU time the latest listing cost; 0: unknown
	Period   Ticks `tptp:"period"`   // how often listings are taken now; 0: unknown
}

// Flags of a VirtualThreads message.
const (
	// VirtualListing: the message closes a listing, which replaces the previous one.
	VirtualListing int32 = 1 << iota
	// VirtualComplete: the listing accounts for every virtual thread, listed or grouped.
	VirtualComplete
	// VirtualEstimated: Count is the listing's, plus the starts and minus
	// the ends since.
	VirtualEstimated
)

// SourceNote is something the source wants its user to know about the
// data (it lists virtual threads less often than asked, because a listing
// costs too much). A note replaces the previous one of its Topic; an empty
// Text withdraws it.
type SourceNote struct {
	Time  Ticks  `tptp:"time"`
	Topic string `tptp:"topic"`
	Level int32  `tptp:"level"` // 0 information, 1 the data is degraded
	Text  string `tptp:"text"`
}

// VirtualPinned is a virtual thread that blocked while pinned to its
// carrier (JFR's jdk.VirtualThreadPinned), for Duration from Time.
type VirtualPinned struct {
	ThreadIDRef int64  `tptp:"threadIdRef"`
	Time        Ticks  `tptp:"time"`
	Duration    Ticks  `tptp:"duration"`
	Carrier     int64  `tptp:"carrier"` // 0: unknown
	Reason      string `tptp:"reason"`
	Operation   string `tptp:"operation"`
	Stack       Stack  `tptp:"stack"`
}

func (*ThreadGroup) Kind() Kind    { return KindThreadGroup }
func (*VirtualThreads) Kind() Kind { return KindVirtualThreads }
func (*SourceNote) Kind() Kind     { return KindSourceNote }
func (*VirtualPinned) Kind() Kind  { return KindVirtualPinned }

func (*Sample) Kind() Kind       { return KindSample }
func (*ThreadCPU) Kind() Kind    { return KindThreadCPU }
func (*Coverage) Kind() Kind     { return KindCoverage }
func (*ObjectCensus) Kind() Kind { return KindObjectCensus }
func (*Allocation) Kind() Kind   { return KindAllocation }
func (*ObjClass) Kind() Kind     { return KindObjClass }
func (*ThreadState) Kind() Kind  { return KindThreadState }
func (*ThreadPoll) Kind() Kind   { return KindThreadPoll }
func (*MemoryPool) Kind() Kind   { return KindMemoryPool }
func (*Collection) Kind() Kind   { return KindCollection }
func (*GCTotals) Kind() Kind     { return KindGCTotals }

// The messages below travel inside TPTP custom messages (1041), in
// proftop's convention (custom.go, docs/protocol.md), so that any
// agent that can send a custom message can publish them. Their ids (1130
// and up) name them in proftop's table; a stream never carries them as
// message ids of their own.

// Units of a telemetry series, as JProfiler's probe API names them.
const (
	UnitPlain        = "plain"        // a count or a level
	UnitPercent      = "percent"      // 0 to 100 (after the divisor)
	UnitBytes        = "bytes"        // a size
	UnitMicroseconds = "microseconds" // a duration
)

// Units lists the units a series may declare.
func Units() []string { return []string{UnitPlain, UnitPercent, UnitBytes, UnitMicroseconds} }

// TelemetrySeries declares a series of sampled values: its name, its unit
// and the divisor its integer values are shown divided by (100 and percent:
// 1234 is 12.34%). Its id is what the stream's TelemetryValue messages name
// it by. A source sends it once per stream, before the series' first value.
type TelemetrySeries struct {
	Time    Ticks   `tptp:"time"`
	Series  int64   `tptp:"series"`
	Name    string  `tptp:"name"` // "Threads (live)", "Tasks in Non-blocking Queue (3)"
	Unit    string  `tptp:"unit"`
	Divisor float64 `tptp:"divisor"`
}

// TelemetryValue is one value of a series, at Time.
type TelemetryValue struct {
	Time   Ticks `tptp:"time"`
	Series int64 `tptp:"series"`
	Value  int64 `tptp:"value"`
}

// TelemetryProblem says why a series the user asked for cannot be read
// (a bad spec, an MBean that does not exist, an attribute that is not a
// number), or, with an empty Problem, that it can be again.
type TelemetryProblem struct {
	Time    Ticks  `tptp:"time"`
	Spec    string `tptp:"spec"` // as the user gave it: "jmx:java.lang:type=Memory:HeapMemoryUsage.used"
	Problem string `tptp:"problem"`
}

// Probe is what a probe recorded since its previous report for the same
// group and stack: how many events (JFR duration events of the
// application's, for the JVM agent), their summed and longest duration,
// grouped by the value of a field (a task's state, a query's name), and
// where they were committed (Stack, empty when not recorded).
type Probe struct {
	Time  Ticks  `tptp:"time"`  // the end of the interval
	Name  string `tptp:"probe"` // as the user gave it: "jfr:bank.Transfer#state"
	Group string `tptp:"group"` // "" when the probe groups nothing
	Count int64  `tptp:"count"`
	Total Ticks  `tptp:"total"`
	Max   Ticks  `tptp:"max"`
	Stack Stack  `tptp:"stack"`
}

func (*TelemetrySeries) Kind() Kind  { return KindTelemetrySeries }
func (*TelemetryValue) Kind() Kind   { return KindTelemetryValue }
func (*TelemetryProblem) Kind() Kind { return KindTelemetryProblem }
func (*Probe) Kind() Kind            { return KindProbe }
