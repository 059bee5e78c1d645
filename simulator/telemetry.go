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

// The task types the runtime counts, in the order of its counters.
const (
	atomicTask = iota
	blockingTask
	nonBlockingTask
	taskKinds
)

// atomicShare is how many of the tasks a worker's queue receives are
// atomic, in tenths; the rest are non-blocking.
const atomicShare = 6

// taskRuntime is the simulated runtime's state between polls.
type taskRuntime struct {
	rnd      *rand.Rand
	declared bool
	series   []seriesSpec
	ticks    int

	// Tasks by state; from the queues on, by kind as well, so that every
	// task a worker handles is counted once, in its kind, and completes
	// in that kind: completed never exceeds handled.
	unscheduled, waitingDeps, blockingQueue int64
	queued                                  [workers][taskKinds]int64 // a worker's non-blocking queue: atomic and non-blocking tasks
	running, waitingChildren                [taskKinds]int64
	completed                               [taskKinds]int64
	handled                                 [workers][taskKinds]int64

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
// (a blocking task in the blocking queue), are handled by a worker and
// run, wait for their children, complete. It returns how many tasks left
// each state, for the probe.
func (rt *taskRuntime) step() [4]int64 {
	load := 1 + 0.7*math.Sin(float64(rt.ticks)/9)
	share := func(lo, hi float64) float64 { return lo + rt.rnd.Float64()*(hi-lo) }
	take := func(from *int64, f float64) int64 {
		n := int64(float64(*from) * f)
		*from -= n
		return n
	}
	rt.unscheduled += int64(load * float64(150+rt.rnd.IntN(250)))
	rt.waitingDeps += take(&rt.unscheduled, share(0.5, 0.9))
	ready := take(&rt.waitingDeps, share(0.4, 0.7))
	blocking := ready / 10
	rt.blockingQueue += blocking
	for n := ready - blocking; n > 0; {
		i := rt.rnd.IntN(workers)
		k := min(n, int64(1+rt.rnd.IntN(40)))
		atomic := k * atomicShare / 10
		rt.queued[i][atomicTask] += atomic
		rt.queued[i][nonBlockingTask] += k - atomic
		n -= k
	}
	var started int64
	handle := func(worker, kind int, n int64) {
		rt.handled[worker][kind] += n
		rt.running[kind] += n
		started += n
	}
	for i := range rt.queued {
		f := share(0.5, 0.95)
		for _, kind := range []int{atomicTask, nonBlockingTask} {
			handle(i, kind, take(&rt.queued[i][kind], f))
		}
	}
	handle(rt.rnd.IntN(workers), blockingTask, take(&rt.blockingQueue, share(0.3, 0.8)))
	var ran, done int64
	ranShare, childrenShare := share(0.7, 0.95), share(0.5, 0.8)
	for kind := range taskKinds {
		r := take(&rt.running[kind], ranShare)
		forked := r / 4 // waits for its children; the rest have none and complete at once
		rt.waitingChildren[kind] += forked
		d := r - forked + take(&rt.waitingChildren[kind], childrenShare)
		rt.completed[kind] += d
		ran += r
		done += d
	}
	return [4]int64{ready, started, ran, done}
}

// values are the runtime's counters, in the order of their declaration.
func (rt *taskRuntime) values() []int64 {
	var occupied, waitingQueue, running, waitingChildren int64
	queue := func(i int) int64 { return rt.queued[i][atomicTask] + rt.queued[i][nonBlockingTask] }
	for i := range workers {
		if queue(i) > 0 {
			occupied++
		}
		waitingQueue += queue(i)
	}
	waitingQueue += rt.blockingQueue
	for kind := range taskKinds {
		running += rt.running[kind]
		waitingChildren += rt.waitingChildren[kind]
	}
	out := []int64{occupied, rt.blockingQueue, rt.unscheduled, rt.waitingDeps, waitingQueue, running, waitingChildren,
		rt.completed[atomicTask], rt.completed[blockingTask], rt.completed[nonBlockingTask]}
	for s := range workerSeries {
		for i := range workers {
			switch s {
			case 0:
				out = append(out, queue(i))
			case 1:
				out = append(out, rt.handled[i][atomicTask])
			case 2:
				out = append(out, rt.handled[i][blockingTask])
			case 3:
				out = append(out, rt.handled[i][nonBlockingTask])
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
