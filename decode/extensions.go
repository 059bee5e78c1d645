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
// spent in that frame itself.
type Sample struct {
	ThreadIDRef int64 `tptp:"threadIdRef"`
	Time        Ticks `tptp:"time"`
	Count       int64 `tptp:"count"` // 0 means 1
	Weight      Ticks `tptp:"weight"`
	Stack       Stack `tptp:"stack"`
	Flags       int32 `tptp:"flags,optional"` // SampleCalls, SampleAggregate
}

// Flags of a Sample.
const (
	// SampleCalls: Count is measured calls and Weight measured self time:
	// the sample is a node of an instrumented call tree.
	SampleCalls int32 = 1 << iota
	// SampleAggregate: the stack is a profile summed over a span, not
	// where the thread is now.
	SampleAggregate
)

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
type MemoryPool struct {
	Time      Ticks  `tptp:"time"`
	Name      string `tptp:"name"` // "G1 Eden Space", "Metaspace"
	Heap      byte   `tptp:"heap"` // 1: part of the heap
	Used      int64  `tptp:"used"`
	Committed int64  `tptp:"committed"`
	Max       int64  `tptp:"max"`
}

// Collection is one garbage collection, reported when it ended: which
// collector, why, how long the application was paused, and the heap before
// and after (bytes; -1: unknown).
type Collection struct {
	Time       Ticks  `tptp:"time"` // when it ended
	Collector  string `tptp:"collector"`
	Cause      string `tptp:"cause"`
	Pause      Ticks  `tptp:"pause"`
	UsedBefore int64  `tptp:"usedBefore"`
	UsedAfter  int64  `tptp:"usedAfter"`
	Committed  int64  `tptp:"committed"`
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

func (*Sample) Kind() Kind       { return KindSample }
func (*ThreadCPU) Kind() Kind    { return KindThreadCPU }
func (*Coverage) Kind() Kind     { return KindCoverage }
func (*ObjectCensus) Kind() Kind { return KindObjectCensus }
func (*Allocation) Kind() Kind   { return KindAllocation }
func (*ThreadState) Kind() Kind  { return KindThreadState }
func (*ThreadPoll) Kind() Kind   { return KindThreadPoll }
func (*MemoryPool) Kind() Kind   { return KindMemoryPool }
func (*Collection) Kind() Kind   { return KindCollection }
func (*GCTotals) Kind() Kind     { return KindGCTotals }
