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
	// PollEvery is the virtual time between two thread polls (default 1 s;
	// negative: none, as a TPTP profiler, whose present is derived from
	// its events).
	PollEvery time.Duration
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
	if c.PollEvery == 0 {
		c.PollEvery = time.Second
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
	stalled decode.Ticks // time spent blocked or waiting as the top frame: no CPU
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
	waitTimeout int64        // ms, as monWait reported it
	stalledAt   decode.Ticks // when it last blocked or began to wait
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
	nextPoll       decode.Ticks
	nextObject     int64
	live           []int64 // objects allocated and not freed (bounded)
	survivors      []int64
	freeing        int // position in live of a collection's frees in progress, -1 when none
	polling        int // position in threads of a poll in progress, -1 when none
	polled         int32
	pollAt         decode.Ticks
	lastGC         decode.Ticks
	youngGCs       int64
	fullGCs        int64
	youngGCTime    decode.Ticks
	fullGCTime     decode.Ticks
	stackScratchLn []int64
	runtime        *taskRuntime // the task runtime's counters (telemetry.go)
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
		polling:      -1,
		freeing:      -1,
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
	w.lastGC = w.now
	w.nextPoll = maxTicks
	if cfg.PollEvery > 0 {
		w.nextPoll = w.now
	}
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
	case w.polling >= 0:
		w.pollThreads()
	case w.freeing >= 0:
		w.freeSome()
	case w.now >= w.nextPoll:
		w.startPoll()
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
	next := min(w.nextGC, w.nextWake, w.nextPoll)
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
