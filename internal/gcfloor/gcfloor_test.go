package gcfloor

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

const mib = 1 << 20

func TestPercentFor(t *testing.T) {
	for _, tc := range []struct {
		name               string
		live, roots, floor int64
		base, want         int
	}{
		{"no floor", 2 * mib, 0, 0, 100, 100},
		{"GOGC off", 2 * mib, 0, 32 * mib, -1, -1},
		{"before any collection: the first at the floor", 0, 0, 32 * mib, 100, 800},
		{"before any collection, a floor under Go's first goal", 0, 0, 2 * mib, 100, 100},
		{"a tiny heap: no higher than the heap minimum allows", 2 * mib, 0, 32 * mib, 100, 800},
		{"a small heap: the next collection at the floor", 8 * mib, 0, 32 * mib, 100, 300},
		{"stacks and globals count in the goal", 8 * mib, 4 * mib, 32 * mib, 100, 200},
		{"doubling reaches the floor", 16 * mib, 0, 32 * mib, 100, 100},
		{"above the floor", 40 * mib, 0, 32 * mib, 100, 100},
		{"a higher GOGC of the process's own is kept", 20 * mib, 0, 32 * mib, 200, 200},
		{"just under", 15 * mib, 0, 32 * mib, 100, 113},
		{"a huge floor over a byte", 1, 0, 1 << 60, 100, 1<<31 - 1},
	} {
		if got := percentFor(tc.live, tc.roots, tc.floor, tc.base); got != tc.want {
			t.Errorf("%s: percentFor(%d, %d, %d, %d) = %d, want %d", tc.name, tc.live, tc.roots, tc.floor, tc.base, got, tc.want)
		}
	}
}

func metric(name string) int64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

func heapGoal() int64 { return metric("/gc/heap/goal:bytes") }

// collect runs a collection and waits until the floor has seen it: a
// cleanup of the collection before may run during this one, and see the
// heap as that one left it.
func collect(t *testing.T) {
	t.Helper()
	tuner.mu.Lock()
	seen := tuner.seen
	tuner.mu.Unlock()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		runtime.GC()
		live := metric("/gc/heap/live:bytes")
		for wait := time.Now().Add(100 * time.Millisecond); time.Now().Before(wait); time.Sleep(time.Millisecond) {
			tuner.mu.Lock()
			done := tuner.seen > seen && tuner.seenLive == live
			tuner.mu.Unlock()
			if done {
				return
			}
		}
	}
	t.Fatal("the floor saw no collection in a minute")
}

var sink []byte

// garbage allocates n bytes of garbage in pieces of 64 KiB and returns how
// many collections ran meanwhile.
func garbage(n int) int64 {
	before := metric("/gc/cycles/total:gc-cycles")
	for range n / (64 << 10) {
		sink = make([]byte, 64<<10)
	}
	sink = nil
	return metric("/gc/cycles/total:gc-cycles") - before
}

// atBase100 turns the floor off, after the test too, and skips the test
// unless the process's own percent is Go's default, which the figures in
// the tests assume.
func atBase100(t *testing.T) {
	t.Cleanup(func() { Set(0) })
	Set(0)
	if p := gcPercent(); p != 100 {
		t.Skipf("GOGC is %d: the figures below assume 100", p)
	}
}

func TestTheHeapGoalIsTheFloor(t *testing.T) {
	atBase100(t)
	for _, floor := range []int64{16 * mib, 64 * mib} {
		Set(floor)
		collect(t)
		live, roots := heap()
		if live > floor/4 {
			t.Fatalf("the test's own heap is %d bytes live: too big for a floor of %d", live, floor)
		}
		// The goal is the floor, give or take how the runtime rounds it.
		if goal := heapGoal(); goal < floor*9/10 || goal > floor*11/10 {
			t.Errorf("floor %d MiB over %d bytes live (%d of stacks and globals): heap goal %d, percent %d", floor/mib, live, roots, goal, gcPercent())
		}
		if n := garbage(int(floor / 2)); n > 1 {
			t.Errorf("floor %d MiB: %d collections while making %d MiB of garbage, want at most 1", floor/mib, n, floor/2/mib)
		}
	}
	Set(0)
	if p := gcPercent(); p != 100 {
		t.Fatalf("with the floor off the percent is %d, want 100", p)
	}
	runtime.GC()
	if goal := heapGoal(); goal > 16*mib {
		t.Errorf("with the floor off, the heap goal over %d bytes live is %d", metric("/gc/heap/live:bytes"), goal)
	}
}

func TestAboveTheFloorThePercentIsTheProcesss(t *testing.T) {
	atBase100(t)
	Set(16 * mib)
	keep := make([][]byte, 0, 24)
	for range cap(keep) {
		keep = append(keep, make([]byte, mib))
	}
	collect(t)
	if live, _ := heap(); live < 16*mib {
		t.Fatalf("24 MiB kept, but the live heap is %d", live)
	}
	if p := gcPercent(); p != 100 {
		t.Errorf("over a floor of 16 MiB: percent %d, want 100", p)
	}
	runtime.KeepAlive(keep)
	keep = nil
	collect(t)
	if p := gcPercent(); p <= 100 {
		t.Errorf("back under the floor: percent %d, want above 100", p)
	}
}

func TestHoldsOverTheFloor(t *testing.T) {
	atBase100(t)
	Set(64 * mib)
	floored := gcPercent()
	if floored <= 100 {
		t.Fatalf("the floor's percent is %d", floored)
	}
	outer := Hold(20)
	collect(t)
	collect(t)
	if p := gcPercent(); p != 20 {
		t.Errorf("held at 20 across two collections: percent %d", p)
	}
	inner := Hold(30)
	outer() // released before the inner one: the inner one stays in force
	outer()
	if p := gcPercent(); p != 30 {
		t.Errorf("the outer hold released first: percent %d, want the inner hold's 30", p)
	}
	inner()
	if p := gcPercent(); p <= 100 {
		t.Errorf("both released under a floor of 64 MiB: percent %d, want the floor's (above 100)", p)
	}
	held := Hold(20)
	Set(0) // the floor goes while a hold is in force
	if p := gcPercent(); p != 20 {
		t.Errorf("the floor turned off during a hold: percent %d, want 20", p)
	}
	held()
	if p := gcPercent(); p != 100 {
		t.Errorf("released after the floor went: percent %d, want 100", p)
	}
	release := Hold(30)
	release()
	if p := gcPercent(); p != 100 {
		t.Errorf("a hold without a floor, released: percent %d, want 100", p)
	}
}

// With GOGC=off the collector stays off through a floor and a hold: run
// in a process of its own, whose environment says so.
func TestGOGCOffStaysOff(t *testing.T) {
	if os.Getenv("GCFLOOR_OFF_CHILD") == "1" {
		Set(32 * mib)
		release := Hold(20)
		release()
		if p := gcPercent(); p != -1 {
			t.Fatalf("GOGC=off: percent %d after a floor and a hold, want -1 (off)", p)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestGOGCOffStaysOff$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "GCFLOOR_OFF_CHILD=1", "GOGC=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
