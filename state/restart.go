package state

import (
	"time"

	"github.com/proftop/proftop/decode"
)

// newProcess forgets what described the process watched before, once
// another is watched (anotherProcess): a Ruby process restarted under rbkit,
// a JVM restarted. Its objects, census and collections were of a heap
// that is gone, and would read as the new one's; its agent's CPU readings
// are of another process, and a share taken between them and the new
// one's would be nonsense; its threads, ended with it, and its locks are
// no longer listed. The methods' statistics stay, as for any new stream.
func (a *Aggregator) newProcess() {
	// The former process's threads ended with it: listed on, they sat
	// beside the new one's under the same ids and names (a Ruby script
	// started again), nothing telling them apart.
	a.threads.expire(a.latest, 0, 0)
	a.cost = costState{}
	a.gc = gcState{}
	a.gc.init(a.opts.History)
	a.objects = objectTable{}
	a.objects.init(a.opts.Window, a.opts.MaxTrackedObjects, a.opts.MaxClasses)
	// Its locks were objects of that heap: another process's, under the
	// same identity hashes or not, are other locks.
	a.monitors = monitorTable{}
	a.monitors.init(a.opts.MaxMonitors, a.opts.MaxRecentAllocations)
	a.locksChanged()
}

// anotherProcess says a process described is not the one watched before:
// another pid, or the same pid (pid 1 in a container started again) under
// another id from its source: rbkit's client gives each process it finds
// an id of its own, the JVM agent names a process by its pid and start
// time. (A start time alone does not tell: some sources date a
// process's description by when they sent it.)
func (a *Aggregator) anotherProcess(e *decode.ProcessCreate) bool {
	if a.process.PID == 0 || e.PID == 0 {
		return false
	}
	return e.PID != a.process.PID || e.ProcessID != "" && a.processID != "" && e.ProcessID != a.processID
}

// Restart forgets everything: the source started over from nothing (a
// followed file was truncated or replaced), so that nothing of what it
// showed before lingers in the picture. Unlike Reset, threads, owners and
// the census go too.
func (a *Aggregator) Restart() {
	a.mu.Lock()
	defer a.mu.Unlock()
	// Snapshots released later must never be patched by the new method
	// table: its generations continue after the old one's.
	gen := a.methods.gen + 1
	rowsGen := a.threads.marks.gen + 1 // and never by the new thread table
	// The call tree is made anew too: its nodes name the old table's
	// method slots, which the new table's would rename. It numbers its
	// seconds and resets on, and the shape it leaves stays with the
	// pictures taken of it (treeorigin.go).
	a.leaveTree()
	seq, resets := a.tree.seq, a.tree.resets+1
	a.makeTables()
	a.threads.marks.gen, a.threads.marks.allAt = rowsGen, rowsGen
	a.tree.seq, a.tree.resets = seq, resets
	a.methods.gen, a.methods.members, a.methods.window.since = gen, gen, gen
	a.locksChanged()
	// What the source said of itself beyond its tables: deadlocks, the
	// agent's cost.
	a.deadlog, a.deadlocksSeen, a.deadlocksAt, a.deadlocksDirty = deadlockLog{}, deadlocksFound{}, 0, true
	a.cost = costState{}
	a.first, a.eventAt, a.streamEvents, a.resetAt, a.resetNs = 0, 0, false, time.Time{}, 0
	a.process, a.processID = Process{}, ""
	a.events, a.latest, a.unpaired, a.badStates = 0, 0, 0, 0
	a.polled, a.polledAt, a.pollMark, a.poll, a.pollUntracked = false, 0, 0, pollBuffer{}, 0
	a.freeMethods = nil
}
