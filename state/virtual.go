package state

import (
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/proftop/proftop/decode"
)

// Virtual threads (JDK 21 and later). A source lists them apart from its
// poll of the platform threads, and less often when listing them costs
// much: a few one by one (ThreadState with the virtual flag), the rest
// counted in groups alike in container, state, lock and the method they
// are in (ThreadGroup); a VirtualThreads message closes the listing and,
// every poll, says how many there are, started and ended. The latest
// listing is the virtual present until the next one: its threads are
// waiters and owners of the monitors and can be in a deadlock like any
// other, but never rows of the thread table, which 100,000 of them would
// swamp. The Threads pane shows them as groups ("3,120 parked in
// OrderService.await"), each opening on its threads.
//
// Memory stays bounded whatever a source sends: at most MaxVirtualListed
// threads of a listing are kept one by one (the rest are folded into
// groups) and MaxVirtualGroups groups (the rest into one group a state).

// VirtualGroup is one row of virtual threads: those of a container in one
// state in one method. Threads are the ones listed one by one (at most
// maxGroupThreads of them, with their stacks).
type VirtualGroup struct {
	ID        int64       `json:"id"`
	Container string      `json:"container"`
	State     ThreadState `json:"state"`
	// Mounted: on a carrier (running, or pinned). Pinned: blocked, parked,
	// waiting or sleeping without leaving its carrier. A running thread
	// that is not mounted waits for a carrier (Ready).
	Mounted bool   `json:"mounted,omitempty"`
	Pinned  bool   `json:"pinned,omitempty"`
	Ready   bool   `json:"ready,omitempty"`
	Site    string `json:"site"` // the method they are in: the first frame outside the JDK
	Count   int64  `json:"count"`
	// The lock they all wait for, its class and owner, when they share one.
	Lock      int64  `json:"lock,omitempty"`
	LockClass string `json:"lockClass,omitempty"`
	LockOwner int64  `json:"lockOwner,omitempty"`
	OwnerName string `json:"lockOwnerName,omitempty"`
	// Listed counts the threads known one by one; Threads holds the first
	// of them. Stack is one member's, for a group with none listed.
	Listed  int             `json:"listed"`
	Threads []VirtualThread `json:"threads,omitempty"`
	Stack   []Frame         `json:"stack,omitempty"`
}

// VirtualThread is one virtual thread of a listing.
type VirtualThread struct {
	ID        int64       `json:"id"`
	Name      string      `json:"name"`
	State     ThreadState `json:"state"`
	Pinned    bool        `json:"pinned,omitempty"`
	Carrier   int64       `json:"carrier,omitempty"`
	Lock      int64       `json:"lock,omitempty"`
	LockClass string      `json:"lockClass,omitempty"`
	LockOwner int64       `json:"lockOwner,omitempty"`
	Timed     bool        `json:"timed,omitempty"`
	Stack     []Frame     `json:"stack,omitempty"`
}

// VirtualSummary is how many virtual threads there are and what they do.
type VirtualSummary struct {
	Count     int64 `json:"count"` // -1: unknown
	Estimated bool  `json:"estimated,omitempty"`
	// Started and Ended count since the source began counting (-1:
	// unknown); the rates are per second over the last few seconds.
	Started       int64   `json:"started"`
	Ended         int64   `json:"ended"`
	StartedPerSec float64 `json:"startedPerSec"`
	EndedPerSec   float64 `json:"endedPerSec"`
	// ByState counts the latest listing's threads: running (on a
	// carrier), ready (waiting for one), pinned, and the states of the
	// others.
	ByState  map[string]int64 `json:"byState,omitempty"`
	ListedAt time.Time        `json:"listedAt,omitzero"`
	Listed   int              `json:"listed"` // threads of the listing known one by one
	Complete bool             `json:"complete,omitempty"`
	// What a listing costs the source (CPU time) and how often it lists.
	ListingCost   time.Duration `json:"listingCostNs,omitempty"`
	ListingPeriod time.Duration `json:"listingPeriodNs,omitempty"`
	// Folded counts the threads the source listed one by one beyond this
	// picture's bound, counted in groups instead.
	Folded int64 `json:"folded,omitempty"`
}

// Pinning is where virtual threads blocked while pinned to their carrier,
// and for how long, since watching began.
type Pinning struct {
	Site      string        `json:"site"`
	Reason    string        `json:"reason,omitempty"`
	Operation string        `json:"operation,omitempty"`
	Count     int64         `json:"count"`
	Total     time.Duration `json:"totalNs"`
	Max       time.Duration `json:"maxNs"`
	Last      time.Time     `json:"last"`
	Thread    int64         `json:"thread"` // the latest pinned there
	Carrier   int64         `json:"carrier,omitempty"`
	Stack     []Frame       `json:"stack,omitempty"`
}

// Note is what a source says about its data (it lists virtual threads
// less often than asked, because listing them costs too much).
type Note struct {
	Topic    string    `json:"topic"`
	Text     string    `json:"text"`
	Degraded bool      `json:"degraded,omitempty"`
	At       time.Time `json:"at"`
}

const (
	// maxGroupThreads bounds the threads of a group a snapshot carries.
	maxGroupThreads = 50
	// maxPinningSites bounds the pinning table; the least recent go.
	maxPinningSites = 256
	// maxNotes bounds the topics of notes kept.
	maxNotes = 32
	// rateSpan is the span of the started and ended rates.
	rateSpan = 5 * time.Second
)

// virtualEntry is one virtual thread of a listing being received.
type virtualEntry struct {
	polledThread
	name      string
	container string
	carrier   int64
}

// groupKey says which threads a group holds.
type groupKey struct {
	container string
	state     ThreadState
	flags     int32 // decode.ThreadMounted, ThreadPinned and ThreadOnLock
	lock      int64
	lockClass string
	owner     int64
	site      string
}

type virtualGroup struct {
	key   groupKey
	count int64
	stack []Frame
}

type rateSample struct{ at, started, ended int64 }

// virtualTable holds the listing being received and the latest one.
type virtualTable struct {
	reported bool // the source reports virtual threads

	// The listing being received.
	entries []virtualEntry
	groups  map[groupKey]*virtualGroup
	folded  int64

	// The latest listing: its threads (not in the thread table), by id.
	threads  []*thread
	byID     map[int64]*thread
	carrier  map[*thread]int64
	present  []*virtualGroup
	listedAt int64
	complete bool
	// Owners that no listing and no poll names: kept for the monitors'
	// sake, as threads of no table.
	strangers map[int64]*thread

	count, started, ended int64
	estimated             bool
	cost, period          int64
	listedFolded          int64
	rates                 []rateSample

	pinning map[string]*Pinning
	notes   map[string]Note
}

func (vt *virtualTable) init() {
	vt.groups = map[groupKey]*virtualGroup{}
	vt.byID = map[int64]*thread{}
	vt.carrier = map[*thread]int64{}
	vt.strangers = map[int64]*thread{}
	vt.pinning = map[string]*Pinning{}
	vt.notes = map[string]Note{}
	vt.count, vt.started, vt.ended = -1, -1, -1
}

// newStream forgets the virtual present of the previous stream.
func (vt *virtualTable) newStream() {
	pinning, notes := vt.pinning, vt.notes
	vt.init()
	vt.pinning = pinning
	clear(notes)
	vt.notes = notes
}

// isVirtualState says a ThreadState belongs to a listing of virtual threads.
func isVirtualState(e *decode.ThreadState) bool { return e.Flags&decode.ThreadVirtual != 0 }

// addVirtual holds one virtual thread of the listing being received; one
// beyond the bound is counted in its group instead.
func (a *Aggregator) addVirtual(e *decode.ThreadState) {
	vt := &a.virtual
	vt.reported = true
	st, ok := parseThreadState(e.State)
	if !ok {
		a.badStates++
	}
	p := polledThread{id: e.ThreadIDRef, state: st, flags: e.Flags, lock: e.LockObjIDRef, lockClass: e.LockClass, owner: e.LockOwner, cpu: -1}
	if e.Flags&decode.ThreadStackUnchanged == 0 {
		p.stack = framesOf(&e.Stack)
	}
	if !st.onLock() {
		p.lock, p.lockClass, p.owner = 0, "", 0
	}
	if p.owner == p.id {
		p.owner = 0
	}
	if len(vt.entries) >= a.opts.MaxVirtualListed {
		vt.folded++
		a.addGroup(groupKey{container: e.Container, state: st, flags: e.Flags & (decode.ThreadMounted | decode.ThreadPinned | decode.ThreadOnLock),
			lock: p.lock, lockClass: p.lockClass, owner: p.owner, site: virtualSite(p.stack)}, 1, p.stack)
		return
	}
	vt.entries = append(vt.entries, virtualEntry{polledThread: p, name: e.ThreadName, container: e.Container, carrier: e.Carrier})
}

// addThreadGroup counts the threads of a group of the listing being received.
func (a *Aggregator) addThreadGroup(e *decode.ThreadGroup) {
	a.virtual.reported = true
	st, ok := parseThreadState(e.State)
	if !ok {
		a.badStates++
	}
	k := groupKey{container: e.Container, state: st, flags: e.Flags & (decode.ThreadMounted | decode.ThreadPinned | decode.ThreadOnLock),
		lock: e.LockObjIDRef, lockClass: e.LockClass, owner: e.LockOwner, site: e.Site}
	if !st.onLock() {
		k.lock, k.lockClass, k.owner = 0, "", 0
	}
	a.addGroup(k, max(e.Count, 0), framesOf(&e.Stack))
}

func (a *Aggregator) addGroup(k groupKey, n int64, stack []Frame) {
	vt := &a.virtual
	g := vt.groups[k]
	if g == nil {
		if len(vt.groups) >= a.opts.MaxVirtualGroups {
			k = groupKey{container: "(other)", state: k.state, flags: k.flags}
			g = vt.groups[k]
		}
		if g == nil {
			g = &virtualGroup{key: k, stack: stack}
			vt.groups[k] = g
		}
	}
	g.count += n
}

// virtualCounts takes a VirtualThreads message: the counts, and the
// listing it closes.
func (a *Aggregator) virtualCounts(e *decode.VirtualThreads) {
	vt := &a.virtual
	vt.reported = true
	now := a.at(e.Time)
	vt.count, vt.started, vt.ended = e.Count, e.Started, e.Ended
	vt.estimated = e.Flags&decode.VirtualEstimated != 0
	vt.cost, vt.period = int64(a.clock.Duration(e.Cost)), int64(a.clock.Duration(e.Period))
	if e.Count >= 0 {
		a.process.VirtualThreads = e.Count
	}
	if e.Started >= 0 && e.Ended >= 0 {
		vt.rates = append(vt.rates, rateSample{at: now, started: e.Started, ended: e.Ended})
		keep := 0
		for keep < len(vt.rates)-2 && now-vt.rates[keep+1].at >= int64(rateSpan) {
			keep++
		}
		vt.rates = vt.rates[keep:]
	}
	if e.Flags&decode.VirtualListing == 0 {
		return
	}
	a.commitListing(a.ns(e.ListedAt), e.Flags&decode.VirtualComplete != 0)
}

// commitListing makes the listing received the virtual present.
func (a *Aggregator) commitListing(at int64, complete bool) {
	vt := &a.virtual
	prev := vt.byID
	firstListing := vt.listedAt == 0
	vt.threads = vt.threads[:0]
	vt.byID = make(map[int64]*thread, len(vt.entries))
	clear(vt.carrier)
	clear(vt.strangers)
	for i := range vt.entries {
		e := &vt.entries[i]
		t := &thread{id: e.id, name: e.name, group: e.container, stream: a.stream, state: e.state, monitor: e.lock,
			lockClass: e.lockClass, lockOwner: e.owner, onLock: e.flags&decode.ThreadOnLock != 0, timed: e.flags&decode.ThreadTimed != 0, polled: true,
			pollStack: e.stack, since: at, virtual: true, vflags: e.flags & (decode.ThreadMounted | decode.ThreadPinned)}
		if t.name == "" {
			t.name = "virtual-" + strconv.FormatInt(t.id, 10)
		}
		// Not listed before (a listing names a thousand threads at most):
		// since is when it was first seen so, not when it began.
		t.unseenStart, t.beforeWatching = true, firstListing
		if old := prev[t.id]; old != nil {
			if t.pollStack == nil {
				t.pollStack = old.pollStack
			}
			t.unseenStart, t.beforeWatching = false, false
			if old.state == t.state && old.monitor == t.monitor {
				t.since = old.since // still as the previous listing saw it: since then at least
				t.unseenStart, t.beforeWatching = old.unseenStart, old.beforeWatching
			}
		}
		if e.carrier != 0 {
			vt.carrier[t] = e.carrier
		}
		vt.threads = append(vt.threads, t)
		vt.byID[t.id] = t
		if t.monitor != 0 {
			if m := a.monitors.get(t.monitor, at); m != nil { // nil: not tracked (a full table)
				m.synchronizer = m.synchronizer || t.state == ThreadParked
				if t.lockClass != "" {
					m.class, m.classID = t.lockClass, 0
				}
			}
		}
	}
	vt.present = vt.present[:0]
	for _, g := range vt.groups {
		vt.present = append(vt.present, g)
		if g.key.lock != 0 {
			if m := a.monitors.get(g.key.lock, at); m != nil {
				m.synchronizer = m.synchronizer || g.key.state == ThreadParked
				if g.key.lockClass != "" {
					m.class, m.classID = g.key.lockClass, 0
				}
			}
		}
	}
	vt.groups = map[groupKey]*virtualGroup{}
	vt.entries = vt.entries[:0]
	vt.listedAt, vt.complete = at, complete
	vt.listedFolded, vt.folded = vt.folded, 0
	a.monitors.setPresent(a)
}

// ownerThread is the thread of an owner's id: a platform thread, a
// virtual thread of the listing, or, for a polled source, one that neither
// the poll nor the listing names (a virtual thread not listed, on a JVM
// that has them), kept apart from the thread table: a poll lists every
// platform thread, and a row of a thread no poll lists would be a ghost.
func (a *Aggregator) ownerThread(id int64, stream int) *thread {
	if t := a.threads.lookup(id); t != nil {
		return t
	}
	vt := &a.virtual
	if t := vt.byID[id]; t != nil {
		return t
	}
	if !a.polled {
		return a.threads.get(id, stream)
	}
	t := vt.strangers[id]
	if t == nil {
		t = &thread{id: id, name: "thread-" + strconv.FormatInt(id, 10), stream: stream, polled: true}
		vt.strangers[id] = t
	}
	t.virtual = vt.reported
	if t.virtual {
		t.name = "virtual-" + strconv.FormatInt(id, 10)
	}
	return t
}

// virtualPinned records a pinning at its site.
func (a *Aggregator) virtualPinned(e *decode.VirtualPinned) {
	vt := &a.virtual
	vt.reported = true
	at := a.at(e.Time)
	st := framesOf(&e.Stack)
	site := virtualSite(st)
	if site == "" {
		site = "(unknown)"
	}
	p := vt.pinning[site]
	if p == nil {
		if len(vt.pinning) >= maxPinningSites {
			var oldest *Pinning
			for _, q := range vt.pinning {
				if oldest == nil || q.Last.Before(oldest.Last) {
					oldest = q
				}
			}
			delete(vt.pinning, oldest.Site)
		}
		p = &Pinning{Site: site}
		vt.pinning[site] = p
	}
	d := time.Duration(a.clock.Duration(e.Duration))
	p.Count++
	p.Total += d
	p.Max = max(p.Max, d)
	p.Last = time.Unix(0, at)
	p.Thread, p.Carrier, p.Stack = e.ThreadIDRef, e.Carrier, st
	p.Reason, p.Operation = e.Reason, e.Operation
}

// sourceNote keeps what the source says about its data, by topic.
func (a *Aggregator) sourceNote(e *decode.SourceNote) {
	notes := a.virtual.notes
	if e.Text == "" {
		delete(notes, e.Topic)
		return
	}
	if _, ok := notes[e.Topic]; !ok && len(notes) >= maxNotes {
		return
	}
	notes[e.Topic] = Note{Topic: e.Topic, Text: e.Text, Degraded: e.Level > 0, At: time.Unix(0, a.at(e.Time))}
}

// virtualSite is the method a virtual thread is in: its first frame
// outside the JDK (a park, a sleep or a lock says nothing of it), else its
// first frame.
func virtualSite(st []Frame) string {
	for _, f := range st {
		m := f.Method
		if !strings.HasPrefix(m, "java.") && !strings.HasPrefix(m, "jdk.") && !strings.HasPrefix(m, "sun.") && !strings.HasPrefix(m, "com.sun.") {
			return m
		}
	}
	if len(st) > 0 {
		return st[0].Method
	}
	return ""
}

// displayKey is what a row of virtual threads holds alike.
type displayKey struct {
	container string
	state     ThreadState
	mounted   bool
	pinned    bool
	site      string
}

// virtualRows builds the picture of the virtual threads: their groups
// (the listed threads grouped as the source groups the others), the
// summary, the pinning sites and the notes.
func (a *Aggregator) virtualRows(now int64) (groups []VirtualGroup, sum *VirtualSummary, pinning []Pinning, notes []Note) {
	vt := &a.virtual
	for _, n := range vt.notes {
		notes = append(notes, n)
	}
	sort.Slice(notes, func(i, j int) bool { return notes[i].Topic < notes[j].Topic })
	if !vt.reported {
		return nil, nil, nil, notes
	}
	byKey := map[displayKey]int{}
	row := func(k displayKey) *VirtualGroup {
		i, ok := byKey[k]
		if !ok {
			i = len(groups)
			byKey[k] = i
			groups = append(groups, VirtualGroup{Container: k.container, State: k.state, Mounted: k.mounted, Pinned: k.pinned,
				Ready: k.state == ThreadRunning && !k.mounted, Site: k.site, Lock: -1})
		}
		return &groups[i]
	}
	shareLock := func(g *VirtualGroup, lock int64, class string, owner int64) {
		switch {
		case g.Lock == -1:
			g.Lock, g.LockClass, g.LockOwner = lock, class, owner
		case g.Lock != lock:
			g.Lock, g.LockClass, g.LockOwner = 0, "", 0
		case g.LockOwner != owner:
			g.LockOwner = 0
		}
	}
	byState := map[string]int64{}
	for _, t := range vt.threads {
		k := displayKey{container: t.group, state: t.state, mounted: t.vflags&decode.ThreadMounted != 0,
			pinned: t.vflags&decode.ThreadPinned != 0, site: virtualSite(t.pollStack)}
		g := row(k)
		g.Count++
		g.Listed++
		shareLock(g, t.monitor, t.lockClass, t.lockOwner)
		if len(g.Threads) < maxGroupThreads {
			g.Threads = append(g.Threads, VirtualThread{ID: t.id, Name: t.name, State: t.state, Pinned: k.pinned,
				Carrier: vt.carrier[t], Lock: t.monitor, LockClass: t.lockClass, LockOwner: t.lockOwner, Timed: t.timed, Stack: t.pollStack})
		}
		if g.Stack == nil {
			g.Stack = t.pollStack
		}
		byState[virtualStateName(k)]++
	}
	for _, vg := range vt.present {
		k := displayKey{container: vg.key.container, state: vg.key.state, mounted: vg.key.flags&decode.ThreadMounted != 0,
			pinned: vg.key.flags&decode.ThreadPinned != 0, site: vg.key.site}
		g := row(k)
		g.Count += vg.count
		shareLock(g, vg.key.lock, vg.key.lockClass, vg.key.owner)
		if g.Stack == nil {
			g.Stack = vg.stack
		}
		byState[virtualStateName(k)] += vg.count
	}
	for i := range groups {
		g := &groups[i]
		if g.Lock <= 0 {
			g.Lock, g.LockClass, g.LockOwner = 0, "", 0
		}
		if g.LockOwner != 0 {
			g.OwnerName = a.ownerName(g.LockOwner)
		}
		g.ID = virtualGroupID(g)
		if len(g.Threads) > 0 {
			g.Stack = nil // its threads carry theirs
		}
	}
	sort.Slice(groups, func(i, j int) bool {
		if groups[i].Count != groups[j].Count {
			return groups[i].Count > groups[j].Count
		}
		return groups[i].ID < groups[j].ID
	})
	sum = &VirtualSummary{Count: vt.count, Estimated: vt.estimated, Started: vt.started, Ended: vt.ended, ByState: byState,
		Listed: len(vt.threads), Complete: vt.complete, ListingCost: time.Duration(vt.cost), ListingPeriod: time.Duration(vt.period),
		Folded: vt.listedFolded}
	if vt.listedAt > 0 {
		sum.ListedAt = time.Unix(0, vt.listedAt)
	}
	if n := len(vt.rates); n >= 2 {
		first, last := vt.rates[0], vt.rates[n-1]
		if dt := float64(last.at-first.at) / 1e9; dt > 0 {
			sum.StartedPerSec = float64(last.started-first.started) / dt
			sum.EndedPerSec = float64(last.ended-first.ended) / dt
		}
	}
	for _, p := range vt.pinning {
		pinning = append(pinning, *p)
	}
	sort.Slice(pinning, func(i, j int) bool {
		if pinning[i].Total != pinning[j].Total {
			return pinning[i].Total > pinning[j].Total
		}
		return pinning[i].Site < pinning[j].Site
	})
	return groups, sum, pinning, notes
}

// virtualStateName is the state a row of virtual threads is counted in.
func virtualStateName(k displayKey) string {
	switch {
	case k.pinned:
		return "pinned"
	case k.state == ThreadRunning && !k.mounted:
		return "ready"
	}
	return k.state.String()
}

// VirtualStateLabel names a group's state as the screen shows it:
// pinned, ready (waiting for a carrier), or its thread state.
func VirtualStateLabel(g *VirtualGroup) string {
	return virtualStateName(displayKey{state: g.State, mounted: g.Mounted, pinned: g.Pinned})
}

// ownerName names an owner by id, virtual or platform, without creating it.
func (a *Aggregator) ownerName(id int64) string {
	if t := a.threads.byID.get(id); t != nil { // read only: not a change to its row
		return t.name
	}
	if t := a.virtual.byID[id]; t != nil {
		return t.name
	}
	if t := a.virtual.strangers[id]; t != nil {
		return t.name
	}
	return "thread-" + strconv.FormatInt(id, 10)
}

// virtualGroupID is a row's id: stable across snapshots, negative, so that
// it never meets a thread's.
func virtualGroupID(g *VirtualGroup) int64 {
	h := fnv.New64a()
	h.Write([]byte(g.Container))
	h.Write([]byte{0, byte(g.State), boolByte(g.Mounted), boolByte(g.Pinned), 0})
	h.Write([]byte(g.Site))
	return -int64(h.Sum64()>>2) - 1
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// mountedName names the virtual thread a carrier runs, by id.
func (a *Aggregator) mountedName(id int64) string {
	if t := a.virtual.byID[id]; t != nil {
		return t.name
	}
	return "virtual-" + strconv.FormatInt(id, 10)
}
