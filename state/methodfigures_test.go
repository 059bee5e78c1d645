package state

import (
	"testing"
	"time"
)

// Methods that only have calls get no sample figures; one that also gets
// samples and its own CPU time reads them back joined to its calls', since
// the start and over the window, before and after its second closes.
func TestSampleFiguresAreMadeForSampledMethodsOnly(t *testing.T) {
	var mt methodTable
	mt.init(10*time.Second, 100)
	for i := range 3 {
		mt.newSlot(provisionalText(string(rune('a'+i))), string(rune('a'+i)), 1)
	}
	mt.rotate(t0)
	mt.record(0, 1, 5, 7, 7, 7, 3)
	mt.record(1, 2, 10, 10, 4, 6, -1)
	if len(mt.sampleFigs) != 0 {
		t.Fatalf("%d sample figures made for measured methods", len(mt.sampleFigs))
	}
	mt.recordSamples(1, 2, 3, 40, 90)
	mt.recordOwnCPU(1, 8)
	if len(mt.sampleFigs) != 1 || mt.samplesOf(0) != nil || mt.samplesOf(2) != nil {
		t.Fatalf("%d sample figures made", len(mt.sampleFigs))
	}
	want := figures{calls: 2, self: 50, total: 100, min: 4, max: 6, samples: 2, totalSamples: 3, ownCPU: 8}
	check := func(when string) {
		t.Helper()
		if got := mt.cumOf(1); got != want {
			t.Fatalf("%s, since the start: %+v, want %+v", when, got, want)
		}
		if got := mt.windowOf(1); got != want {
			t.Fatalf("%s, over the window: %+v, want %+v", when, got, want)
		}
		if got := mt.cumOf(0); got != (figures{calls: 1, self: 5, total: 7, cpu: 3, min: 7, max: 7}) {
			t.Fatalf("%s, a measured method: %+v", when, got)
		}
	}
	check("in the second being filled")
	mt.rotate(t0.Add(time.Second))
	check("once the second closed")
	if ms := mt.samplesOf(1); ms.cur != (sampleFigures{}) {
		t.Fatalf("the closed second's samples stay in the one being filled: %+v", ms.cur)
	}
	if mt.cumHas(2) || mt.winHas(2) {
		t.Fatal("a method without figures has some")
	}
	mt.rotate(t0.Add(20 * time.Second)) // everything expires
	if got := mt.windowOf(1); got != (figures{}) {
		t.Fatalf("expired window: %+v", got)
	}
	if got := mt.cumOf(1); got != want {
		t.Fatalf("since the start, after the window expired: %+v, want %+v", got, want)
	}
}
