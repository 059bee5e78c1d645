// Package gcfloor keeps the garbage collector from running while the heap
// is small. Go collects first at 4 MiB and then each time the heap doubles,
// so a picture of a few MiB is collected four or five times in its first
// second: a seventh of the CPU time of replaying a 30 s recording, for
// garbage that would have fitted in a few MiB more. Below the floor, the
// collector's percent (GOGC) is raised after each collection so that the
// next one comes when the heap reaches the floor; above it, the percent is
// the process's own again. The soft memory limit still applies on top.
package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// firstGoal is the heap at which Go collects first, at a percent of 100
// (the runtime's heapMinimum): before any collection, the percent that
// puts the first one at the floor is floor/firstGoal times 100.
const firstGoal = 4 << 20

// tuner is the process's one floor: the collector is the process's.
var tuner struct {
	mu    sync.Mutex
	floor int64
	base  int // the percent above the floor: GOGC's, read when first set
	known bool
	held  int // Hold calls not yet released: the floor waits for them
	gen   int // counts Set calls: an older chain of collections stops
	seen  int // collections seen while a floor was set (for tests)
}

// Set makes floor bytes the heap below which the collector does not run;
// 0 (or less) turns the floor off and gives the collector its own percent
// back. With GOGC=off, Set does nothing.
func Set(floor int64) {
	tuner.mu.Lock()
	defer tuner.mu.Unlock()
	if !tuner.known {
		tuner.base = debug.SetGCPercent(100)
		debug.SetGCPercent(tuner.base)
		tuner.known = true
	}
	if tuner.base < 0 {
		return
	}
	tuner.floor = max(floor, 0)
	tuner.gen++
	if tuner.held == 0 {
		debug.SetGCPercent(percentFor(liveHeap(), tuner.floor, tuner.base))
	}
	if tuner.floor > 0 {
		watch(tuner.gen)
	}
}

// Hold sets the collector's percent until release is called, whatever the
// floor: writing a bundle wants the heap kept small, not let grow to it.
func Hold(percent int) (release func()) {
	tuner.mu.Lock()
	defer tuner.mu.Unlock()
	prev := debug.SetGCPercent(percent)
	tuner.held++
	return sync.OnceFunc(func() {
		tuner.mu.Lock()
		defer tuner.mu.Unlock()
		tuner.held--
		if tuner.known && tuner.base >= 0 && tuner.floor > 0 && tuner.held == 0 {
			prev = percentFor(liveHeap(), tuner.floor, tuner.base)
		}
		debug.SetGCPercent(prev)
	})
}

// percentFor is the percent at which the collection after a heap of live
// bytes comes at the floor, or base's if that comes later anyway.
func percentFor(live, floor int64, base int) int {
	if floor <= 0 || base < 0 {
		return base
	}
	if live <= 0 {
		return max(int(floor*100/firstGoal), base) // no collection yet
	}
	if live+live*int64(base)/100 >= floor {
		return base
	}
	return max(int((floor-live)*100/live), base)
}

// tick is an object made to be dropped: its cleanup runs after the
// collection that finds it unreachable. It holds a pointer so that it is
// not put in a tiny block with other objects, which would keep it alive.
type tick struct{ _ *int }

// watch sets the percent again after the next collection, and goes on
// after each one while the floor set as gen is the latest.
func watch(gen int) {
	runtime.AddCleanup(new(tick), afterCollection, gen)
}

func afterCollection(gen int) {
	tuner.mu.Lock()
	defer tuner.mu.Unlock()
	if gen != tuner.gen || tuner.floor <= 0 {
		return
	}
	tuner.seen++
	if tuner.held == 0 {
		debug.SetGCPercent(percentFor(liveHeap(), tuner.floor, tuner.base))
	}
	watch(gen)
}

// liveHeap is the heap the latest collection found live; 0 before any.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
