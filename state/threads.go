package state

import (
	"strconv"
	"time"

	"github.com/proftop/proftop/decode"
)

// openCall is a method entered and not yet left.
type openCall struct {
	ticket   int32
	slot     int32
	start    int64 // ns
	child    int64 // time spent in callees, ns
	cpuStart int64 // the thread's CPU time at entry, ns
	node     int32 // its node in the call tree (-1: none)
	cut      bool  // the call tree's bound cut it: node is its caller's
	// inner: its method was already open below it (a recursive call):
	// its time is inside the outermost call's. credited: of an outermost
	// call, the time its recursive calls, once done, gave the method's
	// total already (their own time, so that the total never reads less
	// than the self time while the outermost call is open); it gives the
	// rest of its time when it ends.
	inner    bool
	credited int64
}

// maxOpenCalls bounds a thread's stack of open calls: a stream that loses
// exits must not grow it forever.
const maxOpenCalls = 4096

type thread struct {
	id        int64
	index     int32 // its place in the table's all, for its row's marks (threadrows.go)
	name      string
	group     string
	stream    int
	state     ThreadState
	started   int64
	ended     int64
	cpu       int64 // ns
	cpuKnown  bool  // a CPU reading has arrived: cpu is a measure, not a zero
	cpuBase   int64 // cpu at the last reset: the CPU column counts from it
	cpuAtSnap int64 // cpu at the current mark of the table
	cpuAtPrev int64 // cpu at the previous mark
	calls     []openCall
	blockedNS int64 // closed intervals
	waitingNS int64
	since     int64 // start of the current block or wait
	// unseenStart: since is when the state was first seen, not when it
	// began (it was so at the first look at the thread); beforeWatching:
	// that look was the first of the stream.
	unseenStart, beforeWatching bool
	monitor                     int64
	timeout                     int64 // ms, of the current wait
	contention                  int64
	late                        lateEpisode
	stack                       []Frame // latest reported stack, innermost first
	// stackShared says a snapshot holds stack: the next one is written to
	// a new slice, so snapshots can share stacks without copying them.
	stackShared bool
	// ownsByDepth: it was seen owning a monitor taken in one of its open
	// calls, which its exits may release (monitor.currentOwner).
	ownsByDepth bool
	// search is its part in the latest search for deadlocks.
	search searchMark

	// From the latest thread poll, for sources that send polls.
	lockClass string
	lockOwner int64
	onLock    bool // the source says it parks on a lock (decode.ThreadOnLock)
	timed     bool
	daemon    bool
	polled    bool    // a poll has listed it
	pollMark  uint32  // the latest poll that listed it
	pollStack []Frame // its stack at the latest poll, innermost first; shared with snapshots, never changed
	live      *episode
	// Contentions and waits seen by polls that are over, awaiting the
	// source's exact report of them; then committed as estimates.
	pending   []episode
	estimates []episode
	// The contention or wait the source reported begun and not yet over
	// (polled sources report them for the statistics only).
	hist histOpen
	// The method on top of its latest stack sample; and, of a source
	// that polls no stacks, that sample's stack (made anew each time, so
	// that a snapshot may keep it).
	sampleTop string
	sampled   []Frame
	// Its root in the call tree, plus one (0: none yet).
	treeRoot int32

	// A virtual thread of the latest listing (never in the thread table),
	// with its decode.ThreadMounted and ThreadPinned flags; a carrier
	// thread, and the virtual thread the latest poll saw it run.
	virtual bool
	vflags  int32
	carrier bool
	carries int64

	// Stack samples of a source that says nothing of their time: the
	// thread's share of them stands for its share of the CPU.
	samples, samplesAtSnap, samplesAtPrev int64
}

// setCPU takes a reading of the thread's CPU time. The first one is a
// baseline: CPU before it was not seen being spent, so the calls open then
// have no CPU figure and the %CPU column does not jump.
func (t *thread) setCPU(ns int64) {
	if !t.cpuKnown {
		t.cpuKnown, t.cpuAtSnap, t.cpuAtPrev = true, ns, ns
		for i := range t.calls {
			t.calls[i].cpuStart = -1
		}
	}
	if ns > t.cpu {
		t.cpu = ns
	}
}

// readCPU takes a reading of a thread's CPU time, taken at trace time at.
func (tt *threadTable) readCPU(t *thread, ns, at int64) {
	t.setCPU(ns)
	tt.cpuAt = max(tt.cpuAt, at)
}

// cpuMark is the CPU time to remember when a call begins: -1 while unknown.
func (t *thread) cpuMark() int64 {
	if !t.cpuKnown {
		return -1
	}
	return t.cpu
}

func (t *thread) push(c openCall) {
	if c.slot >= 0 {
		for i := len(t.calls) - 1; i >= 0 && !c.inner; i-- {
			c.inner = t.calls[i].slot == c.slot
		}
	}
	if len(t.calls) >= maxOpenCalls {
		t.calls = t.calls[:copy(t.calls, t.calls[1:])]
	}
	t.calls = append(t.calls, c)
}

// creditOutermost notes that a recursive call of slot gave the method's
// total ns already: the outermost open call of slot gives that much less.
func (t *thread) creditOutermost(slot int32, ns int64) {
	for i := range t.calls {
		if t.calls[i].slot == slot {
			t.calls[i].credited += ns
			return
		}
	}
}

// pop removes the call with this ticket, and any calls above it whose exits
// never came.
func (t *thread) pop(ticket int32) (openCall, bool) {
	for i := len(t.calls) - 1; i >= 0; i-- {
		if t.calls[i].ticket == ticket {
			c := t.calls[i]
			t.calls = t.calls[:i]
			return c, true
		}
	}
	return openCall{}, false
}

// setStack keeps the stack of a monitor event; an event without one
// (depth 0) leaves the last known stack in place.
func (t *thread) setStack(s *decode.Stack) {
	if len(s.Methods) == 0 {
		return
	}
	if t.stackShared {
		t.stack, t.stackShared = make([]Frame, 0, len(s.Methods)), false
	}
	t.stack = t.stack[:0]
	for i, m := range s.Methods[:min(len(s.Methods), maxStackDepth)] {
		t.stack = append(t.stack, Frame{Method: m, Line: s.Lines[i]})
	}
}

// lateEpisode is a contention or wait reported after the thread's present
// one began, though it ended before: a profiler that learns of contentions
// late (the JVM agent hears of them from JFR once they are over) sends it
// after it has reported the thread blocked now. It counts in the
// statistics and leaves the present state alone.
type lateEpisode struct {
	open    bool
	waiting bool
	obj     int64
	since   int64
}

// predates says an event at time at belongs to the past of the thread's
// present block or wait.
func (t *thread) predates(at int64) bool {
	return (t.state == ThreadBlocked || t.isWaiting()) && at < t.since
}

// beginLate records the start of a late episode.
func (t *thread) beginLate(at, obj int64, waiting bool) {
	t.late = lateEpisode{open: true, waiting: waiting, obj: obj, since: at}
	if !waiting {
		t.contention++
	}
}

// endLate ends the late episode an end event at time at belongs to, and
// returns how long it lasted; ok is false when the event is not its end.
// The end may fall a little after the present began (the profiler's
// clocks differ): the episode is over by then all the same, since a thread
// blocks on one monitor at a time.
func (t *thread) endLate(at, obj int64, waiting bool) (d int64, ok bool) {
	if !t.late.open || t.late.waiting != waiting || t.late.obj != obj {
		return 0, false
	}
	t.late.open = false
	if t.state == ThreadBlocked || t.isWaiting() {
		at = min(at, t.since)
	}
	d = max(at-t.late.since, 0)
	if waiting {
		t.waitingNS += d
	} else {
		t.blockedNS += d
	}
	return d, true
}

func (t *thread) block(now, obj int64) {
	t.closeInterval(now)
	t.state, t.since, t.monitor = ThreadBlocked, now, obj
	t.contention++
}

// unblock ends a contention and returns how long it lasted.
func (t *thread) unblock(now int64) int64 {
	d := int64(0)
	if t.state == ThreadBlocked {
		d = max(now-t.since, 0)
	}
	t.closeInterval(now)
	t.state, t.monitor = ThreadRunning, 0
	return d
}

func (t *thread) wait(now, obj, timeoutMS int64) {
	t.closeInterval(now)
	t.state, t.since, t.monitor, t.timeout = ThreadWaiting, now, obj, timeoutMS
	if timeoutMS > 0 {
		t.state = ThreadTimedWaiting
	}
}

// isWaiting says the thread waits on a monitor (timed or not).
func (t *thread) isWaiting() bool { return t.state == ThreadWaiting || t.state == ThreadTimedWaiting }

func (t *thread) unwait(now int64) {
	t.closeInterval(now)
	t.state, t.monitor, t.timeout = ThreadRunning, 0, 0
}

// closeInterval adds the current block or wait to the totals; the state
// changes after it, and a late episode still open is forgotten.
func (t *thread) closeInterval(now int64) {
	t.late.open = false
	if t.polled {
		return // a poll's present state: episodes keep the totals
	}
	switch t.state {
	case ThreadBlocked:
		t.blockedNS += max(now-t.since, 0)
	case ThreadWaiting, ThreadTimedWaiting:
		t.waitingNS += max(now-t.since, 0)
	}
}

// end marks the thread ended; it reports whether it was running before.
func (t *thread) end(now int64) bool {
	if t.state == ThreadEnded {
		return false
	}
	t.closeInterval(now)
	t.state, t.ended, t.monitor, t.lockOwner, t.lockClass = ThreadEnded, now, 0, 0, ""
	t.calls = nil
	return true
}

// endThread ends a thread of the table, keeping count.
func (tt *threadTable) endThread(t *thread, now int64) {
	tt.touch(t)
	if t.end(now) {
		tt.ended++
	}
}

// currentStack is the thread's stack as best known: its open method calls
// when it is running and they are known (live), else the stack its latest
// monitor event reported.
func (t *thread) currentStack(mt *methodTable) ([]Frame, string) {
	if t.virtual {
		return t.pollStack, "listing of the virtual threads"
	}
	if t.polled && t.pollStack != nil {
		return t.pollStack, "thread poll"
	}
	if t.state == ThreadRunning && len(t.calls) > 0 {
		out := make([]Frame, 0, len(t.calls))
		for j := len(t.calls) - 1; j >= 0; j-- {
			slot := t.calls[j].slot
			if slot < 0 {
				out = append(out, Frame{Method: methodNotTracked})
				continue
			}
			out = append(out, Frame{Method: mt.name(slot), Line: mt.stats.at(slot).line})
		}
		return out, "method entries"
	}
	if len(t.sampled) > 0 && (t.state == ThreadRunning || len(t.stack) == 0) {
		return t.sampled, "latest stack sample"
	}
	if len(t.stack) > 0 {
		return t.sharedStack(), "latest monitor event"
	}
	return nil, ""
}

// sharedStack hands the latest reported stack to a snapshot.
func (t *thread) sharedStack() []Frame {
	if len(t.stack) == 0 {
		return nil
	}
	t.stackShared = true
	return t.stack[:len(t.stack):len(t.stack)]
}

// threadTable holds the threads: the live ones by id, ended ones until
// they expire. At most max live threads are tracked; the others are
// counted in refused.
type threadTable struct {
	byID    idIndex[*thread] // threads of the current stream
	all     []*thread        // every thread listed, in order of appearance
	ended   int              // how many of all have ended
	max     int
	refused untracked // thread ids of this stream turned away
	// %CPU is measured from the previous of two marks taken at least
	// cpuWindow apart (trace time, ns): CPU readings arrive in batches (a
	// poll a second), so a rate over one refresh would flicker.
	markAt, prevAt int64
	// cpuAt is when the latest CPU reading was taken (trace time, ns; 0:
	// none yet): a mark is dated by the readings it holds, not by the
	// latest event, which may be a second past them (a poll's readings
	// come a second apart, other events in between).
	cpuAt int64
	// Every thread's unweighted samples, and the count at the two marks.
	samples, samplesAtSnap, samplesAtPrev int64
	// Which rows changed since a table of them was made (threadrows.go).
	marks rowMarks
	// countFrom is when the blocked and waiting times count from (trace
	// time, ns; 0: the start): the latest reset, and for a polled source
	// its stream's first poll, which is when watching began for the
	// totals (episodes.go). A block or wait under way then counts from
	// then; its start, when a report tells it, is earlier than anything
	// watched.
	countFrom int64
}

const cpuWindow = 2 * time.Second

func (tt *threadTable) init(max int) { tt.byID, tt.max = idIndex[*thread]{}, max }

// lookup returns the thread of an id, or nil; the caller may change it.
func (tt *threadTable) lookup(id int64) *thread {
	t := tt.byID.get(id)
	if t != nil {
		tt.touch(t)
	}
	return t
}

// full says no more live threads may be tracked.
func (tt *threadTable) full() bool { return len(tt.all)-tt.ended >= tt.max }

// sampled counts n stack samples of a thread that stand for no known time.
func (tt *threadTable) sampled(t *thread, n int64) {
	tt.touch(t)
	t.samples += n
	tt.samples += n
}

// get returns the thread, creating a placeholder for one whose start was
// not seen (it was running before tracing began); nil, and the thread
// counted as not tracked, when the table is full.
func (tt *threadTable) get(id int64, stream int) *thread {
	if t := tt.byID.get(id); t != nil {
		tt.touch(t)
		return t
	}
	if tt.full() {
		tt.refused.addID(id)
		return nil
	}
	t := &thread{id: id, name: "thread-" + strconv.FormatInt(id, 10), stream: stream}
	tt.byID.set(id, t, len(tt.all))
	tt.add(t)
	return t
}

// add lists a new thread.
func (tt *threadTable) add(t *thread) {
	t.index = int32(len(tt.all))
	tt.all = append(tt.all, t)
	tt.marks.changedAt = append(tt.marks.changedAt, tt.marks.gen)
}

func (tt *threadTable) start(e *decode.ThreadStart, now int64, stream int) {
	t := tt.byID.get(e.ThreadID)
	if t == nil || t.state == ThreadEnded {
		if tt.full() {
			tt.refused.addID(e.ThreadID)
			return
		}
		t = &thread{id: e.ThreadID, stream: stream}
		tt.byID.set(e.ThreadID, t, len(tt.all))
		tt.add(t)
	}
	tt.touch(t)
	t.name, t.group, t.started = e.ThreadName, e.GroupName, now
}

// endAll ends the threads of a finished stream.
// traceEnded says the trace ended (its end event): a thread still
// running is from then on of unknown state; one held up by a lock says
// what held it up when the trace ended.
func (tt *threadTable) traceEnded() {
	tt.changedAll()
	tt.byID.each(func(t *thread) {
		if t.state == ThreadRunning || t.state == ThreadNative {
			t.state = ThreadUnknown
		}
	})
}

func (tt *threadTable) endAll(now int64) {
	tt.changedAll()
	tt.byID.each(func(t *thread) { tt.endThread(t, now) })
	tt.byID.reset()
	tt.refused.reset()
}

// reset zeroes the counters; a block or wait in progress counts from now,
// and so does one reported later that was under way now.
func (tt *threadTable) reset(now int64) {
	tt.changedAll()
	tt.countFrom = max(tt.countFrom, now)
	for _, t := range tt.all {
		t.blockedNS, t.waitingNS, t.contention = 0, 0, 0
		t.cpuBase = t.cpu // CPU time counts from now; its rate is unchanged
		t.pending, t.estimates = t.pending[:0], t.estimates[:0]
		if t.live != nil {
			t.live.since = max(t.live.since, now)
		}
		if t.state.onLock() {
			t.since = max(t.since, now)
		}
		if t.late.open {
			// A late episode's end counts it from its start (endLate):
			// from now, as the present's.
			t.late.since = max(t.late.since, now)
		}
	}
}

// expire drops ended threads older than the retention, and the oldest
// ended ones beyond the limit.
func (tt *threadTable) expire(now int64, retention time.Duration, limit int) {
	if tt.ended == 0 {
		return
	}
	ended := tt.ended
	keep := tt.all[:0]
	for _, t := range tt.all {
		if t.state == ThreadEnded && (now-t.ended > int64(retention) || ended > limit) {
			ended--
			if tt.byID.get(t.id) == t {
				tt.byID.remove(t.id)
			}
			continue
		}
		t.index = int32(len(keep))
		keep = append(keep, t)
	}
	if len(keep) < len(tt.all) {
		tt.changedAll() // rows moved
		tt.marks.changedAt = tt.marks.changedAt[:len(keep)]
	}
	clear(tt.all[len(keep):])
	tt.all = keep
	tt.ended = ended
}

// pollSeen is when the latest poll listing the thread was taken: its
// state's since, or later.
func (t *thread) pollSeen() int64 {
	if t.live != nil {
		return t.live.lastSeen
	}
	return t.since
}
