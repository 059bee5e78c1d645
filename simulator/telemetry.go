package simulator

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/proftop/proftop/decode"
)

// Telemetry, as the JVM agent sends it (docs/protocol.md, section 8): at each
// poll, the JVM's standard series and those of an Æminium-like task
// runtime that publishes its own counters (../shared/seeds/
// aeminium-jprofiler-probes.txt: ten global counters and four per worker),
// and a probe timing how long its tasks spend in each state. The runtime
// has a random source of its own, so that the rest of the world is what it
// would be without it; its events take no virtual time, as a poll's do not.

// workers is the runtime's parallelism: series (1) … (4) per counter.
const workers = 4

// The task types the runtime counts.
var taskTypes = [3]string{"Atomic", "Blocking", "Non-blocking"}

// taskRuntime is the simulated runtime's state between polls.
type taskRuntime struct {
	rnd      *rand.Rand
	declared bool
	series   []seriesSpec
	ticks    int

	unscheduled, waitingDeps, waitingQueue, running, waitingChildren, blockingQueue int64
	queues                                                                          [workers]int64
	completed                                                                       [3]int64
	handled                                                                         [workers][3]int64

	// The JVM's figures of the previous poll, for rates, and the process's
	// CPU load (threads report their CPU time in bursts: it is smoothed).
	lastCPU, lastGC decode.Ticks
	lastAt          decode.Ticks
	load            float64
}

type seriesSpec struct {
	name, unit string
	divisor    float64
}

// The series of the JVM the agent publishes (the memory pools' come from
// the memoryPool messages).
var jvmSeries = []seriesSpec{
	{"Live threads", decode.UnitPlain, 1},
	{"Daemon threads", decode.UnitPlain, 1},
	{"Classes loaded", decode.UnitPlain, 1},
	{"Process CPU load", decode.UnitPercent, 100},
	{"Machine CPU load", decode.UnitPercent, 100},
	{"GC activity", decode.UnitPercent, 100},
	{"Allocations per second", decode.UnitBytes, 1},
	{"Open file descriptors", decode.UnitPlain, 1},
}

// The runtime's global counters, as its CountersProbe declares them.
var runtimeSeries = []string{
	"Occupied Queues", "Tasks in Blocking Queue", "Unscheduled Tasks", "Tasks Waiting for Dependencies",
	"Tasks Waiting in Queue", "Running Tasks", "Tasks Waiting for Children",
	"Atomic Tasks Completed", "Blocking Tasks Completed", "Non-blocking Tasks Completed",
}

// The per-worker counters: "Tasks in Non-blocking Queue (1)" and so on.
var workerSeries = []string{"Tasks in Non-blocking Queue", "No of Atomic Tasks Handled", "No of Blocking Tasks Handled", "No of Non-blocking Tasks Handled"}

// TaskProbe is the probe the simulated runtime's task states are timed by.
const TaskProbe = "jfr:aeminium.TaskState#state"

func newTaskRuntime(seed uint64) *taskRuntime {
	rt := &taskRuntime{rnd: rand.New(rand.NewPCG(seed^0xae3, seed+0x7a5c))}
	rt.series = append(rt.series, jvmSeries...)
	for _, n := range runtimeSeries {
		rt.series = append(rt.series, seriesSpec{n, decode.UnitPlain, 1})
	}
	for _, n := range workerSeries {
		for i := range workers {
			rt.series = append(rt.series, seriesSpec{n + " (" + strconv.Itoa(i+1) + ")", decode.UnitPlain, 1})
		}
	}
	return rt
}

// queueNow adds an event at the current virtual time, without letting time pass.
func (w *World) queueNow(ev decode.Event) { w.queue = append(w.queue, ev) }

// reportTelemetry sends the series (declared once per stream) and the
// probe's records of the interval the poll closes.
func (w *World) reportTelemetry() {
	rt := w.runtime
	if rt == nil {
		rt = newTaskRuntime(w.cfg.Seed)
		w.runtime = rt
		rt.lastAt = w.now
	}
	if !rt.declared {
		rt.declared = true
		for i, s := range rt.series {
			w.queueNow(&decode.TelemetrySeries{Time: w.now, Series: int64(i + 1), Name: s.name, Unit: s.unit, Divisor: s.divisor})
		}
	}
	rt.ticks++
	moved := rt.step()
	values := append(w.jvmValues(rt), rt.values()...)
	for i, v := range values {
		w.queueNow(&decode.TelemetryValue{Time: w.now, Series: int64(i + 1), Value: v})
	}
	w.reportProbe(rt, moved)
}

// jvmValues are the JVM's figures now, from the world's threads and collections.
func (w *World) jvmValues(rt *taskRuntime) []int64 {
	var live, daemon int64
	var cpu decode.Ticks
	for _, t := range w.threads {
		if t.state == ended {
			continue
		}
		live++
		if t.kind == kindIdle && t.name != "main" || t.kind == kindFinalizer {
			daemon++
		}
		cpu += t.cpu
	}
	gc := w.youngGCTime + w.fullGCTime
	span := max(w.now-rt.lastAt, 1)
	const cores = 8
	process := float64(cpu-rt.lastCPU) / float64(span) / cores * 100
	gcShare := float64(gc-rt.lastGC) / float64(span) * 100
	if rt.lastCPU == 0 {
		process, gcShare = 0, 0 // the first poll has no interval
	}
	rt.load = (rt.load + min(max(process, 0), 100)) / 2
	process = rt.load
	machine := min(process+5+rt.rnd.Float64()*10, 100)
	rt.lastCPU, rt.lastGC, rt.lastAt = cpu, gc, w.now
	alloc := float64(edenSize) / max(w.cfg.GCEvery.Seconds(), 0.001) * (0.8 + rt.rnd.Float64()*0.4)
	return []int64{
		live, daemon,
		int64(5231 + 7*len(w.classIDs)),
		int64(process * 100), int64(machine * 100), int64(min(gcShare, 100) * 100),
		int64(alloc),
		180 + live + int64(rt.rnd.IntN(8)),
	}
}

// step moves the runtime's tasks on by one second: tasks arrive in waves,
// are scheduled once their dependencies are done, wait in a worker's queue
// (or the blocking queue), run, wait for their children, complete. It
// returns how many tasks left each state, for the probe.
func (rt *taskRuntime) step() [4]int64 {
	load := 1 + 0.7*math.Sin(float64(rt.ticks)/9)
	take := func(from *int64, lo, hi float64) int64 {
		n := int64(float64(*from) * (lo + rt.rnd.Float64()*(hi-lo)))
		*from -= n
		return n
	}
	rt.unscheduled += int64(load * float64(150+rt.rnd.IntN(250)))
	scheduled := take(&rt.unscheduled, 0.5, 0.9)
	rt.waitingDeps += scheduled
	ready := take(&rt.waitingDeps, 0.4, 0.7)
	blocking := ready / 10
	rt.blockingQueue += blocking
	for n := ready - blocking; n > 0; {
		i := rt.rnd.IntN(workers)
		k := min(n, int64(1+rt.rnd.IntN(40)))
		rt.queues[i] += k
		n -= k
	}
	var started int64
	for i := range rt.queues {
		s := take(&rt.queues[i], 0.5, 0.95)
		started += s
		atomic := s * 6 / 10
		rt.handled[i][0] += atomic
		rt.handled[i][2] += s - atomic
	}
	fromBlocking := take(&rt.blockingQueue, 0.3, 0.8)
	rt.handled[rt.rnd.IntN(workers)][1] += fromBlocking
	started += fromBlocking
	rt.waitingQueue = rt.blockingQueue
	for _, q := range rt.queues {
		rt.waitingQueue += q
	}
	rt.running += started
	ran := take(&rt.running, 0.7, 0.95)
	forked := ran / 4
	rt.waitingChildren += forked
	done := ran - forked + take(&rt.waitingChildren, 0.5, 0.8)
	atomic, blockingDone := done*6/10, fromBlocking
	rt.completed[0] += atomic
	rt.completed[1] += min(blockingDone, done-atomic)
	rt.completed[2] += done - atomic - min(blockingDone, done-atomic)
	return [4]int64{ready, started, ran, done}
}

// values are the runtime's counters, in the order of their declaration.
func (rt *taskRuntime) values() []int64 {
	occupied := int64(0)
	for _, q := range rt.queues {
		if q > 0 {
			occupied++
		}
	}
	out := []int64{occupied, rt.blockingQueue, rt.unscheduled, rt.waitingDeps, rt.waitingQueue, rt.running, rt.waitingChildren,
		rt.completed[0], rt.completed[1], rt.completed[2]}
	for s := range workerSeries {
		for i := range workers {
			if s == 0 {
				out = append(out, rt.queues[i])
			} else {
				out = append(out, rt.handled[i][s-1])
			}
		}
	}
	return out
}

// The task states the probe times, how long a task stays in each on
// average, and where the runtime leaves it (two call sites each).
var taskStates = []struct {
	name  string
	mean  decode.Ticks
	sites [2][]string
}{
	{"WAITING_FOR_DEPENDENCIES", 2e6, [2][]string{
		{"aeminium.runtime.implementations.implicitworkstealing.graph.ImplicitGraph.addTask", "aeminium.runtime.implementations.implicitworkstealing.ImplicitWorkStealingRuntime.schedule", "aeminium.runtime.examples.fib.Fibonacci$FibBody.execute"},
		{"aeminium.runtime.implementations.implicitworkstealing.task.ImplicitTask.detachChild", "aeminium.runtime.implementations.implicitworkstealing.task.ImplicitTask.taskCompleted", "aeminium.runtime.implementations.implicitworkstealing.scheduler.WorkStealingThread.run"},
	}},
	{"WAITING_IN_QUEUE", 5e6, [2][]string{
		{"aeminium.runtime.implementations.implicitworkstealing.scheduler.ImplicitWorkStealingScheduler.scheduleTask", "aeminium.runtime.implementations.implicitworkstealing.graph.ImplicitGraph.taskCompleted", "aeminium.runtime.implementations.implicitworkstealing.scheduler.WorkStealingThread.run"},
		{"aeminium.runtime.implementations.implicitworkstealing.scheduler.BlockingWorkStealingQueue.push", "aeminium.runtime.implementations.implicitworkstealing.scheduler.ImplicitWorkStealingScheduler.scheduleTask", "aeminium.runtime.implementations.implicitworkstealing.ImplicitWorkStealingRuntime.schedule"},
	}},
	{"RUNNING", 12e6, [2][]string{
		{"aeminium.runtime.implementations.implicitworkstealing.task.ImplicitTask.invoke", "aeminium.runtime.implementations.implicitworkstealing.scheduler.WorkStealingThread.run"},
		{"aeminium.runtime.implementations.implicitworkstealing.task.ImplicitBlockingTask.invoke", "aeminium.runtime.implementations.implicitworkstealing.scheduler.BlockingThreadPool$Worker.run", "java.lang.Thread.run"},
	}},
	{"WAITING_FOR_CHILDREN", 30e6, [2][]string{
		{"aeminium.runtime.implementations.implicitworkstealing.task.ImplicitTask.setState", "aeminium.runtime.implementations.implicitworkstealing.task.ImplicitTask.invoke", "aeminium.runtime.implementations.implicitworkstealing.scheduler.WorkStealingThread.run"},
		{"aeminium.runtime.implementations.implicitworkstealing.task.ImplicitTask.waitToComplete", "aeminium.runtime.examples.fib.Fibonacci$FibBody.execute", "aeminium.runtime.implementations.implicitworkstealing.task.ImplicitTask.invoke"},
	}},
}

// reportProbe sends how many tasks left each state in the interval, how
// long they had been in it, and where: one record per state and site.
func (w *World) reportProbe(rt *taskRuntime, moved [4]int64) {
	for i, s := range taskStates {
		n := moved[i]
		first := n * 7 / 10
		for site, count := range []int64{first, n - first} {
			if count <= 0 {
				continue
			}
			total := decode.Ticks(float64(count) * float64(s.mean) * (0.7 + rt.rnd.Float64()*0.6))
			longest := decode.Ticks(float64(s.mean) * (3 + rt.rnd.Float64()*5))
			frames := s.sites[site]
			st := decode.Stack{Methods: frames, Lines: make([]int64, len(frames))}
			for j := range st.Lines {
				st.Lines[j] = int64(40 + 17*j + 9*site)
			}
			w.queueNow(&decode.Probe{Time: w.now, Name: TaskProbe, Group: s.name, Count: count, Total: total, Max: longest, Stack: st})
		}
	}
}
