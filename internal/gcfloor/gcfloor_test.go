package gcfloor

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name        string
		live, floor int64
		base, want  int
	}{
		{"no floor", 2 * mib, 0, 100, 100},
		{"GOGC off", 2 * mib, 32 * mib, -1, -1},
		{"before any collection: the first at the floor", 0, 32 * mib, 100, 800},
		{"before any collection, a floor under Go's first goal", 0, 2 * mib, 100, 100},
		{"small heap: the next collection at the floor", 2 * mib, 32 * mib, 100, 1500},
		{"doubling reaches the floor", 16 * mib, 32 * mib, 100, 100},
		{"above the floor", 40 * mib, 32 * mib, 100, 100},
		{"a higher GOGC of the process's own is kept", 20 * mib, 32 * mib, 200, 200},
		{"just under", 15 * mib, 32 * mib, 100, 113},
	} {
		if got := percentFor(tc.live, tc.floor, tc.base); got != tc.want {
			t.Errorf("%s: percentFor(%d, %d, %d) = %d, want %d", tc.name, tc.live, tc.floor, tc.base, got, tc.want)
		}
	}
}

// gcPercent is the collector's percent now.
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

func cycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// collect runs a collection and waits until the floor has seen it.
func collect(t *testing.T) {
	t.Helper()
	tuner.mu.Lock()
	seen := tuner.seen
	tuner.mu.Unlock()
	runtime.GC()
	for deadline := time.Now().Add(time.Minute); ; {
		tuner.mu.Lock()
		now := tuner.seen
		tuner.mu.Unlock()
		if now > seen {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the floor saw no collection in a minute")
		}
		runtime.GC() // the cleanup may wait for the collection after
		time.Sleep(time.Millisecond)
	}
}

var sink []byte

// garbage allocates n bytes of garbage in pieces of 64 KiB and returns how
// many collections ran meanwhile.
func garbage(n int) uint64 {
	before := cycles()
	for range n / (64 << 10) {
		sink = make([]byte, 64<<10)
	}
	sink = nil
	return cycles() - before
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

func TestFloorSkipsTheCollectionsOfASmallHeap(t *testing.T) {
	atBase100(t)
	base := gcPercent()
	Set(64 << 20)
	collect(t)
	if p := gcPercent(); p <= 1000 {
		t.Fatalf("with a floor of 64 MiB over a heap of %d bytes the percent is %d, want above 1000", liveHeap(), p)
	}
	with := garbage(24 << 20)
	Set(0)
	if p := gcPercent(); p != base {
		t.Fatalf("with the floor off the percent is %d, want %d", p, base)
	}
	runtime.GC()
	without := garbage(24 << 20)
	t.Logf("24 MiB of garbage: %d collections under a floor of 64 MiB, %d without", with, without)
	if with > 1 || without < 3 {
		t.Errorf("collections: %d under the floor (want at most 1), %d without (want 3 or more)", with, without)
	}
}

func TestAboveTheFloorThePercentIsTheProcesss(t *testing.T) {
	atBase100(t)
	Set(16 << 20)
	keep := make([][]byte, 0, 24)
	for range cap(keep) {
		keep = append(keep, make([]byte, 1<<20))
	}
	collect(t)
	if live := liveHeap(); live < 16<<20 {
		t.Fatalf("24 MiB kept, but the live heap is %d", live)
	}
	if p := gcPercent(); p != 100 {
		t.Errorf("live heap %d over a floor of 16 MiB: percent %d, want 100", liveHeap(), p)
	}
	runtime.KeepAlive(keep)
	keep = nil
	collect(t)
	if p := gcPercent(); p <= 100 {
		t.Errorf("live heap %d back under the floor: percent %d, want above 100", liveHeap(), p)
	}
}

func TestHoldOverridesTheFloorUntilReleased(t *testing.T) {
	atBase100(t)
	Set(64 << 20)
	release := Hold(20)
	collect(t)
	collect(t)
	if p := gcPercent(); p != 20 {
		t.Errorf("held at 20 across two collections: percent %d", p)
	}
	release()
	release() // a second release does nothing more
	if p := gcPercent(); p <= 100 {
		t.Errorf("released under a floor of 64 MiB: percent %d, want the floor's (above 100)", p)
	}
	Set(0)
	release = Hold(30)
	if p := gcPercent(); p != 30 {
		t.Errorf("held at 30 without a floor: percent %d", p)
	}
	release()
	if p := gcPercent(); p != 100 {
		t.Errorf("released without a floor: percent %d, want 100", p)
	}
}
