package state

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"time"
)

// ThreadState is what a thread is doing: from the latest thread poll when
// the source sends polls (the JVM agent), else derived from its events. The
// states are jstack's, made precise: BLOCKED is a monitor, a park names what
// it parks on, TIMED_WAITING is split into its causes.
type ThreadState uint8

const (
	ThreadRunning      ThreadState = iota
	ThreadNative                   // runnable, in native code
	ThreadBlocked                  // contending for a monitor
	ThreadParked                   // LockSupport.park: a java.util.concurrent lock, condition or queue
	ThreadWaiting                  // in Object.wait (or join) without a timeout
	ThreadTimedWaiting             // in Object.wait (or join) with a timeout
	ThreadSleeping                 // in Thread.sleep
	ThreadEnded
	// ThreadUnknown: the trace ended with the thread alive and not held
	// up by a lock: what it did from then on is not known.
	ThreadUnknown
	numThreadStates
)

var threadStateNames = [numThreadStates]string{"running", "native", "blocked", "parked", "waiting", "timed-waiting", "sleeping", "ended", "unknown"}

func (s ThreadState) String() string {
	if s < numThreadStates {
		return threadStateNames[s]
	}
	return "unknown"
}

// ThreadStates lists every state, in order.
func ThreadStates() []ThreadState {
	out := make([]ThreadState, numThreadStates)
	for i := range out {
		out[i] = ThreadState(i)
	}
	return out
}

// MarshalText renders the state by name in JSON.
func (s ThreadState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// parseThreadState reads a state as the wire names it.
func parseThreadState(name string) (ThreadState, bool) {
	for i, n := range threadStateNames {
		if n == name {
			return ThreadState(i), true
		}
	}
	return ThreadRunning, false
}

// onLock says whether a thread in this state is held up by a lock (or
// waits on one): its Monitor names it.
func (s ThreadState) onLock() bool {
	return s == ThreadBlocked || s == ThreadParked || s == ThreadWaiting || s == ThreadTimedWaiting
}

// Frame is one frame of a stack, innermost first in a Stack.
type Frame struct {
	Method string `json:"method"`
	Line   int64  `json:"line"` // 0 or less: not known (-2 a native method)
}

// MarshalJSON leaves out a line that is not known, as the JSON leaves out
// whatever was not measured rather than give it a sentinel value.
func (f Frame) MarshalJSON() ([]byte, error) {
	type known struct {
		Method string `json:"method"`
		Line   int64  `json:"line,omitempty"`
	}
	return json.Marshal(known{Method: f.Method, Line: max(f.Line, 0)})
}

// Percent is a share in percent, or Unknown (NaN) before it can be told:
// a thread's CPU rate needs two readings 2 s apart. JSON leaves an unknown
// one out, as it does every figure not measured.
type Percent float64

// UnknownPercent is a Percent not known yet.
var UnknownPercent = Percent(math.NaN())

// Known says the share was measured.
func (p Percent) Known() bool { return !math.IsNaN(float64(p)) }

// IsZero makes JSON's omitzero leave an unknown share out (and keep a 0).
func (p Percent) IsZero() bool { return !p.Known() }

// MarshalJSON leaves a CPU time the source does not measure out.
func (t Thread) MarshalJSON() ([]byte, error) {
	type plain Thread // without these methods
	out := struct {
		plain
		CPU *time.Duration `json:"cpuNs,omitempty"` // over plain's
	}{plain: plain(t)}
	if t.CPUKnown {
		out.CPU = &t.CPU
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a thread whose CPU time and rate JSON leaves out as
// unknown, not as 0: a picture read back from a bundle says what it said.
func (t *Thread) UnmarshalJSON(b []byte) error {
	type plain Thread // without these methods
	in := struct {
		plain
		CPU *time.Duration `json:"cpuNs"`
	}{plain: plain{CPUPercent: UnknownPercent}}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*t = Thread(in.plain)
	if in.CPU != nil {
		t.CPU, t.CPUKnown = *in.CPU, true
	}
	return nil
}

// Thread is one row of the threads pane.
type Thread struct {
	ID      int64         `json:"id"`
	Name    string        `json:"name"`
	Group   string        `json:"group"`
	State   ThreadState   `json:"state"`
	Started int64         `json:"startedNs,omitempty"` // ns since the epoch (trace time), 0: unknown
	Ended   int64         `json:"endedNs,omitempty"`
	CPU     time.Duration `json:"cpuNs"` // left out of JSON unless CPUKnown
	// CPUKnown says the source measures the thread's CPU time: else CPU
	// is unknown, not 0.
	CPUKnown   bool    `json:"-"`
	CPUPercent Percent `json:"cpuPercent,omitzero"` // over the last 2 to 4 s, unknown before two polls; for a source that samples stacks without times, its share of the samples
	// Samples counts the thread's stack samples that stood for no known time.
	Samples     int64         `json:"samples,omitempty"`
	Method      string        `json:"method,omitempty"`
	Depth       int           `json:"depth,omitempty"`
	Blocked     time.Duration `json:"blockedNs"`
	Waiting     time.Duration `json:"waitingNs"`
	Contentions int64         `json:"contentions"`
	// The monitor (or java.util.concurrent synchronizer) the thread blocks,
	// parks or waits on, its class and owner, and since when (ns since the
	// epoch; for a state found by a poll, when a poll first saw it).
	Monitor       int64  `json:"monitor,omitempty"`
	LockClass     string `json:"lockClass,omitempty"`
	LockOwner     int64  `json:"lockOwner,omitempty"`
	LockOwnerName string `json:"lockOwnerName,omitempty"`
	Since         int64  `json:"sinceNs,omitempty"`
	// SinceBegan says Since is when the state began, as the event that
	// began it tells, or a poll saw it begin (to within the poll
	// interval); else the state was under way already when watching began
	// (the first poll), or at the statistics' latest reset, and Since is
	// then: how long it has lasted is a lower bound.
	SinceBegan bool `json:"sinceBegan,omitempty"`
	// Timed says a wait or park has a timeout; Daemon a daemon thread.
	Timed  bool `json:"timed,omitempty"`
	Daemon bool `json:"daemon,omitempty"`
	// A carrier of virtual threads, and the virtual thread it runs (0:
	// none) as the latest poll saw it.
	VirtualCarrier     bool   `json:"virtualCarrier,omitempty"`
	VirtualMounted     int64  `json:"virtualMounted,omitempty"`
	VirtualMountedName string `json:"virtualMountedName,omitempty"`
	Stream             int    `json:"stream"`
	// Stack is filled for the thread a query asks about: the latest thread
	// poll's, else its open method calls when it runs and they are known,
	// else the latest stack a monitor event reported. StackFrom says which.
	Stack     []Frame `json:"stack,omitempty"`
	StackFrom string  `json:"stackFrom,omitempty"`
}

// Method is one row of the hot-methods pane: cumulative or over the
// window. It holds no pointer (its name is Snapshot.MethodName), so that a
// snapshot of 100,000 methods costs the garbage collector nothing to scan.
type Method struct {
	Slot  int32 `json:"-"`
	Line  int32 `json:"line"`
	Calls int64 `json:"calls"` // measured calls (entries and exits, aggregated reports); 0 for sampled methods
	// Samples counts the stack samples the method was on top of (its self
	// time) or in (its total time): Self and Total are then what those
	// samples stand for, not measured durations.
	Samples      int64         `json:"samples,omitempty"`
	TotalSamples int64         `json:"totalSamples,omitempty"`
	Self         time.Duration `json:"selfNs"`
	Total        time.Duration `json:"totalNs"` // -1: unknown (aggregated reports give self time only)
	Min          time.Duration `json:"minNs"`
	Max          time.Duration `json:"maxNs"`
	CPU          time.Duration `json:"cpuNs"`
	// OwnCPU is the CPU time in the method itself, apart from its
	// callees', where the source says it (Snapshot.MethodOwnCPU).
	OwnCPU time.Duration `json:"ownCpuNs"`
	// Sampler marks the rows of the second view (stack samples) of a
	// source that has two (see Snapshot.Views).
	Sampler bool `json:"sampler,omitempty"`
	// Timed says single calls were timed (entries and exits): Min and Max
	// are theirs. Else (a call tree's nodes, aggregated reports without
	// them, samples) no single call's time is known.
	Timed bool `json:"-"`
}

// Caller is a method seen calling another, with how often.
type Caller struct {
	Name  string `json:"name"`
	Calls int64  `json:"calls"`
}

// Waiter is a thread blocked on, parked on or waiting for a monitor.
type Waiter struct {
	Thread     int64         `json:"thread"`
	ThreadName string        `json:"threadName"`
	Virtual    bool          `json:"virtual,omitempty"` // a virtual thread
	Waiting    bool          `json:"waiting"`           // Object.wait or a condition, not contention
	State      ThreadState   `json:"state"`
	Since      time.Time     `json:"since"`
	Timeout    time.Duration `json:"timeoutNs,omitempty"` // 0: none
	Stack      []Frame       `json:"stack"`
}

// Monitor is one row of the contention pane: a monitor, or a
// java.util.concurrent synchronizer (Synchronizer), or, grouped, every lock
// of one class taken at one place (Grouped of them).
type Monitor struct {
	Object       int64  `json:"object"`
	Class        string `json:"class,omitempty"`
	Synchronizer bool   `json:"synchronizer,omitempty"`
	// Site is where the lock is taken or waited on: the first frame of a
	// contender's stack outside the JDK's locking code.
	Site    string `json:"site,omitempty"`
	Grouped int    `json:"grouped,omitempty"`
	// ByAddress says the lock is known by the address JFR gave its events
	// only (proftop's JVM agent, which could not tie them to a lock its
	// polls saw): it may be a lock of another row, known there by its
	// identity hash.
	ByAddress  bool     `json:"byAddress,omitempty"`
	Owner      int64    `json:"owner,omitempty"`
	OwnerName  string   `json:"ownerName,omitempty"`
	OwnerStack []Frame  `json:"ownerStack,omitempty"`
	OwnerFrom  string   `json:"ownerStackFrom,omitempty"` // "method entries" or "latest monitor event"
	Waiters    []Waiter `json:"waiters"`
	// OwnerVirtual says the owner is a virtual thread. VirtualWaiters
	// counts the virtual threads held up by the lock, those of Waiters
	// and those a listing counts in groups only (VirtualUnlistedBlocked
	// contending for it, VirtualUnlistedWaiting waiting on it).
	OwnerVirtual           bool          `json:"virtualOwner,omitempty"`
	VirtualWaiters         int64         `json:"virtualWaiters,omitempty"`
	VirtualUnlistedBlocked int64         `json:"virtualUnlistedBlocked,omitempty"`
	VirtualUnlistedWaiting int64         `json:"virtualUnlistedWaiting,omitempty"`
	Enters                 int64         `json:"contendedEnters"`
	Waits                  int64         `json:"waits"`
	BlockedSum             time.Duration `json:"blockedTotalNs"`
	BlockedAvg             time.Duration `json:"blockedAvgNs"`
	BlockedMax             time.Duration `json:"blockedMaxNs"`
	LastSeen               time.Time     `json:"lastSeen"`
}

// Deadlock is a cycle of threads, each blocked on a monitor the next owns.
type Deadlock struct {
	Threads  []int64  `json:"threads"`
	Names    []string `json:"threadNames"`
	Monitors []int64  `json:"monitors"`
	// MonitorsHex are the monitors as the screen names them (@7f3a01b0),
	// as monitors' objectHex.
	MonitorsHex []string `json:"monitorsHex"`
	Classes     []string `json:"classes"`
	// Virtual says which of Threads are virtual threads (left out when none is).
	Virtual []bool `json:"virtual,omitempty"`
	// Since is when it formed, its last thread blocking, or else when it
	// was first seen (trace time). FirstSeen says it is when it was first
	// seen: it formed before, unseen (its last thread was blocked already
	// at the first look at it); BeforeWatching that this was at the first
	// look of all: it formed before proftop began watching.
	Since          time.Time `json:"since,omitzero"`
	FirstSeen      bool      `json:"sinceFirstSeen,omitempty"`
	BeforeWatching bool      `json:"formedBeforeWatching,omitempty"`
}

// HeapSample is the heap after one collection, or at one poll.
type HeapSample struct {
	At    time.Time `json:"at"`
	Used  int64     `json:"used"`
	Total int64     `json:"total"`
}

// Pool is one memory pool's latest usage (bytes; Max -1: undefined).
type Pool struct {
	Name      string    `json:"name"`
	Heap      bool      `json:"heap"`
	Used      int64     `json:"used"`
	Committed int64     `json:"committed"`
	Max       int64     `json:"max"`
	At        time.Time `json:"at"`
}

// MarshalJSON leaves out a maximum the pool does not have (-1), as the
// JSON leaves out what is not known rather than give a sentinel.
func (p Pool) MarshalJSON() ([]byte, error) {
	type plain Pool
	out := struct {
		plain
		Max *int64 `json:"max,omitempty"`
	}{plain: plain(p)}
	if p.Max >= 0 {
		out.Max = &p.Max
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a pool back (a bundle's history): no max is -1.
func (p *Pool) UnmarshalJSON(b []byte) error {
	type plain Pool
	in := plain{Max: -1}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*p = Pool(in)
	return nil
}

// Collector is one garbage collector's figures since the JVM started.
type Collector struct {
	Name      string        `json:"name"`
	Count     int64         `json:"count"`
	TotalTime time.Duration `json:"totalTimeNs"`
	// SinceTotals marks a row of collections by a collector the totals do
	// not name (yet, or ever: rbkit's collections are "Ruby GC", its
	// totals minor and major): it holds only those since the latest
	// totals, and its count falls when they come.
	SinceTotals bool `json:"sinceLatestTotals,omitempty"`
}

// GC is the garbage-collection pane.
type GC struct {
	// Count is every collection: since the JVM started when the source
	// reports collectors' totals (SinceStart), else those seen.
	Count      int64         `json:"count"`
	SinceStart bool          `json:"sinceJvmStart,omitempty"`
	TotalTime  time.Duration `json:"totalTimeNs,omitempty"` // with SinceStart
	Collectors []Collector   `json:"collectors,omitempty"`
	LastPause  time.Duration `json:"lastPauseNs"`
	P50        time.Duration `json:"p50Ns"`
	P99        time.Duration `json:"p99Ns"`
	Max        time.Duration `json:"maxNs"`
	Percent    float64       `json:"percentOfWallTime"` // over PercentOver
	// PercentOver is the span Percent is of: the window, or the time
	// watched when that is shorter (since the first event or a reset).
	PercentOver time.Duration   `json:"percentOverNs,omitempty"`
	Pauses      []time.Duration `json:"pausesNs"`     // the latest, oldest first
	Heap        []HeapSample    `json:"heap"`         // the latest, oldest first
	Freed       int64           `json:"objectsFreed"` // objFree events; FreedKnown says the source sends them
	FreedKnown  bool            `json:"objectsFreedKnown,omitempty"`
	// Reclaimed is the heap collections gave back (bytes), when the
	// source reports the heap before and after each.
	Reclaimed int64  `json:"reclaimedBytes,omitempty"`
	LastCause string `json:"lastCause,omitempty"`
	LastBy    string `json:"lastCollector,omitempty"`
	Pools     []Pool `json:"pools,omitempty"`
	InGC      bool   `json:"inGc"`
}

// Objects is the Objects pane: objects by class.
type Objects struct {
	Window  time.Duration `json:"windowNs"` // the span of the rates
	Classes []ObjectClass `json:"classes"`
	// Tracked is how many live objects are remembered (to attribute their
	// frees); Untracked the frees of objects not remembered (allocated
	// before watching began, or beyond the bound); Dropped the allocations
	// not remembered; Overflow those of classes beyond the bound on classes.
	Tracked   int64 `json:"tracked"`
	Untracked int64 `json:"untrackedFrees,omitempty"`
	Dropped   int64 `json:"untrackedAllocations,omitempty"`
	Overflow  int64 `json:"otherClasses,omitempty"`
	// FreesReported says the source reports frees (it has reported one):
	// else every class's frees are unknown (the JVM agent samples
	// allocations and sees no frees), left out of JSON rather than 0.
	FreesReported bool `json:"freesReported,omitempty"`
	// The latest census of the live objects, by class and site.
	Census      []CensusRow `json:"census,omitempty"`
	CensusAt    time.Time   `json:"censusAt,omitzero"`
	CensusTotal int64       `json:"censusTotal,omitempty"`
}

// ObjectClass is one class's objects: live (allocated, not yet freed),
// allocated and freed since watching began and per second over the window,
// bytes allocated when sizes are known, and the live count of the last
// minute (oldest first). Sampled: from allocation samples, whose counts
// are estimates (or unknown: bytes only).
type ObjectClass struct {
	Class     string  `json:"class"`
	Live      int64   `json:"live"`
	Allocs    int64   `json:"allocated"`
	Frees     int64   `json:"freed"`
	Bytes     int64   `json:"bytes"`
	AllocRate float64 `json:"allocatedPerSec"`
	FreeRate  float64 `json:"freedPerSec"`
	BytesRate float64 `json:"bytesPerSec"`
	Sampled   bool    `json:"sampled,omitempty"`
	History   []int64 `json:"liveHistory"`
	// Counted says the class is known from a census alone (a snapshot's
	// memory, the objects a Jinsight trace saw) of a source that reports
	// no allocations: Live is the census's count; what was allocated and
	// freed is unknown, and left out of JSON.
	Counted bool `json:"counted,omitempty"`
}

// BySizeOnly says the class is known from allocation samples that gave
// bytes and no count (JFR's): how many were allocated, freed or live is
// unknown, not 0.
func (c *ObjectClass) BySizeOnly() bool { return c.Sampled && c.Allocs == 0 }

// MarshalJSON leaves out what a class does not tell: known from a census
// alone, allocations, frees, bytes, rates and a history of live counts;
// known by size only, every count.
func (c ObjectClass) MarshalJSON() ([]byte, error) {
	type plain ObjectClass // without this method
	switch {
	case c.Counted:
		return json.Marshal(struct {
			Class   string `json:"class"`
			Live    int64  `json:"live"`
			Counted bool   `json:"counted"`
		}{c.Class, c.Live, true})
	case c.BySizeOnly():
		return json.Marshal(struct {
			Class     string  `json:"class"`
			Bytes     int64   `json:"bytes"`
			BytesRate float64 `json:"bytesPerSec"`
			Sampled   bool    `json:"sampled"`
		}{c.Class, c.Bytes, c.BytesRate, true})
	}
	return json.Marshal(plain(c))
}

// CensusRow is one line of a census: the objects of a class allocated at
// a site.
type CensusRow struct {
	Class    string `json:"class"`
	Site     string `json:"site,omitempty"`
	Count    int64  `json:"count"`
	Bytes    int64  `json:"bytes"`              // -1: unknown, left out of JSON
	MaxCount int64  `json:"maxCount,omitempty"` // the most there were at once; -1: unknown, left out of JSON
}

// MarshalJSON leaves the figures the census does not give out, rather
// than writing their sentinel.
func (r CensusRow) MarshalJSON() ([]byte, error) {
	out := struct {
		Class    string `json:"class"`
		Site     string `json:"site,omitempty"`
		Count    int64  `json:"count"`
		Bytes    *int64 `json:"bytes,omitempty"`
		MaxCount int64  `json:"maxCount,omitempty"`
	}{Class: r.Class, Site: r.Site, Count: r.Count, MaxCount: max(r.MaxCount, 0)}
	if r.Bytes >= 0 {
		out.Bytes = &r.Bytes
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads the figures JSON leaves out as unknown.
func (r *CensusRow) UnmarshalJSON(b []byte) error {
	type plain CensusRow // without these methods
	p := plain{Bytes: -1, MaxCount: -1}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = CensusRow(p)
	return nil
}

// SampleCounts counts stack samples over two spans.
type SampleCounts struct {
	Window     int64 `json:"window"`
	Cumulative int64 `json:"cumulative"`
}

// Process describes the profiled JVM, from the stream's first events.
type Process struct {
	Host    string    `json:"host,omitempty"`
	PID     int32     `json:"pid,omitempty"`
	Name    string    `json:"name,omitempty"`
	Agent   string    `json:"agent,omitempty"`
	Version string    `json:"version,omitempty"`
	Started time.Time `json:"started,omitzero"`
	// Exited is when the process said it was shutting down.
	Exited time.Time `json:"exited,omitzero"`
	// VirtualThreads is how many virtual threads it has, when its source says.
	VirtualThreads int64 `json:"virtualThreads,omitempty"`
}

// Snapshot is the live picture at one moment. It is immutable: the
// aggregator never touches it again, so the UI may keep it as long as it likes.
type Snapshot struct {
	Taken   time.Time     `json:"taken"`
	Window  time.Duration `json:"windowNs"`
	Recent  bool          `json:"recent"` // methods are over the window, not cumulative
	Process Process       `json:"process"`
	Events  int64         `json:"events"`
	Streams int           `json:"streams"`
	// ResetAt is when the statistics were last reset (r r): the
	// cumulative figures count from then, not from the start.
	ResetAt time.Time `json:"resetAt,omitzero"`
	// ResetClock is that reset in the trace's time (Clock's).
	ResetClock time.Time `json:"-"`
	// Clock is the latest event time, the trace's "now"; First the
	// earliest, when the recording began.
	Clock time.Time `json:"traceTime,omitzero"`
	First time.Time `json:"-"`
	// onTraceTime says the picture runs on the trace's own time (a
	// recording): its moment is Clock, not Taken.
	onTraceTime bool
	// Polled says the present (thread states, owners, waiters) is the
	// source's latest thread poll, taken at PolledAt; else it is derived
	// from events.
	Polled   bool      `json:"polled,omitempty"`
	PolledAt time.Time `json:"polledAt,omitzero"`
	// Sampled says the method figures come from stack samples.
	Sampled bool `json:"sampled,omitempty"`
	// SamplesUntimed says the samples stand for no known time (rbkit's):
	// of every sample since the start, none has: SELF and TOTAL count
	// samples, also while the window holds none.
	SamplesUntimed bool `json:"samplesUntimed,omitempty"`
	// ThreadCPU says the source measures threads' CPU time (some thread's
	// is known).
	ThreadCPU bool `json:"threadCpu,omitempty"`
	// MethodCPU says calls' CPU time is measured (the source reads threads'
	// CPU time): else a method's CPU is unknown, not 0.
	MethodCPU bool `json:"methodCpu,omitempty"`
	// MethodOwnCPU says the source tells a method's own CPU time apart
	// from its callees' (a ProfilerJ snapshot's call tree).
	MethodOwnCPU bool `json:"methodOwnCpu,omitempty"`
	// Views says the methods come in two views: measured calls (an
	// instrumented call tree) and, marked Sampler, stack samples (a
	// sampler's hits) of the same source; SamplerSelf is the self time of
	// the latter, the 100% of their percentages.
	Views       bool          `json:"methodViews,omitempty"`
	SamplerSelf time.Duration `json:"samplerSelfNs,omitempty"`
	// Samples counts the stack samples over the window and since watching
	// began: a method's share of them is its share of the time sampled,
	// which is all that samples that stand for no known time (rbkit's) say.
	Samples SampleCounts `json:"samples,omitzero"`

	Threads []Thread `json:"threads"`
	// Methods are every row of the view asked for, or, when Page is
	// filled, the rows on screen of the page asked for.
	Methods   []Method          `json:"-"`
	Page      *MethodPageAnswer `json:"-"`
	TotalSelf time.Duration     `json:"totalSelfNs"` // of every method listed: the 100% of their percentages
	// Names holds the method names by slot, shared between snapshots
	// (never changed once shared).
	Names     []string   `json:"-"`
	Monitors  []Monitor  `json:"monitors"`
	Deadlocks []Deadlock `json:"deadlocks"`
	// RecentDeadlocks are the latest that cleared, newest first.
	RecentDeadlocks []PastDeadlock `json:"recentDeadlocks,omitempty"`
	GC              GC             `json:"gc"`
	// The virtual threads, when the source reports them (JDK 21 and
	// later): in groups (the busiest first), how many, and where they
	// were pinned to their carriers.
	VirtualGroups  []VirtualGroup  `json:"virtualGroups,omitempty"`
	Virtual        *VirtualSummary `json:"virtual,omitempty"`
	VirtualPinning []Pinning       `json:"virtualPinning,omitempty"`
	// Notes are what the source says of its data, by topic.
	Notes []Note `json:"notes,omitempty"`
	// Objects is filled when the source reports objects (HasObjects).
	Objects    Objects `json:"objects,omitzero"`
	HasObjects bool    `json:"-"`
	// Coverage is the line coverage by class, when the source reports it.
	Coverage []CoverageClass `json:"coverage,omitempty"`
	// Telemetry is every series, in order of appearance (shared between
	// snapshots: never modify it); TelemetryProblems say why series or
	// probes the user asked for cannot be read; TelemetryDropped counts
	// the series beyond the bound, TelemetryUndeclared the values of
	// series never declared. Probes is the probes table.
	Telemetry           []Series           `json:"telemetry"`
	TelemetryWindow     time.Duration      `json:"telemetryWindowNs"` // the span of the series' Points
	TelemetryProblems   []TelemetryProblem `json:"telemetryProblems,omitempty"`
	TelemetryDropped    int                `json:"telemetrySeriesDropped,omitempty"`
	TelemetryUndeclared int64              `json:"telemetryValuesUndeclared,omitempty"`
	Probes              []ProbeRow         `json:"probes"`

	// Callers of the method the query asked about (since the start), and
	// its figures over the window and since the start.
	Callers         []Caller `json:"callers,omitempty"`
	FocusRecent     Method   `json:"-"`
	FocusCumulative Method   `json:"-"`
	HasFocus        bool     `json:"-"` // the two above are filled
	// Since is, in a picture of the history, each method row's figures
	// since watching began (or the latest reset) as of that moment, by
	// slot as Methods; nil where they were not kept.
	Since []Method `json:"-"`
	// Counters for the header.
	Unpaired int64 `json:"unpairedExits"`
	// What the bounded tables leave out.
	NotTracked NotTracked `json:"notTracked"`
	// AgentCost is what watching costs the JVM, when its agent says.
	AgentCost *AgentCost `json:"agentCost,omitempty"`

	gen uint32 // generation of the method table, for reuse
	// threadRows is what Threads was made from, for Release to hand back.
	threadRows threadRows
	picture    bool // a picture of the history: its tables are not the aggregator's to reuse
	keptOf     Kept // a picture's: the rows there were of what it keeps the first of
	// objectHistories is the array the object classes' histories are cut
	// from, handed back with them by Release.
	objectHistories []int64
}

// Moment is when the picture is of: the trace's time for a recording
// read on its own time (Clock), else when it was taken. The history's
// pictures are dated so, and a moment frozen is compared with them.
func (s *Snapshot) Moment() time.Time {
	if s.OnTraceTime() {
		return s.Clock
	}
	return s.Taken
}

// OnTraceTime says the picture's moment is the trace's own time (a
// recording's), not the wall clock's.
func (s *Snapshot) OnTraceTime() bool { return s.onTraceTime && !s.Clock.IsZero() }

// Percent is a method's share of all self time (of its view).
func (s *Snapshot) Percent(m *Method) float64 {
	total := s.TotalSelf
	if m.Sampler {
		total = s.SamplerSelf
	}
	if total <= 0 {
		return 0
	}
	return 100 * float64(m.Self) / float64(total)
}

// MethodName is the display name (class.method) of a method row.
func (s *Snapshot) MethodName(m *Method) string { return s.Names[m.Slot] }

// NamedMethod is a method row as JSON shows it: named, with its share;
// what was not measured is left out rather than given as a sentinel (a
// total of -1 when only self time is known, a line of 0 or -2 when none,
// the calls and their durations of a method known from stack samples
// only, the CPU time where the source measures none).
type NamedMethod struct {
	Name         string  `json:"name"`
	Percent      float64 `json:"percent"`
	Line         int32   `json:"line,omitempty"`
	Calls        int64   `json:"calls,omitempty"`
	Samples      int64   `json:"samples,omitempty"`
	TotalSamples int64   `json:"totalSamples,omitempty"`
	Self         *int64  `json:"selfNs,omitempty"` // nil: samples that stand for no time (rbkit's)
	Total        *int64  `json:"totalNs,omitempty"`
	Min          int64   `json:"minNs,omitempty"`
	Max          int64   `json:"maxNs,omitempty"`
	CPU          *int64  `json:"cpuNs,omitempty"`
	// SinceStart is, in a picture of the history, the method's figures
	// since watching began as of that moment.
	OwnCPU *int64 `json:"ownCpuNs,omitempty"`
	// SinceStart is, in a picture of the history, the method's figures
	// since watching began as of that moment.
	SinceStart *MethodFigures `json:"sinceStart,omitempty"`
	// Sampler marks a row of the sampler's view of a source with two
	// (Snapshot.Views): read back without it, a picture's two views mix.
	Sampler bool `json:"sampler,omitempty"`
}

// MethodFigures are a method's figures over one span, as JSON shows them.
type MethodFigures struct {
	Calls        int64  `json:"calls,omitempty"`
	Samples      int64  `json:"samples,omitempty"`
	TotalSamples int64  `json:"totalSamples,omitempty"`
	Self         *int64 `json:"selfNs,omitempty"`
	Total        *int64 `json:"totalNs,omitempty"`
	Min          int64  `json:"minNs,omitempty"`
	Max          int64  `json:"maxNs,omitempty"`
	CPU          *int64 `json:"cpuNs,omitempty"`
	OwnCPU       *int64 `json:"ownCpuNs,omitempty"`
}

// BySamples says the methods' figures are told in samples, their shares
// of samples, as the pane and the JSON both show them: samples that stand
// for no time, in the window (of which samples is the count), or ever
// (rbkit's).
func (s *Snapshot) BySamples(samples int64) bool {
	return s.Sampled && s.TotalSelf <= 0 && (samples > 0 || s.SamplesUntimed)
}

// named is a method row as JSON shows it. bySamples says its figures are
// samples that stand for no time, of which samples is every row's: the
// 100% of its share.
func (s *Snapshot) named(m *Method, bySamples bool, samples int64) NamedMethod {
	n := NamedMethod{Name: s.MethodName(m), Percent: s.Percent(m), Calls: m.Calls, Samples: m.Samples, TotalSamples: m.TotalSamples, Sampler: m.Sampler}
	if m.Line > 0 {
		n.Line = m.Line
	}
	if bySamples {
		// As the pane: the share of the samples, and no times, which
		// these samples do not stand for.
		n.Percent = 0
		if samples > 0 {
			n.Percent = 100 * float64(m.Samples) / float64(samples)
		}
		return n
	}
	self := int64(m.Self)
	n.Self = &self
	if m.Timed {
		n.Min, n.Max = int64(m.Min), int64(m.Max)
	}
	if s.MethodCPU && m.Calls > 0 {
		cpu := int64(m.CPU)
		n.CPU = &cpu
	}
	if s.MethodOwnCPU && m.Calls > 0 {
		own := int64(m.OwnCPU)
		n.OwnCPU = &own
	}
	if m.Total >= 0 {
		t := int64(m.Total)
		n.Total = &t
	}
	return n
}

// namedMonitor is a monitor row as JSON shows it: with its name as the
// screen shows it (class@identity, in hex) besides its number.
type namedMonitor struct {
	Name      string `json:"name"`
	ObjectHex string `json:"objectHex"`
	Monitor
}

// MarshalJSON writes the snapshot with every method named, methods in the
// pane's order (by self time), monitors named as on screen.
func (s *Snapshot) MarshalJSON() ([]byte, error) {
	type plain Snapshot
	named := make([]NamedMethod, len(s.Methods))
	var samples, samplesSince int64
	for i := range s.Methods {
		samples += s.Methods[i].Samples
	}
	for i := range s.Since {
		samplesSince += s.Since[i].Samples
	}
	bySamples := s.BySamples(samples)
	for i := range s.Methods {
		named[i] = s.named(&s.Methods[i], bySamples, samples)
		if i < len(s.Since) {
			since := s.named(&s.Since[i], bySamples, samplesSince)
			named[i].SinceStart = &MethodFigures{Calls: since.Calls, Samples: since.Samples, TotalSamples: since.TotalSamples,
				Self: since.Self, Total: since.Total, Min: since.Min, Max: since.Max, CPU: since.CPU, OwnCPU: since.OwnCPU}
		}
	}
	if bySamples {
		sort.SliceStable(named, func(i, j int) bool { return named[i].Samples > named[j].Samples })
	} else {
		sort.SliceStable(named, func(i, j int) bool { return *named[i].Self > *named[j].Self })
	}
	monitors := make([]namedMonitor, len(s.Monitors))
	for i := range s.Monitors {
		m := &s.Monitors[i]
		monitors[i] = namedMonitor{Name: MonitorName(m), ObjectHex: strconv.FormatInt(m.Object, 16), Monitor: *m}
	}
	// Everything but the methods, whose field is left empty: it stands
	// in for the snapshot's own (a shallower field wins) and is left out.
	head, err := json.Marshal(struct {
		*plain
		Methods  []NamedMethod  `json:"methods,omitempty"`
		Monitors []namedMonitor `json:"monitors"`
	}{(*plain)(s), nil, monitors})
	if err != nil {
		return nil, err
	}
	// Then the methods, last, a row at a time into a buffer made to
	// measure: 200,000 of them make tens of MB, which encoding/json would
	// build in a buffer doubling as it grows, then copy whole.
	size := len(head) + len(`,"methods":[]}`)
	for i := range named {
		size += len(named[i].Name) + 256
	}
	out := append(make([]byte, 0, size), head[:len(head)-1]...)
	out = append(out, `,"methods":[`...)
	for i := range named {
		row, err := json.Marshal(&named[i])
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, row...)
	}
	return append(out, "]}"...), nil
}

// MonitorName names a lock as Object.toString and jstack's lock names do:
// its class and identity hash in hex; a group of locks, its class, count
// and site.
func MonitorName(m *Monitor) string {
	class := m.Class
	if class == "" {
		class = "object"
	}
	if m.Grouped > 0 {
		name := class + " ×" + strconv.Itoa(m.Grouped)
		if m.Site != "" {
			name += " at " + m.Site
		}
		return name
	}
	return class + "@" + strconv.FormatInt(m.Object, 16)
}

// Query says what a snapshot needs beyond the tables.
type Query struct {
	// Recent asks for method figures over the window instead of cumulative.
	Recent bool
	// StackOf fills the Stack of this thread (0: none); AllStacks those of
	// every thread (shared with the aggregator, not copied, where it can).
	StackOf   int64
	AllStacks bool
	// CallersOf fills Callers for this method slot (-1: none).
	CallersOf int32
	// GroupMonitors lists one row per lock class and site instead of one
	// per lock.
	GroupMonitors bool
	// Telemetry fills the older points of this series, or of the series
	// of this group ("": none).
	Telemetry string
	// Methods asks for the methods on screen rather than every method,
	// when the table is large (MethodPage): the interface's live view.
	Methods *MethodPage
}

// objectClassJSON is a class as JSON shows it: its frees left out where
// the source reports none, rather than given as 0.
type objectClassJSON struct {
	Class     string   `json:"class"`
	Live      int64    `json:"live"`
	Allocs    int64    `json:"allocated"`
	Frees     *int64   `json:"freed,omitempty"`
	Bytes     int64    `json:"bytes"`
	AllocRate float64  `json:"allocatedPerSec"`
	FreeRate  *float64 `json:"freedPerSec,omitempty"`
	BytesRate float64  `json:"bytesPerSec"`
	Sampled   bool     `json:"sampled,omitempty"`
	History   []int64  `json:"liveHistory"`
}

// MarshalJSON writes the objects with their classes' frees only where the
// source reports frees, and a class known from a census alone as its count.
func (o Objects) MarshalJSON() ([]byte, error) {
	type plain Objects
	classes := make([]any, len(o.Classes))
	for i := range o.Classes {
		c := &o.Classes[i]
		if c.Counted || c.BySizeOnly() {
			classes[i] = c // its census count, or its sampled bytes, alone (ObjectClass.MarshalJSON)
			continue
		}
		j := objectClassJSON{Class: c.Class, Live: c.Live, Allocs: c.Allocs, Bytes: c.Bytes, AllocRate: c.AllocRate,
			BytesRate: c.BytesRate, Sampled: c.Sampled, History: c.History}
		if o.FreesReported {
			j.Frees, j.FreeRate = &c.Frees, &c.FreeRate
		}
		classes[i] = j
	}
	return json.Marshal(struct {
		plain
		Classes []any `json:"classes"`
	}{plain(o), classes})
}

// TreeSince is when the call tree since the start began: at the first
// event watched (trace time), which for a JVM attached to long after its
// start is not when its process started; that, when no event is dated.
func (s *Snapshot) TreeSince() time.Time {
	if s.ResetClock.After(s.First) {
		return s.ResetClock // the statistics, the tree's too, count from the reset
	}
	if !s.First.IsZero() {
		return s.First
	}
	return s.Process.Started
}
