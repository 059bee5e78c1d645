package state

import (
	"github.com/proftop/proftop/decode"
)

// The present of a polled source: each ThreadState of a poll is held until
// the ThreadPoll that closes it, then the whole poll becomes the present at
// once: every thread's state, lock, owner and stack, every monitor's owner
// and waiters. Nothing of the present is older than the latest poll.

// polledThread is one thread's entry in a poll being received.
type polledThread struct {
	id        int64
	state     ThreadState
	flags     int32
	lock      int64
	lockClass string
	owner     int64
	cpu       int64   // ns; -1: unknown
	stack     []Frame // nil: unchanged since the thread's previous poll
	carries   int64   // a carrier's virtual thread
	// times is how often a blocked thread has blocked on a monitor since
	// it started; 0: not said, or not blocked. (A park's or a wait's count
	// is not used: a parked thread that loses its lock to a barging one
	// parks again within one hold-up, and a pool thread's timed waits for
	// work are one idle stretch to whoever reads it.)
	times int64
}

// pollBuffer collects the entries of the poll being received.
type pollBuffer struct {
	entries  []polledThread
	overflow int64 // entries dropped beyond the bound
}

// addThreadState holds one thread's entry until its poll closes. A poll
// larger than the thread bound is cut (and the cut counted): a peer
// cannot grow it without limit.
func (a *Aggregator) addThreadState(e *decode.ThreadState) {
	pb := &a.poll
	if len(pb.entries) >= a.opts.MaxThreads {
		pb.overflow++
		return
	}
	st, ok := parseThreadState(e.State)
	if !ok {
		a.badStates++
	}
	p := polledThread{id: e.ThreadIDRef, state: st, flags: e.Flags, lock: e.LockObjIDRef, lockClass: e.LockClass,
		owner: e.LockOwner, cpu: -1, carries: e.Carrier}
	if st == ThreadBlocked {
		p.times = e.BlockedCount
	}
	if e.CPUTime >= 0 {
		p.cpu = int64(a.clock.Duration(e.CPUTime))
	}
	if e.Flags&decode.ThreadStackUnchanged == 0 {
		p.stack = make([]Frame, min(len(e.Stack.Methods), maxStackDepth))
		for i, m := range e.Stack.Methods[:len(p.stack)] {
			p.stack[i] = Frame{Method: m, Line: e.Stack.Lines[i]}
		}
	}
	if !st.onLock() {
		p.lock, p.lockClass, p.owner = 0, "", 0
	}
	if p.owner == p.id {
		p.owner = 0 // a thread is never held up by itself
	}
	pb.entries = append(pb.entries, p)
}

// applyPoll makes the received poll the present.
func (a *Aggregator) applyPoll(e *decode.ThreadPoll) {
	now := a.at(e.Time)
	if !a.process.Exited.IsZero() {
		// The process said it shut down: a poll sent after (the agent's
		// poller racing its shutdown hook) tells of threads now gone,
		// and would bring them back.
		a.poll.entries, a.poll.overflow = a.poll.entries[:0], 0
		return
	}
	firstPoll := !a.polled
	a.polled, a.polledAt = true, now
	if firstPoll {
		// Watching the stream's blocks and waits begins: what this poll
		// sees under way counts from now (observeEpisode), and so does
		// what a report tells later of one under way now (reported).
		a.threads.countFrom = max(a.threads.countFrom, now)
	}
	a.pollMark++
	untracked := a.poll.overflow
	for i := range a.poll.entries {
		p := &a.poll.entries[i]
		t := a.threads.get(p.id, a.stream)
		if t == nil {
			untracked++
			continue
		}
		a.observePolled(t, p, now, firstPoll)
	}
	a.poll.entries, a.poll.overflow = a.poll.entries[:0], 0
	a.pollUntracked = untracked // the JVM's threads now that the picture leaves out
	if e.Flags&decode.PollComplete != 0 {
		for _, t := range a.threads.all {
			// A thread of this stream that the poll does not list and that
			// started before it is gone.
			if t.stream == a.stream && t.state != ThreadEnded && t.pollMark != a.pollMark && t.started <= now {
				a.endThread(t, now)
			}
		}
	}
	for _, t := range a.threads.all {
		if t.polled {
			a.expireEpisodes(t, now)
		}
	}
	a.monitors.setPresent(a)
}

// observePolled sets a thread's present from its poll entry; firstPoll
// says the poll is the stream's first.
func (a *Aggregator) observePolled(t *thread, p *polledThread, now int64, firstPoll bool) {
	firstLook := !t.polled
	if t.state == ThreadEnded {
		// The poll is the truth: the thread lives (thread ids are never
		// reused within a JVM, so it is this one).
		t.ended = 0
		a.threads.ended--
	}
	t.polled, t.pollMark = true, a.pollMark
	if p.cpu >= 0 {
		a.threads.readCPU(t, p.cpu, now)
	}
	if p.stack != nil {
		t.pollStack = p.stack
	}
	t.daemon = p.flags&decode.ThreadDaemon != 0
	t.timed = p.flags&decode.ThreadTimed != 0
	t.onLock = p.flags&decode.ThreadOnLock != 0
	t.carrier = p.flags&decode.ThreadCarrier != 0 || p.carries != 0
	t.carries = p.carries
	a.observeEpisode(t, p.state, p.lock, p.owner, contendsFor(p.lockClass, p.flags&decode.ThreadOnLock != 0), p.times, now, firstLook, firstPoll)
	switch {
	case t.live != nil:
		t.since, t.unseenStart, t.beforeWatching = t.live.since, t.live.unseenStart, t.live.beforeWatching
	case t.state != p.state:
		t.since, t.unseenStart, t.beforeWatching = now, firstLook && firstPoll, firstLook && firstPoll
	}
	t.state, t.monitor, t.lockClass, t.lockOwner = p.state, p.lock, p.lockClass, p.owner
	if p.lock == 0 {
		return
	}
	if m := a.monitors.get(p.lock, now); m != nil {
		m.synchronizer = m.synchronizer || p.state == ThreadParked
		if p.lockClass != "" {
			m.class, m.classID = p.lockClass, 0
		}
	}
}

// threadEnded ends a thread at the moment the source says it ended. Blocked
// or waiting at the last poll, it was until then (a deadlock's thread,
// killed, reports no end of its contention): its lock keeps at least what
// it showed while the thread lasted. A thread a poll finds gone ended at
// some moment since the poll before, and keeps what the polls saw.
func (a *Aggregator) threadEnded(t *thread, now int64) {
	if e := t.live; t.polled && e != nil {
		e.lastSeen = max(e.lastSeen, now)
	}
	a.endThread(t, now)
}

// endThread ends a thread, with what it was doing.
func (a *Aggregator) endThread(t *thread, now int64) {
	if t.polled {
		a.endEpisode(t, now)
	}
	a.monitors.forget(t, now)
	a.threads.endThread(t, now)
}
