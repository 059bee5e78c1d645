package state

import (
	"strings"

	"github.com/proftop/proftop/decode"
)

// Contentions and waits of a polled source. A poll tells what is true now
// (thread T is blocked on lock L); the source's events tell, later and
// exactly, each contention and wait once it is over (JFR reports them a
// second or so after they end, and never those that began before it
// started, nor a deadlock, which never ends). The totals combine both
// without counting anything twice:
//
//   - a block or wait a poll sees is live: it counts from when a poll first
//     saw it to now;
//   - once a poll sees it over, it is pending: it counts as what the polls
//     saw of it, until the source's exact report of it arrives and takes its
//     place;
//   - a pending one nobody reports within pendingGrace is committed as an
//     estimate, which an exact report arriving later still replaces.
//
// A report is the same episode as a poll's when it is of the same thread
// and kind and overlaps it in time: a thread blocks on one lock at a time.
// Reports need not name the lock as the poll does (the JVM agent cannot
// always tell which of its names for a lock is which): they count on the
// lock they name.
//
// Every one of them counts from when counting began at the earliest
// (threadTable.countFrom: the stream's first poll, or the latest reset),
// as the first poll's blocks and waits do: a report is dated by the start
// of what it reports, which may be long before (a timed wait under way
// when proftop attached, reported whole once it times out), and counted
// whole it would make the thread's column read more than the time
// watched, while its neighbour's endless wait reads that time exactly.

// pendingGrace is how long (trace time) a block or wait a poll saw end
// waits for the source's report before it counts as an estimate; an
// estimate stays replaceable for estimateLife more.
const (
	pendingGrace = 5_000_000_000
	estimateLife = 30_000_000_000
	// maxEpisodes bounds a thread's pending episodes and estimates.
	maxEpisodes = 16
	// splitMargin is how much earlier than a reported episode the first
	// poll must have seen its thread on the lock for that to be another
	// episode: the agent dates a poll by its start, and the first poll of
	// a large JVM takes hundreds of milliseconds to reach its last
	// threads; one that began blocking meanwhile must not count twice. The
	// earlier episode's part lost to the margin is at most this.
	splitMargin = 1_000_000_000
)

// episode is one block or wait as polls saw it, lower bounds both ends.
type episode struct {
	obj      int64
	waiting  bool  // a wait (Object.wait, a condition), not contention
	since    int64 // the first poll that saw it
	lastSeen int64 // the last poll that saw it
	ended    int64 // the first poll that saw it over (pending and estimates)
	// unseenStart says it was under way at the first poll that saw its
	// thread, so since is when it was first seen, not when it began; and
	// beforeWatching that this poll was the stream's first. (A thread a
	// later poll sees first started after the poll before, which listed
	// every thread: what it does began since then.)
	unseenStart, beforeWatching bool
	// confirmed says the source reported it (exactly) while a poll still
	// saw it: the next poll that sees the thread on the lock sees a new one.
	confirmed bool
	// times is the thread's count of blocks when a poll first saw it (0:
	// not said): a poll that counts more sees another one.
	times int64
}

func (e *episode) length() int64 { return max(e.lastSeen-e.since, 0) }

// overlaps says an exact report [start, end] is this episode.
func (e *episode) overlaps(waiting bool, start, end int64) bool {
	return e.waiting == waiting && start <= e.lastSeen && end >= e.since
}

// histOpen is a contention or wait the source reported begun.
type histOpen struct {
	open    bool
	waiting bool
	obj     int64
	start   int64
}

// episodeKind is what a polled state means for the totals: contention
// (blocked on a monitor, or parked on a lock: one someone owns, or one of
// a class that is a lock, which a poll may catch at the instant it has no
// owner), a wait, or neither. isLock says the lock's class is a lock's
// (contendsFor).
func episodeKind(s ThreadState, lock, owner int64, isLock bool) (on bool, waiting bool) {
	switch {
	case lock == 0:
		return false, false
	case s == ThreadBlocked, s == ThreadParked && (owner != 0 || isLock):
		return true, false
	case s == ThreadParked, s == ThreadWaiting, s == ThreadTimedWaiting:
		return true, true
	}
	return false, false
}

// episodeTotals is what the thread's live and pending episodes add to its
// blocked and waiting times and its contentions, at trace time now.
func (t *thread) episodeTotals(now int64) (blocked, waiting, contentions int64) {
	add := func(e *episode, d int64) {
		if e.waiting {
			waiting += d
		} else {
			blocked += d
			contentions++
		}
	}
	if e := t.live; e != nil && !e.confirmed {
		add(e, max(now-e.since, 0))
	}
	for i := range t.pending {
		add(&t.pending[i], t.pending[i].length())
	}
	return blocked, waiting, contentions
}

// observeEpisode follows the thread's block or wait at a poll at now;
// times is how often a blocked thread has blocked since it started, 0
// when the source does not say (polledThread.times); firstLook
// says the poll is the first to see the thread, and firstPoll that it is
// the stream's first.
func (a *Aggregator) observeEpisode(t *thread, s ThreadState, lock, owner int64, isLock bool, times, now int64, firstLook, firstPoll bool) {
	on, waiting := episodeKind(s, lock, owner, isLock)
	if e := t.live; e != nil && (!on || e.obj != lock || e.waiting != waiting || e.confirmed || again(e.times, times)) {
		// Over, or over and begun again since the poll before: a lock
		// held for milliseconds at a time, entered at every poll, is not
		// one contention of seconds.
		a.endEpisode(t, now)
	}
	if !on {
		return
	}
	if t.live == nil {
		unseen := firstLook && firstPoll
		t.live = &episode{obj: lock, waiting: waiting, since: now, lastSeen: now, unseenStart: unseen, beforeWatching: unseen, times: times}
		return
	}
	t.live.lastSeen = now
}

// again says a thread held up at two polls, having been so before times
// and now times now, was let go in between: its count went up.
func again(before, now int64) bool { return before > 0 && now > before }

// endEpisode ends the thread's live episode: a poll at now saw it over.
func (a *Aggregator) endEpisode(t *thread, now int64) {
	e := t.live
	t.live = nil
	if e == nil || e.confirmed {
		return
	}
	a.endEpisodeAt(t, *e, now)
}

// endEpisodeAt makes e pending, seen over at now.
func (a *Aggregator) endEpisodeAt(t *thread, e episode, now int64) {
	e.ended = now
	if len(t.pending) >= maxEpisodes {
		a.commitEstimate(t, t.pending[0])
		t.pending = t.pending[:copy(t.pending, t.pending[1:])]
	}
	t.pending = append(t.pending, e)
}

// expireEpisodes commits, as estimates, the pending episodes nobody
// reported in time, and forgets old estimates.
func (a *Aggregator) expireEpisodes(t *thread, now int64) {
	keep := t.pending[:0]
	for _, e := range t.pending {
		if now-e.ended > pendingGrace {
			a.commitEstimate(t, e)
			continue
		}
		keep = append(keep, e)
	}
	t.pending = keep
	est := t.estimates[:0]
	for _, e := range t.estimates {
		if now-e.ended <= pendingGrace+estimateLife {
			est = append(est, e)
		}
	}
	t.estimates = est
}

// commitEstimate counts an episode nobody reported as the polls saw it.
func (a *Aggregator) commitEstimate(t *thread, e episode) {
	a.count(t, e.obj, e.waiting, e.length(), 1)
	if len(t.estimates) >= maxEpisodes {
		t.estimates = t.estimates[:copy(t.estimates, t.estimates[1:])]
	}
	t.estimates = append(t.estimates, e)
}

// count adds (n = 1) or takes back (n = -1) one contention or wait of d ns
// on obj to the thread's (nil: one no poll lists) and the monitor's totals.
func (a *Aggregator) count(t *thread, obj int64, waiting bool, d, n int64) {
	m := a.monitors.get(obj, a.latest)
	if m == nil {
		m = &monitor{} // not tracked: the thread's figures count all the same
	}
	if waiting {
		if t != nil {
			t.waitingNS += n * d
		}
		m.waits += n
		return
	}
	if t != nil {
		t.blockedNS += n * d
		t.contention += n
	}
	m.enters += n
	m.blockedN += n
	m.blockedSum += n * d
	if n > 0 {
		m.blockedMax = max(m.blockedMax, d)
	}
}

// reported takes the source's exact report of a contention or wait of a
// polled thread, over [start, end] on obj: it takes the place of the
// poll's view of the same episode.
func (a *Aggregator) reported(t *thread, obj int64, waiting bool, start, end int64) {
	from := a.threads.countFrom
	if end < from {
		// Over before counting began: nothing of it was watched, and no
		// episode of the polls (all seen since) is it.
		return
	}
	if e := t.live; e != nil && !e.confirmed && e.overlaps(waiting, start, end) {
		if e.beforeWatching && start-e.since > splitMargin {
			// The first poll saw it under way before the episode reported
			// began: what it saw first was an earlier one, begun before
			// the source started (JFR reports none of those), which no
			// report will name. That part counts as the polls saw it, as
			// an episode they saw end, and the rest is the one reported;
			// taken all as the one reported, the thread's column went
			// back by the earlier one's length, and stayed short of it.
			head := *e
			head.lastSeen = start - 1 // before the report's start: the report does not replace it
			a.endEpisodeAt(t, head, start)
			e.since, e.unseenStart, e.beforeWatching = start, false, false
		}
		if end >= e.lastSeen {
			e.confirmed = true
		} else {
			// The polls saw two episodes as one: the one reported, then
			// another, from the last poll at the latest.
			e.since = e.lastSeen
		}
	}
	// Most reports replace no pending episode or estimate: the lists are
	// only read then, not rewritten (a JVM reports thousands a second).
	if i := firstOverlap(t.pending, waiting, start, end); i >= 0 {
		keep := t.pending[:i]
		for _, e := range t.pending[i+1:] {
			if !e.overlaps(waiting, start, end) {
				keep = append(keep, e)
			}
		}
		t.pending = keep
	}
	if i := firstOverlap(t.estimates, waiting, start, end); i >= 0 {
		est := t.estimates[:i]
		for _, e := range t.estimates[i:] {
			if e.overlaps(waiting, start, end) {
				a.count(t, e.obj, e.waiting, e.length(), -1)
				continue
			}
			est = append(est, e)
		}
		t.estimates = est
	}
	a.count(t, obj, waiting, max(end-max(start, from), 0), 1)
}

// firstOverlap is the index of the first episode a report [start, end]
// replaces, -1 for none.
func firstOverlap(eps []episode, waiting bool, start, end int64) int {
	for i := range eps {
		if eps[i].overlaps(waiting, start, end) {
			return i
		}
	}
	return -1
}

// liveOnMonitors adds up, per monitor, what the live and pending episodes
// add to its figures now.
type monitorLive struct {
	enters, waits, sum, max int64
}

func (a *Aggregator) liveOnMonitors(now int64) map[int64]*monitorLive {
	if !a.polled {
		return nil
	}
	out := map[int64]*monitorLive{}
	add := func(e *episode, d int64) {
		l := out[e.obj]
		if l == nil {
			l = &monitorLive{}
			out[e.obj] = l
		}
		if e.waiting {
			l.waits++
			return
		}
		l.enters++
		l.sum += d
		l.max = max(l.max, d)
	}
	for _, t := range a.threads.all {
		if e := t.live; e != nil && !e.confirmed {
			add(e, max(now-e.since, 0))
		}
		for i := range t.pending {
			add(&t.pending[i], t.pending[i].length())
		}
	}
	return out
}

// maxStrangers bounds the contentions of unlisted threads awaiting their end.
const maxStrangers = 65_536

// historyBegins takes the begin of a contention or wait the source
// reports for the statistics (a polled source's present comes from polls).
// t is nil for a thread no poll lists (a virtual thread): its contentions
// count for their locks only, and never make it a row of the thread table.
func (a *Aggregator) historyBegins(t *thread, id, obj int64, waiting bool, at int64, st *decode.Stack) {
	h := histOpen{open: true, waiting: waiting, obj: obj, start: at}
	if t != nil {
		t.hist = h
	} else {
		if len(a.strangers) >= maxStrangers {
			clear(a.strangers)
		}
		a.strangers[id] = h
	}
	if m := a.monitors.get(obj, at); m != nil && m.site == "" && len(st.Methods) > 0 {
		m.site = a.monitors.siteOfStack(st)
	}
}

// historyEnds takes its end: the episode is counted, exactly.
func (a *Aggregator) historyEnds(t *thread, id, obj int64, waiting bool, at int64) {
	var h histOpen
	if t != nil {
		h = t.hist
	} else {
		h = a.strangers[id]
	}
	if !h.open || h.waiting != waiting || h.obj != obj {
		a.unpaired++
		return
	}
	if t == nil {
		delete(a.strangers, id)
		if from := a.threads.countFrom; at >= from { // as reported's
			a.count(nil, obj, waiting, max(at-max(h.start, from), 0), 1)
		}
		return
	}
	t.hist.open = false
	a.reported(t, obj, waiting, h.start, at)
}

// framesOf copies a decoded stack.
func framesOf(st *decode.Stack) []Frame {
	out := make([]Frame, min(len(st.Methods), maxStackDepth))
	for i, m := range st.Methods[:len(out)] {
		out[i] = Frame{Method: m, Line: st.Lines[i]}
	}
	return out
}

// lockClassPrefixes are the classes of java.util.concurrent synchronizers
// that are locks (their Sync classes, and StampedLock): a park on one is
// contention for it, owner known or not (a poll may catch it between two
// owners; a thread dump does not say who owns a lock only virtual threads
// want). A park on anything else (a ConditionObject, a latch, a queue) is a
// wait.
var lockClassPrefixes = []string{"java.util.concurrent.locks.ReentrantLock$", "java.util.concurrent.locks.ReentrantReadWriteLock$",
	"java.util.concurrent.locks.StampedLock", "java.util.concurrent.Semaphore$"}

// contendsFor says a park on an object of this class is contention for a
// lock: the source says so (onLock: the JVM agent knows the JDK's locks
// and every class it has seen owned), or the class is one of the JDK's
// locks.
func contendsFor(lockClass string, onLock bool) bool {
	if onLock {
		return true
	}
	for _, p := range lockClassPrefixes {
		if strings.HasPrefix(lockClass, p) {
			return true
		}
	}
	return false
}
