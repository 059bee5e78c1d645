package client

import (
	"testing"
	"time"
)

// The rates are over the last seconds: a source that sends a burst a
// second (the JVM agent, as JFR flushes) read 0/s at every other refresh
// over half a second.
func TestRatesOverBursts(t *testing.T) {
	tr := newTracker("prod-1:10002")
	now := time.Unix(1_000_000, 0)
	tr.clock = func() time.Time { return now }
	tr.readings = []rateReading{{at: now}}
	var rates []float64
	for tick := 1; tick <= 20; tick++ { // a snapshot every 500 ms
		now = now.Add(500 * time.Millisecond)
		if tick%2 == 0 {
			tr.addEvents(1000) // a burst a second
			tr.addBytes(100_000)
		}
		rates = append(rates, tr.snapshot().EventsPerSec)
	}
	for i, r := range rates[6:] { // past the first 3 s
		if r < 800 || r > 1200 {
			t.Fatalf("snapshot %d: %.0f events/s of 1000 a second; all %v", i+7, r, rates)
		}
	}
	// A source gone quiet reads 0 once the span has passed.
	for range 8 {
		now = now.Add(500 * time.Millisecond)
		tr.snapshot()
	}
	if st := tr.snapshot(); st.EventsPerSec != 0 || st.BytesPerSec != 0 {
		t.Fatalf("quiet for 4 s: %.0f events/s, %.0f B/s", st.EventsPerSec, st.BytesPerSec)
	}
}

// A source that has ended reads 0/s at once: a rate falling over the
// seconds after the end of a file read as a stream still flowing.
func TestRatesOfAnEndedSource(t *testing.T) {
	tr := newTracker("file.trcbin")
	now := time.Unix(1_000_000, 0)
	tr.clock = func() time.Time { return now }
	tr.readings = []rateReading{{at: now}}
	now = now.Add(time.Second)
	tr.addEvents(5000)
	tr.addBytes(400_000)
	if st := tr.snapshot(); st.EventsPerSec < 4000 {
		t.Fatalf("streaming: %.0f events/s", st.EventsPerSec)
	}
	tr.setState(StateEnded, "end of file")
	now = now.Add(500 * time.Millisecond)
	if st := tr.snapshot(); st.EventsPerSec != 0 || st.BytesPerSec != 0 || st.Events != 5000 {
		t.Fatalf("ended: %d events, %.0f events/s, %.0f B/s", st.Events, st.EventsPerSec, st.BytesPerSec)
	}
}
