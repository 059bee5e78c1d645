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
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"
)

// firstGoal is the runtime's heap minimum at a percent of 100: the heap
// goal is never below firstGoal × percent/100, so a percent above
// floor/firstGoal × 100 puts the goal above the floor however small the
// live heap (and is also the percent that puts the first collection at
// the floor).
const firstGoal = 4 << 20

// tuner is the process's one floor: the collector is the process's.
var tuner struct {
	mu    sync.Mutex
	floor int64
	base  int // the process's own percent (GOGC's), read before any change
	known bool
	held  []*int // the percents of the Holds not yet released, latest last
	gen   int    // counts Set calls: an older chain of collections stops
	// For tests: the collections seen while a floor was set, and the live
	// heap the latest of them found.
	seen     int
	seenLive int64
}

// Set makes floor bytes the heap below which the collector does not run;
// 0 (or less) turns the floor off and gives the collector its own percent
// back. With GOGC=off, Set does nothing.
func Set(floor int64) {
	tuner.mu.Lock()
	defer tuner.mu.Unlock()
	learnBase()
	if tuner.base < 0 {
		return
	}
	tuner.floor = max(floor, 0)
	tuner.gen++
	apply()
	if tuner.floor > 0 {
		watch(tuner.gen)
	}
}

// Hold sets the collector's percent until release is called, whatever the
// floor: writing a bundle wants the heap kept small, not let grow to it.
// Holds may overlap: the latest one not released is in force, and once
// none is, the floor (or the process's own percent) again.
func Hold(percent int) (release func()) {
	tuner.mu.Lock()
	defer tuner.mu.Unlock()
	learnBase()
	p := &percent
	tuner.held = append(tuner.held, p)
	debug.SetGCPercent(percent)
	return sync.OnceFunc(func() {
		tuner.mu.Lock()
		defer tuner.mu.Unlock()
		if i := slices.Index(tuner.held, p); i >= 0 {
			tuner.held = slices.Delete(tuner.held, i, i+1)
		}
		apply()
	})
}

// learnBase reads the process's own percent, once, before anything here
// changes it.
func learnBase() {
	if !tuner.known {
		tuner.base, tuner.known = gcPercent(), true
	}
}

// apply sets the percent in force: the latest Hold's, else the floor's.
func apply() {
	if n := len(tuner.held); n > 0 {
		debug.SetGCPercent(*tuner.held[n-1])
		return
	}
	live, roots := heap()
	debug.SetGCPercent(percentFor(live, roots, tuner.floor, tuner.base))
}

// percentFor is the percent at which the collection after a heap of live
// bytes comes at the floor, or base's if that comes later anyway. The
// runtime's goal is live + (live + roots) × percent/100, roots being the
// goroutines' stacks and the globals it scans, and never below its heap
// minimum, firstGoal × percent/100.
func percentFor(live, roots, floor int64, base int) int {
	if floor <= 0 || base < 0 {
		return base
	}
	// Above this the heap minimum alone passes the floor.
	ceiling := float64(min(floor/(firstGoal/100), math.MaxInt32))
	if live <= 0 {
		return max(int(ceiling), base) // no collection yet
	}
	scanned := float64(live + max(roots, 0))
	if float64(live)+scanned*float64(base)/100 >= float64(floor) {
		return base
	}
	return max(int(min(float64(floor-live)*100/scanned, ceiling)), base)
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
	tuner.seenLive, _ = heap()
	apply()
	watch(gen)
}

// heap is the heap the latest collection found live (0 before any), and
// the stacks and globals the collector scans besides.
func heap() (live, roots int64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}
	metrics.Read(s)
	var v [3]int64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = int64(min(s[i].Value.Uint64(), math.MaxInt64))
		}
	}
	return v[0], v[1] + v[2]
}

// gcPercent is the collector's percent now (-1: off), read without
// changing it.
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 100
	}
	return int(int64(s[0].Value.Uint64()))
}
