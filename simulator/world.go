package simulator

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/proftop/proftop/decode"
)

// Config shapes the simulated service. The zero value is usable.
type Config struct {
	Seed uint64
	// Start is the virtual time of the first event; zero means now.
	Start time.Time
	// Rate is the number of events per second of virtual time (default
	// 20,000). The server paces virtual time to the wall clock, so this is
	// also the rate at which events are sent, unless it runs flat out.
	Rate int
	// Aggregated makes method activity arrive as agMethodEntry reports
	// (once a virtual second) instead of methodEntry/methodExit pairs.
	Aggregated bool
	// DeadlockEvery is the virtual time between two deadlocks (default 40 s;
	// negative: never). The first comes after a quarter of it.
	DeadlockEvery time.Duration
	// DeadlockFor is how long a deadlock lasts before the simulated
	// operator kills its two threads (default 15 s).
	DeadlockFor time.Duration
	// GCEvery is the mean virtual time between collections (default 800 ms).
	GCEvery time.Duration
	// PID and Name describe the simulated JVM.
	PID  int
	Name string
}

func (c Config) withDefaults() Config {
	if c.Start.IsZero() {
		c.Start = time.Now()
	}
	if c.Rate <= 0 {
		c.Rate = 20_000
	}
	if c.DeadlockEvery == 0 {
		c.DeadlockEvery = 40 * time.Second
	}
	if c.DeadlockFor <= 0 {
		c.DeadlockFor = 15 * time.Second
	}
	if c.GCEvery <= 0 {
		c.GCEvery = 800 * time.Millisecond
	}
	if c.PID == 0 {
		c.PID = 4242
	}
	if c.Name == "" {
		c.Name = "com.acme.shop.Main"
	}
	return c
}

type threadState uint8

const (
	running threadState = iota
	blocked             // contending for a monitor
	waiting             // in Object.wait
	ended
)

// call is one frame of a simulated thread's stack.
type call struct {
	m       int
	ticket  int32
	line    int64
	entered decode.Ticks
	child   decode.Ticks // time spent in callees, for self time
	lock    int          // the monitor this frame took (or is blocked on), or noLock
	callees int          // callees entered so far
}

type thread struct {
	slot        int // index in World.threads
	id          int64
	name, group string
	kind        threadKind
	state       threadState
	calls       []call
	base        int // frames of the framework stack, never exited
	onLock      int // the monitor blocked or waiting on
	waitUntil   decode.Ticks
	waitTimeout int64 // ms, as monWait reported it
	cpu         decode.Ticks
	runIdx      int  // position in World.runnable, or -1
	reversed    bool // a transfer that locks the accounts in the other order
	reserved    bool // picked for the next deadlock: takes no new work
}

type monitor struct {
	obj       int64
	owner     int   // thread slot, or -1
	entrants  []int // blocked threads, first come first served
	waitSet   []int // waiting threads
	classID   int64
	allocated bool
}

// World is the simulated service. Next returns its events one at a time.
type World struct {
	cfg  Config
	rnd  *rand.Rand
	now  decode.Ticks
	tick decode.Ticks // mean virtual time per event

	queue []decode.Event
	head  int
	pool  eventPool

	threads  []*thread
	runnable []int
	locks    [numLocks]monitor

	classIDs       map[string]int64
	classDefined   map[string]bool
	methodDefined  [numMethods]bool
	methodClass    [numMethods]int64 // class id of each defined method
	frameNames     [numMethods]string
	nextThreadID   int64
	nextTicket     int32
	threadSerial   map[threadKind]int
	booted         bool
	nextGC         decode.Ticks
	nextWake       decode.Ticks
	nextDeadlock   decode.Ticks
	deadlockEnd    decode.Ticks
	deadlocked     [2]int
	inDeadlock     bool
	heapTotal      int64
	heapUsed       int64
	objects        int64
	nextFlush      decode.Ticks
	agg            []aggregate
	touched        []int
	flushing       int // position in touched of a flush in progress, -1 when none
	stackScratchLn []int64
}

// aggregate accumulates one (thread, method) pair for agMethodEntry.
type aggregate struct {
	base, min, max, cpu decode.Ticks
	calls               int64
	threadID            int64
}

const maxDepth = 20

// NewWorld returns the service in its initial state.
func NewWorld(cfg Config) *World {
	cfg = cfg.withDefaults()
	w := &World{
		cfg:          cfg,
		rnd:          rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5deece66d)),
		now:          decode.Clock{}.FromTime(cfg.Start),
		tick:         decode.Ticks(1e9 / cfg.Rate),
		classIDs:     map[string]int64{},
		classDefined: map[string]bool{},
		threadSerial: map[threadKind]int{},
		heapTotal:    2 << 30,
		flushing:     -1,
	}
	if w.tick < 1 {
		w.tick = 1
	}
	for i := range catalog {
		w.frameNames[i] = catalog[i].frameName()
	}
	for i := range w.locks {
		w.locks[i] = monitor{obj: 0x7f3a_0000 + int64(i)*0x48, owner: -1}
	}
	w.nextGC = w.now + w.jitter(decode.Ticks(cfg.GCEvery))
	if cfg.DeadlockEvery > 0 {
		w.nextDeadlock = w.now + decode.Ticks(cfg.DeadlockEvery/4)
	}
	w.nextFlush = w.now + decode.Ticks(time.Second)
	w.nextWake = maxTicks
	return w
}

const maxTicks = decode.Ticks(1<<63 - 1)

// Now is the virtual time of the latest event.
func (w *World) Now() time.Time { return decode.Clock{}.Time(w.now) }

// Next returns the next event. It is valid until about 200 more events
// have been returned (events come from per-kind rings); encode it at once.
func (w *World) Next() decode.Event {
	for w.head == len(w.queue) {
		w.queue, w.head = w.queue[:0], 0
		w.step()
	}
	ev := w.queue[w.head]
	w.queue[w.head] = nil
	w.head++
	return ev
}

// emit queues an event and lets virtual time pass.
func (w *World) emit(ev decode.Event) {
	w.queue = append(w.queue, ev)
	w.now += w.tick/2 + decode.Ticks(w.rnd.Int64N(int64(w.tick)+1))
}

func (w *World) jitter(d decode.Ticks) decode.Ticks {
	return d*7/10 + decode.Ticks(w.rnd.Int64N(int64(d)*6/10+1))
}

// step advances the world by one action, which queues zero or more events.
func (w *World) step() {
	switch {
	case !w.booted:
		w.boot()
	case w.flushing >= 0:
		w.flushAggregates()
	case w.now >= w.nextGC:
		w.collectGarbage()
	case w.now >= w.nextWake:
		w.wakeTimedOut()
	case w.inDeadlock && w.now >= w.deadlockEnd:
		w.endDeadlock()
	case !w.inDeadlock && w.cfg.DeadlockEvery > 0 && w.now >= w.nextDeadlock:
		w.startDeadlock()
	case w.cfg.Aggregated && w.now >= w.nextFlush:
		w.nextFlush = w.now + decode.Ticks(time.Second)
		w.flushing = 0
		w.flushAggregates()
	case len(w.runnable) == 0:
		w.idle()
	case w.rnd.IntN(2000) == 0:
		w.churn()
	default:
		w.work(w.threads[w.runnable[w.rnd.IntN(len(w.runnable))]])
	}
}

// idle lets time pass when no thread can run: every thread is blocked or
// waiting, so the next thing to happen is a timer.
func (w *World) idle() {
	next := min(w.nextGC, w.nextWake)
	if w.inDeadlock {
		next = min(next, w.deadlockEnd)
	}
	if w.cfg.Aggregated {
		next = min(next, w.nextFlush)
	}
	if next > w.now {
		w.now = next
	}
}

// boot sends what a client needs first: the node, process and agent, every
// live thread, and the classes of the lock objects.
func (w *World) boot() {
	w.booted = true
	start := w.now
	w.emit(&decode.Node{NodeID: "node-sim", Hostname: "prod-1", IPAddress: "10.0.0.17,127.0.0.1", Time: start})
	w.emit(&decode.ProcessCreate{ProcessID: "process-sim", Name: w.cfg.Name, PID: int32(w.cfg.PID), NodeIDRef: "node-sim", Time: start,
		Executable: "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"})
	w.emit(&decode.AgentCreate{AgentID: "agent-sim", ProcessIDRef: "process-sim", AgentName: "proftop simulated agent", AgentType: "Profiler",
		Time: start, AgentParameters: "seed=" + strconv.FormatUint(w.cfg.Seed, 10) + ",rate=" + strconv.Itoa(w.cfg.Rate), Version: "1.0"})
	w.emit(&decode.TraceStart{TraceID: "trace-sim", AgentIDRef: "agent-sim", Time: start})
	for _, spec := range initialThreads() {
		w.startThread(spec)
	}
	for l := range w.locks {
		w.allocateLock(l)
	}
	// The finalizer waits on the reference queue until a collection wakes it.
	for _, t := range w.threads {
		if t.kind == kindFinalizer {
			w.pushFrame(t, mQueueRemove)
			w.acquire(t, lockReferenceQueue, len(t.calls)-1)
			w.wait(t, 0)
		}
	}
}

func (w *World) startThread(spec threadSpec) *thread {
	w.nextThreadID++
	t := &thread{slot: len(w.threads), id: w.nextThreadID, name: spec.name, group: spec.group, kind: spec.kind, runIdx: -1, onLock: noLock}
	for _, s := range w.threads {
		if s.state == ended {
			t.slot = s.slot
			break
		}
	}
	if t.slot == len(w.threads) {
		w.threads = append(w.threads, t)
	} else {
		w.threads[t.slot] = t
	}
	w.threadSerial[spec.kind]++
	parent := "system"
	if spec.group == "system" {
		parent = ""
	}
	ts := w.pool.threadStart.next()
	*ts = decode.ThreadStart{ThreadID: t.id, Time: w.now, GroupName: spec.group, ParentName: parent,
		ObjIDRef: 0x7e00_0000 + t.id*0x30, ThreadName: spec.name}
	w.emit(ts)
	for _, m := range baseStack[spec.kind] {
		w.pushFrame(t, m)
	}
	t.base = len(t.calls)
	if _, works := baseStack[spec.kind]; works && spec.kind != kindFinalizer {
		w.setRunnable(t, true)
	}
	return t
}

// pushFrame puts a method on a thread's stack without an event (frames
// entered before tracing began, or Object.wait).
func (w *World) pushFrame(t *thread, m int) {
	meth := &catalog[m]
	t.calls = append(t.calls, call{m: m, line: meth.start + w.rnd.Int64N(meth.lines+1), entered: w.now, lock: noLock})
}

func (w *World) setRunnable(t *thread, on bool) {
	switch {
	case on && t.runIdx < 0:
		t.runIdx = len(w.runnable)
		w.runnable = append(w.runnable, t.slot)
	case !on && t.runIdx >= 0:
		last := w.runnable[len(w.runnable)-1]
		w.runnable[t.runIdx] = last
		w.threads[last].runIdx = t.runIdx
		w.runnable = w.runnable[:len(w.runnable)-1]
		t.runIdx = -1
	}
}

// classID returns the id of a class, defining it on first use.
func (w *World) classID(class string) int64 {
	id, ok := w.classIDs[class]
	if !ok {
		id = int64(len(w.classIDs) + 1)
		w.classIDs[class] = id
	}
	if !w.classDefined[class] {
		w.classDefined[class] = true
		cd := w.pool.classDef.next()
		src := ""
		for i := range catalog {
			if catalog[i].class == class {
				src = catalog[i].source
				break
			}
		}
		*cd = decode.ClassDef{Time: w.now, ClassID: id, SourceName: src, Name: class, ObjIDRef: 0x7d00_0000 + id*0x20}
		w.emit(cd)
	}
	return id
}

// define sends classDef and methodDef before a method's first use.
func (w *World) define(m int) {
	if w.methodDefined[m] {
		return
	}
	w.methodDefined[m] = true
	meth := &catalog[m]
	cid := w.classID(meth.class)
	w.methodClass[m] = cid
	md := w.pool.methodDef.next()
	*md = decode.MethodDef{Name: meth.name, Signature: "()V", StartLineNumber: meth.start, EndLineNumber: meth.start + meth.lines,
		ClassIDRef: cid, MethodID: int64(m + 1)}
	w.emit(md)
}

func (w *World) allocateLock(l int) {
	mon := &w.locks[l]
	if mon.allocated {
		return
	}
	mon.allocated = true
	mon.classID = w.classID(lockClass[l])
	oa := w.pool.objAlloc.next()
	*oa = decode.ObjAlloc{Time: w.now, ObjID: mon.obj, Size: 16, ClassIDRef: mon.classID}
	w.emit(oa)
}

// work runs one step of a thread's call tree: enter a callee or return.
func (w *World) work(t *thread) {
	top := &t.calls[len(t.calls)-1]
	meth := &catalog[top.m]
	if len(t.calls) == t.base {
		if !t.reserved {
			w.enter(t, meth.callees[w.rnd.IntN(len(meth.callees))])
		}
		return
	}
	if len(meth.callees) > 0 && len(t.calls) < maxDepth && top.callees < len(meth.callees)+1 && w.rnd.IntN(10) < 6 {
		top.callees++
		w.enter(t, meth.callees[w.rnd.IntN(len(meth.callees))])
		return
	}
	// A leaf stays on the stack in proportion to its cost.
	if len(meth.callees) == 0 && w.rnd.Int64N(meth.cost+20) >= 20 {
		return
	}
	// The connection pool is sometimes exhausted: borrow waits for a connection.
	if top.m == mBagBorrow && top.lock != noLock && w.rnd.IntN(12) == 0 {
		w.wait(t, []int64{250, 500, 1000}[w.rnd.IntN(3)])
		return
	}
	w.exit(t)
}

func (w *World) enter(t *thread, m int) {
	w.define(m)
	meth := &catalog[m]
	w.nextTicket++
	t.calls = append(t.calls, call{m: m, ticket: w.nextTicket, line: meth.start + w.rnd.Int64N(meth.lines+1), entered: w.now, lock: noLock})
	if !w.cfg.Aggregated {
		me := w.pool.methodEntry.next()
		*me = decode.MethodEntry{ThreadIDRef: t.id, Time: w.now, MethodIDRef: int64(m + 1), Ticket: w.nextTicket,
			ClassIDRef: w.methodClass[m], StackDepth: int64(len(t.calls))}
		w.emit(me)
	}
	lock := meth.lock
	if t.reversed && (lock == lockAccountA || lock == lockAccountB) {
		lock = lockAccountA + lockAccountB - lock
	}
	if lock != noLock {
		w.acquire(t, lock, len(t.calls)-1)
	}
}

func (w *World) exit(t *thread) {
	c := t.calls[len(t.calls)-1]
	t.calls = t.calls[:len(t.calls)-1]
	dur := w.now - c.entered
	self := max(dur-c.child, 0)
	if len(t.calls) > 0 {
		t.calls[len(t.calls)-1].child += dur
	}
	// Dozens of threads share a few cores, and waiting on a socket or a
	// disk costs little CPU.
	cpu := self / 5
	if catalog[c.m].cost >= 100 {
		cpu = self / 50
	}
	t.cpu += cpu
	if w.cfg.Aggregated {
		w.accumulate(t, c.m, self, cpu)
	} else {
		mx := w.pool.methodExit.next()
		*mx = decode.MethodExit{ThreadIDRef: t.id, Time: w.now, Ticket: c.ticket, ThreadCPUTime: t.cpu, MethodIDRef: int64(c.m + 1),
			ClassIDRef: w.methodClass[c.m]}
		w.emit(mx)
	}
	if c.lock != noLock {
		w.release(t, c.lock)
	}
	if len(t.calls) == t.base {
		t.reversed = false
	}
}

// acquire takes a monitor for the frame at index frame, or blocks on it.
func (w *World) acquire(t *thread, l, frame int) {
	mon := &w.locks[l]
	switch mon.owner {
	case t.slot:
		return // re-entrant: the outer frame keeps it
	case -1:
		mon.owner = t.slot
		t.calls[frame].lock = l
		return
	}
	t.calls[frame].lock = l
	t.state, t.onLock = blocked, l
	w.setRunnable(t, false)
	mon.entrants = append(mon.entrants, t.slot)
	ev := w.pool.contendedEnter.next()
	ev.ThreadIDRef, ev.Time, ev.ObjIDRef, ev.ThreadOwner = t.id, w.now, mon.obj, w.threads[mon.owner].id
	w.fillStack(&ev.Stack, t, false)
	w.emit(ev)
}

// release frees a monitor: sometimes the releasing code notifies a waiter,
// and the first blocked thread gets the monitor.
func (w *World) release(t *thread, l int) {
	mon := &w.locks[l]
	if mon.owner != t.slot {
		return
	}
	mon.owner = -1
	if len(mon.waitSet) > 0 && w.rnd.IntN(2) == 0 {
		w.wake(w.threads[mon.waitSet[0]])
	}
	w.grant(l)
}

// grant gives a free monitor to its first blocked thread.
func (w *World) grant(l int) {
	mon := &w.locks[l]
	if mon.owner != -1 || len(mon.entrants) == 0 {
		return
	}
	next := w.threads[mon.entrants[0]]
	mon.entrants = mon.entrants[:copy(mon.entrants, mon.entrants[1:])]
	mon.owner = next.slot
	next.state, next.onLock = running, noLock
	w.setRunnable(next, true)
	ev := w.pool.contendedEntered.next()
	ev.ThreadIDRef, ev.Time, ev.ObjIDRef = next.id, w.now, mon.obj
	w.fillStack(&ev.Stack, next, false)
	w.emit(ev)
}

// wait makes the owner of the top frame's monitor call Object.wait(timeout).
func (w *World) wait(t *thread, timeoutMS int64) {
	top := &t.calls[len(t.calls)-1]
	l := top.lock
	mon := &w.locks[l]
	t.state, t.onLock, t.waitTimeout = waiting, l, timeoutMS
	t.waitUntil = 0
	if timeoutMS > 0 {
		t.waitUntil = w.now + decode.Ticks(timeoutMS)*1e6
		w.nextWake = min(w.nextWake, t.waitUntil)
	}
	w.setRunnable(t, false)
	mon.waitSet = append(mon.waitSet, t.slot)
	ev := w.pool.monWait.next()
	ev.ThreadIDRef, ev.Time, ev.ObjIDRef, ev.Timeout = t.id, w.now, mon.obj, timeoutMS
	w.fillStack(&ev.Stack, t, true)
	w.emit(ev)
	mon.owner = -1
	w.grant(l)
}

// wake ends a thread's wait (notified or timed out); it must then get the
// monitor back, contending for it if another thread holds it.
func (w *World) wake(t *thread) {
	l := t.onLock
	mon := &w.locks[l]
	for i, s := range mon.waitSet {
		if s == t.slot {
			mon.waitSet = append(mon.waitSet[:i], mon.waitSet[i+1:]...)
			break
		}
	}
	ev := w.pool.monWaited.next()
	ev.ThreadIDRef, ev.Time, ev.ObjIDRef, ev.Timeout = t.id, w.now, mon.obj, t.waitTimeout
	w.fillStack(&ev.Stack, t, true)
	w.emit(ev)
	t.state, t.onLock, t.waitUntil = running, noLock, 0
	if mon.owner == -1 && len(mon.entrants) == 0 {
		mon.owner = t.slot
		w.setRunnable(t, true)
		return
	}
	if mon.owner == -1 {
		w.grant(l)
	}
	t.state, t.onLock = blocked, l
	mon.entrants = append(mon.entrants, t.slot)
	ce := w.pool.contendedEnter.next()
	ce.ThreadIDRef, ce.Time, ce.ObjIDRef, ce.ThreadOwner = t.id, w.now, mon.obj, w.threads[mon.owner].id
	w.fillStack(&ce.Stack, t, false)
	w.emit(ce)
}

// wakeTimedOut ends the waits whose timeout has passed.
func (w *World) wakeTimedOut() {
	w.nextWake = maxTicks
	for _, t := range w.threads {
		if t.state != waiting || t.waitUntil == 0 {
			continue
		}
		if t.waitUntil <= w.now {
			w.wake(t)
		} else {
			w.nextWake = min(w.nextWake, t.waitUntil)
		}
	}
}

// fillStack writes a thread's stack, innermost frame first, into an
// event's reusable stack.
func (w *World) fillStack(st *decode.Stack, t *thread, inWait bool) {
	st.Methods, st.Lines = st.Methods[:0], st.Lines[:0]
	if inWait {
		st.Methods = append(st.Methods, w.frameNames[mObjectWait])
		st.Lines = append(st.Lines, -1)
	}
	for i := len(t.calls) - 1; i >= 0 && len(st.Methods) < maxDepth; i-- {
		st.Methods = append(st.Methods, w.frameNames[t.calls[i].m])
		st.Lines = append(st.Lines, t.calls[i].line)
	}
}

// collectGarbage runs one collection: a pause, freed objects, a lower heap;
// the finalizer is woken to process the references it found.
func (w *World) collectGarbage() {
	start := w.now
	gs := w.pool.gcStart.next()
	*gs = decode.GCStart{ThreadMoment: decode.ThreadMoment{Time: start}}
	w.emit(gs)
	freed := 5 + w.rnd.IntN(20)
	for range freed {
		of := w.pool.objFree.next()
		*of = decode.ObjFree{Time: w.now, ObjIDRef: 0x6000_0000 + w.rnd.Int64N(1<<28)*8, ObjAge: int64(w.rnd.IntN(15))}
		w.emit(of)
	}
	pause := decode.Ticks(2e6 + w.rnd.Int64N(25e6))
	if w.rnd.IntN(20) == 0 {
		pause = decode.Ticks(120e6 + w.rnd.Int64N(230e6)) // now and then a full collection
	}
	w.now = start + pause
	w.heapUsed = w.heapTotal/4 + w.rnd.Int64N(w.heapTotal/7)
	w.objects = w.heapUsed / 64
	gf := w.pool.gcFinish.next()
	*gf = decode.GCFinish{Time: w.now, TotalObjSpace: w.heapTotal, UsedObjSpace: w.heapUsed, UsedObjects: w.objects}
	w.emit(gf)
	w.nextGC = w.now + w.jitter(decode.Ticks(w.cfg.GCEvery))
	for _, t := range w.threads {
		if t.kind == kindFinalizer && t.state == waiting {
			w.wake(t)
			if t.state == running {
				w.wait(t, 0)
			}
		}
	}
}

// startDeadlock makes two billing threads transfer between the same two
// accounts in opposite directions: each holds one account's monitor and
// blocks on the other's. The two are reserved first and take no new work,
// so the deadlock starts as soon as both have finished what they do.
func (w *World) startDeadlock() {
	var pair []*thread
	for _, t := range w.threads {
		if t.reserved && t.state != ended {
			pair = append(pair, t)
		}
	}
	for _, s := range w.runnable {
		if t := w.threads[s]; len(pair) < 2 && t.kind == kindBilling && !t.reserved {
			t.reserved = true
			pair = append(pair, t)
		}
	}
	w.nextDeadlock = w.now + decode.Ticks(50*time.Millisecond)
	if len(pair) < 2 || w.locks[lockAccountA].owner != -1 || w.locks[lockAccountB].owner != -1 {
		return
	}
	a, b := pair[0], pair[1]
	if len(a.calls) != a.base || len(b.calls) != b.base || a.state != running || b.state != running {
		return
	}
	a.reserved, b.reserved = false, false
	b.reversed = true
	w.enter(a, mTransfer)
	w.enter(a, mWithdraw) // takes account A
	w.enter(b, mTransfer)
	w.enter(b, mWithdraw) // takes account B
	w.enter(a, mDeposit)  // blocks on B, owned by b
	w.enter(b, mDeposit)  // blocks on A, owned by a
	w.inDeadlock = true
	w.deadlocked = [2]int{a.slot, b.slot}
	w.deadlockEnd = w.now + decode.Ticks(w.cfg.DeadlockFor)
}

// endDeadlock kills the two deadlocked threads, as an operator would, and
// the pool replaces them. Both are gone before their monitors are handed
// on, so that neither gets the other's monitor on its way out.
func (w *World) endDeadlock() {
	w.inDeadlock = false
	w.nextDeadlock = w.now + w.jitter(decode.Ticks(w.cfg.DeadlockEvery))
	var victims []*thread
	for _, s := range w.deadlocked {
		if t := w.threads[s]; t.state != ended {
			w.detach(t)
			victims = append(victims, t)
		}
	}
	for _, t := range victims {
		w.releaseAll(t)
	}
	for _, t := range victims {
		w.startThread(threadSpec{name: w.poolThreadName(t.kind), group: "main", kind: t.kind})
	}
}

func (w *World) holdsAny(t *thread) bool {
	for i := range w.locks {
		if w.locks[i].owner == t.slot {
			return true
		}
	}
	return false
}

// kill ends a thread wherever it is: its monitors go to their next threads.
func (w *World) kill(t *thread) {
	w.detach(t)
	w.releaseAll(t)
}

// detach ends a thread: it leaves every queue and its threadEnd is sent.
func (w *World) detach(t *thread) {
	if t.state == blocked || t.state == waiting {
		mon := &w.locks[t.onLock]
		mon.entrants = removeSlot(mon.entrants, t.slot)
		mon.waitSet = removeSlot(mon.waitSet, t.slot)
	}
	w.setRunnable(t, false)
	t.state = ended
	te := w.pool.threadEnd.next()
	*te = decode.ThreadEnd{ThreadMoment: decode.ThreadMoment{ThreadIDRef: t.id, Time: w.now}}
	w.emit(te)
	if w.cfg.Aggregated {
		for m := range numMethods {
			if i := t.slot*numMethods + m; i < len(w.agg) {
				w.agg[i] = aggregate{}
			}
		}
	}
}

// releaseAll hands every monitor an ended thread held to its next thread.
func (w *World) releaseAll(t *thread) {
	for l := range w.locks {
		if w.locks[l].owner == t.slot {
			w.locks[l].owner = -1
			w.grant(l)
		}
	}
}

func removeSlot(s []int, slot int) []int {
	for i, v := range s {
		if v == slot {
			return append(s[:i], s[i+1:]...)
		}
	}
	return s
}

// churn ends an idle pool thread and starts its replacement, as thread
// pools do.
func (w *World) churn() {
	t := w.threads[w.runnable[w.rnd.IntN(len(w.runnable))]]
	if (t.kind != kindHTTP && t.kind != kindBilling) || len(t.calls) != t.base || w.holdsAny(t) || t.reserved {
		return
	}
	if w.inDeadlock && (t.slot == w.deadlocked[0] || t.slot == w.deadlocked[1]) {
		return
	}
	kind := t.kind
	w.kill(t)
	w.startThread(threadSpec{name: w.poolThreadName(kind), group: "main", kind: kind})
}

func (w *World) poolThreadName(k threadKind) string {
	n := w.threadSerial[k] + 1
	if k == kindBilling {
		return "pool-2-thread-" + strconv.Itoa(n)
	}
	return "http-nio-8080-exec-" + strconv.Itoa(n)
}

// accumulate records a finished call for the next agMethodEntry report.
func (w *World) accumulate(t *thread, m int, self, cpu decode.Ticks) {
	need := len(w.threads) * numMethods
	if len(w.agg) < need {
		w.agg = append(w.agg, make([]aggregate, need-len(w.agg))...)
	}
	i := t.slot*numMethods + m
	a := &w.agg[i]
	if a.calls == 0 {
		w.touched = append(w.touched, i)
		a.min, a.max = self, self
	}
	a.threadID = t.id
	a.base += self
	a.cpu += cpu
	a.calls++
	a.min = min(a.min, self)
	a.max = max(a.max, self)
}

// flushAggregates sends the reports of the last virtual second, a few per
// step so that no ring of events overflows.
func (w *World) flushAggregates() {
	for n := 0; n < 64 && w.flushing < len(w.touched); n++ {
		i := w.touched[w.flushing]
		w.flushing++
		a := &w.agg[i]
		if a.calls > 0 && a.threadID != 0 {
			ev := w.pool.agMethodEntry.next()
			*ev = decode.AgMethodEntry{ThreadIDRef: a.threadID, MethodIDRef: int64(i%numMethods + 1), BaseTime: a.base,
				MinTime: a.min, MaxTime: a.max, BaseCPUTime: a.cpu, NumCalls: a.calls}
			w.emit(ev)
		}
		*a = aggregate{}
	}
	if w.flushing >= len(w.touched) {
		w.flushing = -1
		w.touched = w.touched[:0]
	}
}

// eventPool hands out reusable event structs, a ring per kind, so that the
// world allocates nothing per event.
type eventPool struct {
	threadStart      ring[decode.ThreadStart]
	threadEnd        ring[decode.ThreadEnd]
	classDef         ring[decode.ClassDef]
	methodDef        ring[decode.MethodDef]
	objAlloc         ring[decode.ObjAlloc]
	methodEntry      ring[decode.MethodEntry]
	methodExit       ring[decode.MethodExit]
	gcStart          ring[decode.GCStart]
	objFree          ring[decode.ObjFree]
	gcFinish         ring[decode.GCFinish]
	monWait          ring[decode.MonWait]
	monWaited        ring[decode.MonWaited]
	contendedEnter   ring[decode.MonContendedEnter]
	contendedEntered ring[decode.MonContendedEntered]
	agMethodEntry    ring[decode.AgMethodEntry]
}

const ringSize = 256

type ring[T any] struct {
	items [ringSize]T
	i     int
}

func (r *ring[T]) next() *T {
	p := &r.items[r.i]
	r.i = (r.i + 1) % ringSize
	return p
}
