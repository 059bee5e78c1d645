package state

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/proftop/proftop/decode"
)

type waiter struct {
	t       *thread
	waiting bool // Object.wait (or a condition) rather than contention
	since   int64
	timeout int64 // ms
	// unseenStart: since is when a look first saw it so, not when it
	// began; beforeWatching: that look was the stream's first.
	unseenStart, beforeWatching bool
}

type monitor struct {
	obj        int64
	class      string
	classID    int64 // of the current stream, while its name is unknown
	owner      *thread
	ownerDepth int // the owner's open calls when it took the monitor
	waiters    []waiter
	enters     int64
	waits      int64
	blockedN   int64
	blockedSum int64
	blockedMax int64
	lastSeen   int64
	// A java.util.concurrent synchronizer (threads park on it), not a monitor.
	synchronizer bool
	site         string // where it is contended (see siteOf)
	// Virtual threads held up by it that a listing counts in groups only.
	unlistedBlocked, unlistedWaiting int64
	// listed: it is in the table's list of monitors that have had
	// waiters since the last search for deadlocks (monitorTable.busy).
	listed bool
	// held: it is in the table's list of monitors that may have an owner,
	// waiters or unlisted threads (monitorTable.held).
	held bool
	// older and newer link the table's monitors in the order they were
	// last seen (monitorTable.oldest).
	older, newer *monitor
}

// setOwner records who holds the monitor, and how deep in its calls. A
// contender naming the owner already known keeps the depth where it took
// the monitor (lower, if it is now shallower: it must have taken it again).
func (mt *monitorTable) setOwner(m *monitor, t *thread) {
	if t == nil {
		m.owner = nil
		return
	}
	mt.hold(m)
	if m.owner == t {
		m.ownerDepth = min(m.ownerDepth, len(t.calls))
		return
	}
	m.owner, m.ownerDepth = t, len(t.calls)
	t.ownsByDepth = t.ownsByDepth || m.ownerDepth > 0
}

// currentOwner is the owner, unless it has since returned from the call
// that held the monitor: the JVM reports no releases, but method exits
// tell when the synchronized frame is gone.
func (m *monitor) currentOwner() *thread {
	if m.owner == nil || m.owner.state == ThreadEnded {
		return nil
	}
	if m.ownerDepth > 0 && len(m.owner.calls) < m.ownerDepth {
		return nil
	}
	return m.owner
}

func (m *monitor) removeWaiter(t *thread) {
	for i := range m.waiters {
		if m.waiters[i].t == t {
			m.waiters = append(m.waiters[:i], m.waiters[i+1:]...)
			return
		}
	}
}

// The monitor table remembers the class of the latest objects allocated or named
// (Options.MaxRecentAllocations of them), so that a monitor can be named
// by its class when it first shows up. Only the latest allocations are
// kept: memory must not grow with the stream.
type monitorTable struct {
	byObj   map[int64]*monitor
	ordered []objMonitor // byObj's monitors by object, remade by rows
	// busy lists the monitors given a waiter since the last search for
	// deadlocks, and those that still had one then: the search looks at
	// these, not at every monitor (a JVM's stream names tens of thousands
	// of them, the search runs ten times a trace second).
	busy []*monitor
	// held lists the monitors that may have an owner, waiters or unlisted
	// threads since the latest poll, once a poll has been seen (polled):
	// a poll's present clears these, not every monitor.
	held   []*monitor
	polled bool
	// oldest and newest are the ends of the list of the monitors in the
	// order they were last seen: a full table drops the oldest idle ones
	// without going through all of them.
	oldest, newest *monitor
	// spare holds monitors the table dropped that no list refers to, for
	// the next new ones: a JVM that waits on a new object every few
	// hundred microseconds (H2) made most of a replay's garbage of them.
	spare []*monitor
	// last is the monitor get found last: an event looks its monitor up
	// two or three times (its episode, its owner, its figures).
	last   *monitor
	search deadlockSearch
	sites  siteNames
	// gen counts the changes to owners and waiters the events do not say
	// (a poll's present set, monitors expired, classes named), for the
	// deadlocks found (deadlockfind.go).
	gen      uint64
	objClass recentClasses        // object -> class id, for the latest allocations
	pending  map[int64][]*monitor // class id -> monitors waiting for its name
	// pendingN counts pending's entries; past pendingLimit, those no longer
	// in the table or no longer waiting are let go: a stream that never
	// defines the classes it names does not grow it beyond the table.
	pendingN, pendingLimit int
	classes                map[int64]string

	// At most max monitors are kept. A full table makes room by dropping
	// idle ones among those seen longest ago, the least used first; when
	// none is idle, new monitors are counted in refused, and room is looked
	// for again only after a while (noRoomFor more refusals), so that a
	// full table costs no sorting per event. forgotten counts the locks
	// dropped, whose figures since watching began went with them (each
	// once: an episode the polls saw may make one again, to drop again).
	max       int
	noRoomFor int
	refused   untracked
	forgotten untracked
	dropping  []dropCandidate // expire's candidates, reused
}

func (mt *monitorTable) init(max, allocRing int) {
	mt.max = max
	mt.byObj = map[int64]*monitor{}
	mt.objClass.init(allocRing)
	mt.pending = map[int64][]*monitor{}
	mt.classes = map[int64]string{}
}

// get returns the monitor of an object, made if need be; nil, and the
// object counted as not tracked, when the table is full.
func (mt *monitorTable) get(obj int64, now int64) *monitor {
	m := mt.last
	if m == nil || m.obj != obj {
		m = mt.byObj[obj]
	}
	if m == nil {
		if len(mt.byObj) >= mt.max && !mt.makeRoom() {
			mt.refused.addID(obj)
			return nil
		}
		m = mt.newMonitor(obj)
		mt.byObj[obj] = m
		if cid, ok := mt.objClass.get(obj); ok {
			mt.name(m, cid)
		}
	}
	mt.seen(m, now)
	mt.last = m
	return m
}

// newMonitor is a monitor of obj, a spare one when there is.
func (mt *monitorTable) newMonitor(obj int64) *monitor {
	n := len(mt.spare)
	if n == 0 {
		return &monitor{obj: obj}
	}
	m := mt.spare[n-1]
	mt.spare[n-1] = nil
	mt.spare = mt.spare[:n-1]
	w := m.waiters[:0]
	clear(w[:cap(w)]) // holds no thread it waited for
	*m = monitor{obj: obj, waiters: w}
	return m
}

// seen makes a monitor the newest seen, at trace time at (its lastSeen
// never goes back: events may come a little out of time order).
func (mt *monitorTable) seen(m *monitor, at int64) {
	m.lastSeen = max(m.lastSeen, at)
	if mt.newest == m {
		return
	}
	mt.unlink(m)
	m.older = mt.newest
	if mt.newest != nil {
		mt.newest.newer = m
	} else {
		mt.oldest = m
	}
	mt.newest = m
}

// unlink takes a monitor out of the list of monitors last seen.
func (mt *monitorTable) unlink(m *monitor) {
	if m.older != nil {
		m.older.newer = m.newer
	} else if mt.oldest == m {
		mt.oldest = m.newer
	}
	if m.newer != nil {
		m.newer.older = m.older
	} else if mt.newest == m {
		mt.newest = m.older
	}
	m.older, m.newer = nil, nil
}

// has says the table still holds m: the lists that outlive a monitor's
// drop (busy, held, pending) check each entry with it.
func (mt *monitorTable) has(m *monitor) bool { return mt.byObj[m.obj] == m }

// hold lists a monitor given an owner, a waiter or unlisted threads, for
// the next poll to clear.
func (mt *monitorTable) hold(m *monitor) {
	if mt.polled && !m.held {
		m.held = true
		mt.held = append(mt.held, m)
	}
}

// makeRoom drops the idle monitors seen longest ago, down to 7/8 of the
// limit; false when none is idle.
func (mt *monitorTable) makeRoom() bool {
	if mt.noRoomFor > 0 {
		mt.noRoomFor--
		return false
	}
	mt.expire(min(mt.max-mt.max/8, mt.max-1)) // room for one at least, however small the table
	if len(mt.byObj) >= mt.max {
		mt.noRoomFor = max(mt.max/8, 1)
		return false
	}
	return true
}

func (mt *monitorTable) name(m *monitor, classID int64) {
	if name, ok := mt.classes[classID]; ok {
		m.class, m.classID = name, 0
		mt.gen++ // a deadlock names its monitors' classes
		return
	}
	if m.classID == classID {
		return // waiting for that name already
	}
	m.classID = classID
	mt.pending[classID] = append(mt.pending[classID], m)
	if mt.pendingN++; mt.pendingN > max(mt.pendingLimit, 2*mt.max) {
		mt.prunePending()
	}
}

// prunePending lets go of the monitors waiting for a class name that the
// table no longer holds, or that wait for another name now.
func (mt *monitorTable) prunePending() {
	n := 0
	for id, list := range mt.pending {
		kept := list[:0]
		for _, m := range list {
			if m.classID == id && mt.has(m) {
				kept = append(kept, m)
			}
		}
		clear(list[len(kept):])
		if len(kept) == 0 {
			delete(mt.pending, id)
		} else {
			mt.pending[id] = kept
		}
		n += len(kept)
	}
	mt.pendingN, mt.pendingLimit = n, 2*n
}

// classOf records an object's class, allocated or named (objClass); the
// objects of monitor events are usually allocated long before, so only
// the latest are kept.
func (mt *monitorTable) classOf(obj, classID int64) {
	if m := mt.byObj[obj]; m != nil && m.class == "" {
		mt.name(m, classID)
	}
	mt.objClass.put(obj, classID)
}

func (mt *monitorTable) classDefined(id int64, name string) {
	if _, ok := mt.classes[id]; ok || len(mt.classes) < maxClasses {
		mt.classes[id] = name
	}
	for _, m := range mt.pending[id] {
		if m.classID == id {
			m.class, m.classID = name, 0
			mt.gen++ // a deadlock names its monitors' classes
		}
	}
	mt.pendingN -= len(mt.pending[id])
	delete(mt.pending, id)
}

// addWaiter adds a thread blocked or waiting on a monitor.
func (mt *monitorTable) addWaiter(m *monitor, w waiter) {
	mt.hold(m)
	m.waiters = append(m.waiters, w)
	if !m.listed {
		m.listed = true
		mt.busy = append(mt.busy, m)
	}
}

// detach takes a thread out of the waiters of the monitor it was on.
func (mt *monitorTable) detach(t *thread) {
	if t.monitor != 0 {
		if m := mt.byObj[t.monitor]; m != nil {
			m.removeWaiter(t)
		}
	}
}

// contend records a thread blocking on a monitor owned by owner (0: unknown).
func (mt *monitorTable) contend(obj int64, t *thread, owner *thread, now int64) {
	m := mt.get(obj, now)
	if m == nil {
		return
	}
	m.enters++
	if owner != nil && owner != t {
		mt.setOwner(m, owner)
	}
	m.removeWaiter(t)
	mt.addWaiter(m, waiter{t: t, since: now})
}

// entered records a blocked thread getting the monitor after blockedNS.
func (mt *monitorTable) entered(obj int64, t *thread, now, blockedNS int64) {
	m := mt.get(obj, now)
	if m == nil {
		return
	}
	m.owner = nil // the thread took it just now, at its present depth
	mt.setOwner(m, t)
	m.removeWaiter(t)
	m.blockedN++
	m.blockedSum += blockedNS
	m.blockedMax = max(m.blockedMax, blockedNS)
}

// lateEntered counts a contention that ended before the present state of
// its thread began: statistics only, no owner or waiter changes.
func (mt *monitorTable) lateEntered(obj, now, blockedNS int64) {
	m := mt.get(obj, now)
	if m == nil {
		return
	}
	m.enters++
	m.blockedN++
	m.blockedSum += blockedNS
	m.blockedMax = max(m.blockedMax, blockedNS)
}

// lateWaited counts a wait that ended before the present state of its
// thread began.
func (mt *monitorTable) lateWaited(obj, now int64) {
	if m := mt.get(obj, now); m != nil {
		m.waits++
	}
}

// wait records the owner calling Object.wait: it lets the monitor go.
func (mt *monitorTable) wait(obj int64, t *thread, now int64) {
	m := mt.get(obj, now)
	if m == nil {
		return
	}
	m.waits++
	if m.owner == t {
		m.owner = nil
	}
	m.removeWaiter(t)
	mt.addWaiter(m, waiter{t: t, waiting: true, since: now, timeout: t.timeout})
}

// waited records the end of a wait. The thread returns from wait holding
// the monitor unless a contended enter says otherwise.
func (mt *monitorTable) waited(obj int64, t *thread, now int64) {
	m := mt.get(obj, now)
	if m == nil {
		return
	}
	m.removeWaiter(t)
	if m.currentOwner() == nil {
		mt.setOwner(m, t)
	}
}

// forget removes an ended thread from every monitor. A contention it
// ends with (a thread of a deadlock killed) counts in the monitor's
// figures as it lasted until now.
func (mt *monitorTable) forget(t *thread, now int64) {
	if t.monitor != 0 && !t.polled {
		if m := mt.byObj[t.monitor]; m != nil {
			for _, w := range m.waiters {
				if w.t == t && !w.waiting {
					d := max(now-w.since, 0)
					m.blockedN++
					m.blockedSum += d
					m.blockedMax = max(m.blockedMax, d)
				}
			}
		}
	}
	mt.detach(t)
	for _, m := range mt.byObj {
		if m.owner == t {
			m.owner = nil
		}
	}
}

// newStream drops owners, waiters and classes: they belonged to the old
// stream, and a new JVM may use the same object ids for other objects.
func (mt *monitorTable) newStream() {
	for _, m := range mt.byObj {
		m.owner, m.waiters, m.classID, m.class = nil, nil, 0, ""
		m.unlistedBlocked, m.unlistedWaiting = 0, 0
	}
	mt.objClass.reset()
	clear(mt.pending)
	mt.pendingN = 0
	clear(mt.classes)
	mt.refused.reset()
	mt.noRoomFor = 0
}

func (mt *monitorTable) reset() {
	for _, m := range mt.byObj {
		m.enters, m.waits, m.blockedN, m.blockedSum, m.blockedMax = 0, 0, 0, 0, 0
	}
	mt.forgotten.reset()
}

// expire drops the idle monitors seen longest ago when there are too many.
// It goes from the oldest seen to the newest, so that what it costs
// follows what it drops (and the busy monitors it passes), not the size
// of the table; which go depends only on the order of the events, never
// on the map's, so that a replay shows the same monitors every time.
func (mt *monitorTable) expire(limit int) {
	excess := len(mt.byObj) - limit
	if excess <= 0 {
		return
	}
	// The candidates: twice as many idle monitors as must go, the oldest
	// seen; of those, the least used go first, so that a lock used all
	// along but idle a moment outlives a stream of locks used once each
	// (a database's row locks: 34,000 transactions in 30 s on H2).
	cands := mt.dropping[:0]
	for m := mt.oldest; m != nil && len(cands) < 2*excess; m = m.newer {
		if m.currentOwner() == nil && len(m.waiters) == 0 && m.unlistedBlocked+m.unlistedWaiting == 0 {
			cands = append(cands, dropCandidate{uses: m.enters + m.waits, m: m})
		}
	}
	for _, c := range leastUsed(cands, excess) {
		m := c.m
		mt.unlink(m)
		delete(mt.byObj, m.obj)
		mt.forgotten.addID(m.obj)
		mt.gen++
		if mt.last == m {
			mt.last = nil
		}
		// Not in the busy list nor the held one (which look it up
		// again), nor awaiting a class name: nothing else refers to it.
		if !m.listed && !m.held && m.classID == 0 && len(mt.spare) < mt.max/8+1 {
			mt.spare = append(mt.spare, m)
		}
	}
	clear(cands)
	mt.dropping = cands[:0]
	mt.compactHeld()
}

// dropCandidate is a monitor expire may drop, and how often it was used.
type dropCandidate struct {
	uses int64
	m    *monitor
}

// fewUses bounds the uses leastUsed counts one by one: idle monitors
// about to be dropped were mostly used once or twice (a database's row
// locks, a transaction each).
const fewUses = 64

// leastUsed puts first the n least used of cands (in the order they were
// walked, the oldest seen first) and returns them; among the equally used,
// those walked first. It counts the uses rather than sorting: most
// candidates share a handful of values, and sorting 2,500 of them for
// every 1,250 monitors dropped was a fifth of a long H2 replay.
func leastUsed(cands []dropCandidate, n int) []dropCandidate {
	if n >= len(cands) {
		return cands
	}
	var count [fewUses + 1]int // the last: fewUses uses or more
	for _, c := range cands {
		if c.uses < 0 {
			// A monitor made again by taking back an estimate (count's
			// -1) goes first, as the sort puts it: sort them all.
			return sortedLeastUsed(cands, n)
		}
		count[min(c.uses, fewUses)]++
	}
	// cut is the uses of the n-th least used; below cut all go, at cut the
	// first walked.
	cut, below := 0, 0
	for below+count[cut] < n {
		below += count[cut]
		cut++
	}
	if cut == fewUses {
		// Some go that were used fewUses times or more: sort them all.
		return sortedLeastUsed(cands, n)
	}
	atCut := n - below
	kept := 0
	for _, c := range cands {
		u := min(c.uses, fewUses)
		if u < int64(cut) || (u == int64(cut) && atCut > 0) {
			if u == int64(cut) {
				atCut--
			}
			cands[kept] = c // kept <= the index: an in-place filter
			kept++
		}
	}
	return cands[:kept]
}

// sortedLeastUsed is leastUsed by a stable sort: by uses, then by place.
func sortedLeastUsed(cands []dropCandidate, n int) []dropCandidate {
	slices.SortStableFunc(cands, func(a, b dropCandidate) int { return cmp.Compare(a.uses, b.uses) })
	return cands[:n]
}

// compactHeld keeps the list of held monitors within twice the table:
// monitors expired between two polls stay in it until the next.
func (mt *monitorTable) compactHeld() {
	if len(mt.held) <= 2*mt.max {
		return
	}
	kept := mt.held[:0]
	for _, m := range mt.held {
		if mt.has(m) {
			kept = append(kept, m)
		} else {
			m.held = false
		}
	}
	clear(mt.held[len(kept):])
	mt.held = kept
}

// rows lists the monitors at trace time now. For a polled source, live
// adds what the contentions in progress and those awaiting their report
// add to each (see episodes.go); for others, the contentions in progress
// count in the maximum and the total.
func (mt *monitorTable) rows(now int64, methods *methodTable, live map[int64]*monitorLive, out []Monitor) []Monitor {
	out = slices.Grow(out[:0], len(mt.byObj))
	// The rows are made in the order of their objects: sorting the monitors
	// is cheap, sorting a thousand rows of this size was a tenth of a
	// millisecond a snapshot.
	// The object is sorted on beside its monitor: comparing through the
	// pointers missed the cache at each comparison, a third of the rows'
	// time with 10,000 monitors.
	mt.ordered = slices.Grow(mt.ordered[:0], len(mt.byObj))
	for obj, m := range mt.byObj {
		mt.ordered = append(mt.ordered, objMonitor{obj, m})
	}
	slices.SortFunc(mt.ordered, func(a, b objMonitor) int { return cmp.Compare(a.obj, b.obj) })
	for _, om := range mt.ordered {
		m := om.m
		r := Monitor{Object: m.obj, Class: m.class, Synchronizer: m.synchronizer, Site: m.site, Enters: m.enters, Waits: m.waits,
			BlockedSum: time.Duration(m.blockedSum), BlockedMax: time.Duration(m.blockedMax), LastSeen: time.Unix(0, m.lastSeen)}
		n := m.blockedN
		if l := live[m.obj]; l != nil {
			r.Enters += l.enters
			r.Waits += l.waits
			n += l.enters
			r.BlockedSum += time.Duration(l.sum)
			r.BlockedMax = max(r.BlockedMax, time.Duration(l.max))
		}
		if o := m.currentOwner(); o != nil {
			r.Owner, r.OwnerName, r.OwnerVirtual = o.id, o.name, o.virtual
			r.OwnerStack, r.OwnerFrom = o.currentStack(methods)
		}
		r.VirtualUnlistedBlocked, r.VirtualUnlistedWaiting = m.unlistedBlocked, m.unlistedWaiting
		r.VirtualWaiters = m.unlistedBlocked + m.unlistedWaiting
		r.Waiters = make([]Waiter, 0, len(m.waiters))
		for _, w := range m.waiters {
			st := w.t.sharedStack()
			if w.t.polled {
				st = w.t.pollStack
			}
			if w.t.virtual {
				r.VirtualWaiters++
			}
			r.Waiters = append(r.Waiters, Waiter{Thread: w.t.id, ThreadName: w.t.name, Virtual: w.t.virtual, Waiting: w.waiting, State: w.t.state,
				Since: time.Unix(0, w.since), Timeout: time.Duration(w.timeout) * time.Millisecond, Stack: st})
			if r.Site == "" {
				r.Site = siteOf(st)
			}
			// A virtual thread's contention is in no report and no poll's
			// episode (JFR records none): the listings' are all there is.
			if !w.waiting && (live == nil || w.t.virtual) {
				d := max(now-w.since, 0)
				r.BlockedMax = max(r.BlockedMax, time.Duration(d))
				r.BlockedSum += time.Duration(d) // a platform thread's enter is already counted
				n++
			}
		}
		if n > 0 {
			r.BlockedAvg = r.BlockedSum / time.Duration(n)
		}
		out = append(out, r)
	}
	clear(mt.ordered)             // holds no monitor the table has dropped
	clear(out[len(out):cap(out)]) // nor rows of a reused table beyond those made
	return out
}

// objMonitor is a monitor and its object, to be sorted by.
type objMonitor struct {
	obj int64
	m   *monitor
}

// setPresent makes the latest poll, and the latest listing of the virtual
// threads, the monitors' present: owners and waiters are exactly what the
// threads' polled and listed states say.
func (mt *monitorTable) setPresent(a *Aggregator) {
	mt.gen++
	clearPresent := func(m *monitor) {
		m.owner, m.ownerDepth = nil, 0
		m.waiters = m.waiters[:0]
		m.unlistedBlocked, m.unlistedWaiting = 0, 0
		m.held = false
	}
	if mt.polled {
		for _, m := range mt.held {
			clearPresent(m)
		}
	} else {
		for _, m := range mt.byObj {
			clearPresent(m)
		}
		mt.polled = true
	}
	clear(mt.held)
	mt.held = mt.held[:0]
	add := func(t *thread) {
		if !t.polled || t.state == ThreadEnded || t.monitor == 0 || !t.state.onLock() {
			return
		}
		m := mt.byObj[t.monitor]
		if m == nil {
			return
		}
		_, waiting := episodeKind(t.state, t.monitor, t.lockOwner, contendsFor(t.lockClass, t.onLock))
		mt.addWaiter(m, waiter{t: t, waiting: waiting, since: t.since, unseenStart: t.unseenStart, beforeWatching: t.beforeWatching})
		if t.lockOwner != 0 {
			m.owner = a.ownerThread(t.lockOwner, t.stream)
		}
		mt.seen(m, t.pollSeen())
	}
	for _, t := range a.threads.all {
		add(t)
	}
	vt := &a.virtual
	for _, t := range vt.threads {
		add(t)
	}
	for _, g := range vt.present {
		m := mt.byObj[g.key.lock]
		if g.key.lock == 0 || m == nil || !g.key.state.onLock() {
			continue
		}
		mt.hold(m)
		if _, waiting := episodeKind(g.key.state, g.key.lock, g.key.owner, contendsFor(g.key.lockClass, g.key.flags&decode.ThreadOnLock != 0)); waiting {
			m.unlistedWaiting += g.count
		} else {
			m.unlistedBlocked += g.count
		}
		if g.key.owner != 0 && m.owner == nil {
			m.owner = a.ownerThread(g.key.owner, a.stream)
		}
		mt.seen(m, vt.listedAt)
	}
}

// jdkLocking are the frames a contended stack begins with that say nothing
// of where the application takes the lock.
var jdkLocking = []string{"java.lang.Object.wait", "java.util.concurrent.locks.", "jdk.internal.misc.Unsafe.",
	"sun.misc.Unsafe.", "java.lang.Thread.", "java.util.concurrent.SynchronousQueue", "java.util.concurrent.LinkedBlockingQueue",
	"java.util.concurrent.ArrayBlockingQueue", "java.util.concurrent.CountDownLatch", "java.util.concurrent.Semaphore",
	"java.util.concurrent.FutureTask", "java.util.concurrent.CompletableFuture", "java.util.concurrent.ForkJoinPool",
	"java.lang.VirtualThread."} // a virtual thread parks in VirtualThread.park, not Unsafe.park

// siteOf is where a stack takes or waits on its lock: its first frame
// outside the JDK's locking code, as "method:line".
func siteOf(st []Frame) string {
	for _, f := range st {
		if !inJDKLocking(f.Method) {
			return siteName(f.Method, f.Line)
		}
	}
	return ""
}

// siteOfStack is siteOf for a stack as decoded, read in place: a new
// monitor takes its site from its first event's stack, and a JVM that
// waits on a new object every few hundred microseconds (H2) made a copy
// of each such stack, and a new name for the same few sites.
func (mt *monitorTable) siteOfStack(st *decode.Stack) string {
	for i, m := range st.Methods[:min(len(st.Methods), maxStackDepth)] {
		if !inJDKLocking(m) {
			return mt.sites.name(m, st.Lines[i])
		}
	}
	return ""
}

// siteNames keeps the latest sites named: the monitors of one place in the
// code share its name.
type siteNames struct {
	latest [16]struct {
		method string
		line   int64
		site   string
	}
	next int
}

func (c *siteNames) name(method string, line int64) string {
	if line <= 0 {
		return method
	}
	for i := range c.latest {
		if e := &c.latest[i]; e.line == line && e.method == method {
			return e.site
		}
	}
	site := siteName(method, line)
	c.latest[c.next].method, c.latest[c.next].line, c.latest[c.next].site = method, line, site
	c.next = (c.next + 1) % len(c.latest)
	return site
}

// inJDKLocking says a frame is of the JDK's locking code (jdkLocking).
func inJDKLocking(method string) bool {
	if method == "" || (method[0] != 'j' && method[0] != 's') {
		return false // every prefix begins with "java", "jdk" or "sun"
	}
	for _, p := range jdkLocking {
		if strings.HasPrefix(method, p) {
			return true
		}
	}
	return false
}

func siteName(method string, line int64) string {
	if line > 0 {
		return method + ":" + strconv.FormatInt(line, 10)
	}
	return method
}

// JVMAgentName is the name proftop's JVM agent gives itself (its
// agentCreate): it names a lock by its identity hash, and a lock it could
// not identify by JFR's address for it, which it keeps above every
// identity hash (agent/java/…/Contentions.unnamed).
const JVMAgentName = "proftop JVM agent"

// maxIdentityHash is the largest identity hash: HotSpot's are 31 bits.
const maxIdentityHash = 0x7fffffff
