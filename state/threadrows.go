package state

import "time"

// A snapshot lists every thread, and a picture of 10,000 threads made all
// their rows anew each frame: a third of a frame of the default view,
// though a second of calls touches a few hundred of them. A released
// table of rows is brought up to date instead: the rows of the threads
// changed since it was made are made again, and so are the rows that
// depended on the time they were made for (a thread blocked since, its
// %CPU over a span that has grown), which the table lists.
//
// A thread counts as changed whenever the table hands it out for an
// event (get, lookup) or changes it itself, whatever the event then does
// with it; what changes every thread at once (a reset, the end of the
// trace, rows that moved) changes them all. FuzzApply checks after every
// batch that a table brought up to date equals one made anew.

// rowMarks says which threads changed since a table of rows was made.
type rowMarks struct {
	// gen is the generation of the next table to be made: a change now is
	// stamped with it, and a table made at gen holds the changes stamped
	// up to gen.
	gen       uint64
	allAt     uint64   // the latest change to every row
	changedAt []uint64 // by index in all: the latest change to the thread
}

// threadRows is a table of rows and what it was made from.
type threadRows struct {
	rows []Thread
	made rowsMade
	// volatile lists the rows that depended on the time they were made for.
	volatile []int32
}

// rowsMade is what a table of rows was made from, besides the threads.
type rowsMade struct {
	gen       uint64
	stackOf   int64
	allStacks bool
	renames   uint64 // the method table's renames: a row names its thread's method
	cpuSpan   bool   // %CPU had a span to be measured over
}

// threadNames names the other threads a row shows: a lock's owner, the
// virtual thread a carrier runs.
type threadNames struct {
	owner, mounted func(id int64) string
}

// touch stamps a thread changed.
func (tt *threadTable) touch(t *thread) {
	tt.marks.changedAt[t.index] = tt.marks.gen
}

// changedAll marks every row changed.
func (tt *threadTable) changedAll() { tt.marks.allAt = tt.marks.gen }

// mark takes a mark of every thread's CPU at trace time now, if the
// latest is cpuWindow old: %CPU is measured between the two latest. A
// snapshot takes one; so does a recording's trace time passing, which a
// replay played at once crosses between two snapshots.
func (tt *threadTable) mark(now int64) {
	now = tt.readingsAt(now)
	if tt.markAt != 0 && now-tt.markAt < int64(cpuWindow) {
		return
	}
	tt.prevAt, tt.markAt = tt.markAt, now
	tt.samplesAtPrev, tt.samplesAtSnap = tt.samplesAtSnap, tt.samples
	for _, t := range tt.all {
		if t.cpuAtSnap != t.cpuAtPrev || t.samplesAtSnap != t.samplesAtPrev {
			tt.touch(t) // its %CPU is measured from another figure
		}
		t.cpuAtPrev, t.cpuAtSnap = t.cpuAtSnap, t.cpu
		t.samplesAtPrev, t.samplesAtSnap = t.samplesAtSnap, t.samples
	}
}

// readingsAt is when the CPU readings held at trace time now were taken:
// the latest reading's time while readings keep coming (a poll's, a
// second apart), else now: a source that reads CPU with its events only
// (a method's exit) stops reading when its threads go quiet, and their
// rate must fall as the trace goes on, not stay at its last value.
func (tt *threadTable) readingsAt(now int64) int64 {
	if tt.cpuAt > 0 && tt.cpuAt <= now && now-tt.cpuAt < int64(cpuWindow) {
		return tt.cpuAt
	}
	return now
}

// rows lists the threads at trace time now, in a table brought up to date
// from buf (a released one, or none). %CPU is the CPU a thread spent
// between two marks of the table at least cpuWindow apart in trace time,
// over that span: both come from the same clock, so a replay at any speed
// (or a simulated clock) reads the same, and no thread exceeds 100%.
func (tt *threadTable) rows(now int64, stackOf int64, allStacks bool, mt *methodTable, names threadNames, buf threadRows) threadRows {
	m := &tt.marks
	tt.mark(now)
	span := tt.readingsAt(now) - tt.prevAt
	made := rowsMade{gen: m.gen, stackOf: stackOf, allStacks: allStacks, renames: mt.renames, cpuSpan: tt.prevAt != 0 && span > 0}
	out := threadRows{rows: buf.rows, made: made, volatile: buf.volatile[:0]}
	old := buf.made
	whole := len(buf.rows) != len(tt.all) || m.allAt > old.gen || allStacks || old.allStacks ||
		old.stackOf != stackOf || old.renames != made.renames || old.cpuSpan != made.cpuSpan
	fill := func(i int) {
		if tt.fillRow(&out.rows[i], tt.all[i], now, span, stackOf, allStacks, mt, names) {
			out.volatile = append(out.volatile, int32(i))
		}
	}
	if whole {
		if cap(out.rows) >= len(tt.all) {
			clear(out.rows[len(tt.all):cap(out.rows)]) // rows of threads since dropped: nothing of theirs kept
			out.rows = out.rows[:len(tt.all)]
		} else {
			out.rows = make([]Thread, len(tt.all))
		}
		for i := range tt.all {
			fill(i)
		}
	} else {
		// The volatile rows first: out.volatile is written over the list
		// being read, never ahead of it.
		for _, i := range buf.volatile {
			if m.changedAt[i] <= old.gen { // else made again below
				fill(int(i))
			}
		}
		for i, at := range m.changedAt {
			if at > old.gen {
				fill(i)
			}
		}
	}
	m.gen++
	return out
}

// fillRow makes a thread's row; it says whether the row depends on the
// time it was made for.
func (tt *threadTable) fillRow(r *Thread, t *thread, now, span int64, stackOf int64, allStacks bool, mt *methodTable, names threadNames) (volatile bool) {
	*r = Thread{ID: t.id, Name: t.name, Group: t.group, State: t.state, Started: t.started,
		CPU: time.Duration(t.cpu - t.cpuBase), CPUKnown: t.cpuKnown, Blocked: time.Duration(t.blockedNS), Waiting: time.Duration(t.waitingNS),
		Contentions: t.contention, Monitor: t.monitor, Stream: t.stream, Depth: len(t.calls),
		LockClass: t.lockClass, LockOwner: t.lockOwner, Timed: t.timed, Daemon: t.daemon,
		VirtualCarrier: t.carrier, VirtualMounted: t.carries}
	if t.lockOwner != 0 {
		r.LockOwnerName = names.owner(t.lockOwner) // another thread's name
		volatile = true
	}
	if t.carries != 0 {
		r.VirtualMountedName = names.mounted(t.carries) // a virtual thread's, as the latest listing has it
		volatile = true
	}
	if t.state == ThreadEnded {
		r.Ended = t.ended
	}
	if t.polled {
		b, w, n := t.episodeTotals(now)
		r.Blocked += time.Duration(b)
		r.Waiting += time.Duration(w)
		r.Contentions += n
		if t.state != ThreadEnded && t.state != ThreadRunning && t.state != ThreadNative {
			r.Since = t.since
			// The first poll's states, and those a reset moved to it,
			// began at countFrom or before.
			r.SinceBegan = !t.unseenStart && t.since > tt.countFrom
		}
		if len(t.pollStack) > 0 {
			r.Method, r.Depth = t.pollStack[0].Method, len(t.pollStack)
		}
		volatile = true // its episodes' lengths run on
	} else {
		switch t.state {
		case ThreadBlocked:
			r.Blocked += time.Duration(max(now-t.since, 0))
			r.Since = t.since
			volatile = true
		case ThreadWaiting, ThreadTimedWaiting:
			r.Waiting += time.Duration(max(now-t.since, 0))
			r.Since = t.since
			volatile = true
		}
		// An event dates its start exactly, unless a reset moved it.
		r.SinceBegan = r.Since != 0 && t.since > tt.countFrom
		if n := len(t.calls); n > 0 {
			r.Method = methodNotTracked
			if slot := t.calls[n-1].slot; slot >= 0 {
				r.Method = mt.name(slot)
			}
		} else if t.sampleTop != "" {
			r.Method = t.sampleTop
		}
	}
	r.CPUPercent = UnknownPercent
	if tt.prevAt != 0 && span > 0 && t.cpuKnown {
		r.CPUPercent = Percent(min(100*float64(t.cpu-t.cpuAtPrev)/float64(span), 100))
		volatile = volatile || t.cpu != t.cpuAtPrev // over a span that grows
	}
	if r.Samples = t.samples; !t.cpuKnown && t.samples > 0 {
		if tt.samples > tt.samplesAtPrev {
			r.CPUPercent = Percent(100 * float64(t.samples-t.samplesAtPrev) / float64(tt.samples-tt.samplesAtPrev))
		}
		volatile = true // a share of every thread's samples
	}
	if t.state == ThreadEnded {
		// Its CPU stopped with it: the rate of its last seconds alive
		// would stay on its row for as long as the row does.
		r.CPUPercent = UnknownPercent
	}
	if (allStacks || t.id == stackOf) && t.state != ThreadEnded {
		r.Stack, r.StackFrom = t.currentStack(mt)
		volatile = true
	}
	return volatile
}
