package client

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/protocol"
)

// State is where a source is in its life.
type State int

const (
	StateIdle State = iota
	StateConnecting
	StateNegotiating
	StateStreaming
	StateDisconnected
	StateReconnecting
	StateChoosingAgent // several agents and none chosen
	StateEnded         // a file played to its end
)

func (s State) String() string {
	return [...]string{"idle", "connecting", "negotiating", "streaming", "disconnected", "reconnecting", "choosing agent", "ended"}[s]
}

// Outcome is how the output format was settled.
type Outcome int

const (
	OutcomeNone         Outcome = iota // not negotiated yet
	OutcomeNotAsked                    // the user chose XML: nothing was asked, XML is the default
	OutcomeNegotiated                  // the profiler answered enabledOutputFormat
	OutcomeUnrecognized                // the profiler does not know setOutputFormat: XML
	OutcomeTimeout                     // no answer in time: XML
	OutcomeRefused                     // binary was required and the profiler cannot send it
	OutcomeFile                        // a recorded file: told from its content
	OutcomeHandshake                   // rbkit: the handshake named the protocol
	OutcomeBundle                      // a bundle: as its source's format was recorded (its stream is re-encoded)
)

func (o Outcome) String() string {
	return [...]string{"", "not asked (xml is the default)", "negotiated", "fallback: profiler predates setOutputFormat",
		"fallback: no answer to setOutputFormat", "refused", "from the file's content", "handshake", "from a bundle"}[o]
}

// Status is a snapshot of a source, for display.
type Status struct {
	Source      string // "host:port" or a file path
	State       State
	Since       time.Time // when State began
	Agent       protocol.Agent
	Agents      []protocol.Agent // the choice, in StateChoosingAgent
	Format      decode.Format
	Negotiation Outcome
	// Mismatch says the data did not start as the negotiated format said;
	// proftop then decodes what the bytes are.
	Mismatch string
	// Dropped says when and why the profiler ended the previous connection
	// unasked, as it told the next one: a client that had stopped reading
	// never read the reason sent then.
	Dropped string
	// Cause says why the source is disconnected, reconnecting or ended;
	// Refused that it was a refused connection (nothing listens there: a
	// JVM that exited), which says nothing more once the JVM said it
	// exited.
	Cause   string
	Refused bool
	// Waiting says what a streaming source waits for before it can show
	// anything: a followed file its writer has not filled yet.
	Waiting string
	// Warning says what is wrong with a stream still up (a server that has
	// gone silent and answers nothing).
	Warning   string
	Attempt   int       // reconnection attempts since the last good stream
	RetryAt   time.Time // when the next attempt starts
	Streams   int       // streams received so far
	Recording string    // the file being recorded, if any
	// Notes say what the data is beyond its format: a still picture,
	// times that are approximate, what the decoder repaired, a followed
	// file that started over.
	Notes []string
	// Still says the data is one moment (a snapshot file): its figures
	// are cumulative and have no timeline.
	Still bool

	Events       int64 // decoded so far, over every stream
	Bytes        int64 // trace bytes received so far
	DecodeErrors int64
	LastError    string // the latest decode error
	EventsPerSec float64
	BytesPerSec  float64

	// Lost counts the frames the source's sequence numbers say never
	// arrived (rbkit's frame counter).
	Lost int64
	// Facts are what the source knows of the process it watches, for the
	// header ("pwd", "/srv/app"), in order.
	Facts []Fact
	// Unfilled names the panes this source cannot fill, and why.
	Unfilled []Unfilled
	// Probing says the source can be asked for probes (--probe): a
	// session with an agent controller. Other sources have probes only
	// when their data holds some (a recording of such a session).
	Probing bool
	// ProbeSpecs are the probes asked for (--probe): the problems found
	// with them are theirs, among the telemetry's.
	ProbeSpecs []string

	// sourceNotes are the notes of the data itself (the decoder's), which
	// a bundle keeps (Origin); Notes adds how it is read (followed, paced).
	sourceNotes []string
	// recorded is what the source of a bundle being replayed said about
	// itself, which a bundle of the replay keeps in its turn.
	recorded *Origin
}

// Fact is one thing a source knows of the process it watches.
type Fact struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// The panes, as Unfilled names them.
const (
	PaneThreads  = "threads"
	PaneMethods  = "methods"
	PaneMonitors = "monitors"
	PaneGC       = "gc"
	PaneObjects  = "objects"
)

// Unfilled says that a pane stays empty with this source, and why.
type Unfilled struct {
	Pane string `json:"pane"` // one of the Pane constants
	Why  string `json:"why"`  // a sentence for the pane to show
}

// Why returns the reason a pane stays empty, "" when the source fills it.
func (s Status) Why(pane string) string {
	for _, u := range s.Unfilled {
		if u.Pane == pane {
			return u.Why
		}
	}
	return ""
}

// tracker keeps a source's status; counters are atomics so that the
// decoding goroutine never waits for a reader of the status.
type tracker struct {
	mu     sync.Mutex
	st     Status
	events atomic.Int64
	bytes  atomic.Int64
	errs   atomic.Int64

	// readings are the counts as the latest snapshots read them, oldest
	// first, over rateSpan and one before: the rates are over them.
	readings               []rateReading
	clock                  func() time.Time // time.Now, but in tests
	eventsPerSec, bytesPer float64
}

func newTracker(source string) *tracker {
	now := time.Now()
	return &tracker{st: Status{Source: source, Since: now}, readings: []rateReading{{at: now}}, clock: time.Now}
}

func (t *tracker) update(f func(*Status)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	prev := t.st.State
	f(&t.st)
	if t.st.State != prev {
		t.st.Since = time.Now()
	}
}

func (t *tracker) setState(s State, cause string) {
	t.update(func(st *Status) {
		st.State = s
		st.Cause, st.Refused = cause, false
		st.Waiting = ""
	})
}

func (t *tracker) addEvents(n int64) { t.events.Add(n) }
func (t *tracker) addBytes(n int64)  { t.bytes.Add(n) }

func (t *tracker) decodeError(err error) {
	t.errs.Add(1)
	t.update(func(st *Status) { st.LastError = err.Error() })
}

// startOver forgets what the status said of the data read so far: the
// source starts over (a followed file replaced or truncated), and its
// counts, its format and its errors were of what is gone.
func (t *tracker) startOver() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events.Store(0)
	t.bytes.Store(0)
	t.errs.Store(0)
	t.readings, t.eventsPerSec, t.bytesPer = []rateReading{{at: time.Now()}}, 0, 0
	st := &t.st
	st.Format, st.Mismatch, st.LastError, st.Still, st.Lost = 0, "", "", false, 0
	st.Agent, st.Facts = protocol.Agent{}, nil
}

// minRateWindow keeps rates steady when the status is polled often.
const minRateWindow = 500 * time.Millisecond

// rateSpan is what the rates are over: a source that sends its events a
// burst a second (the JVM agent, as JFR flushes) read 0/s every other
// refresh over half a second.
const rateSpan = 3 * time.Second

// rateReading is the counts at one moment.
type rateReading struct {
	at            time.Time
	events, bytes int64
}

func (t *tracker) snapshot() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock()
	ev, by := t.events.Load(), t.bytes.Load()
	if last := t.readings[len(t.readings)-1]; now.Sub(last.at) >= minRateWindow {
		t.readings = append(t.readings, rateReading{now, ev, by})
		for len(t.readings) > 2 && !t.readings[1].at.After(now.Add(-rateSpan)) {
			t.readings = t.readings[1:]
		}
		first := t.readings[0]
		dt := now.Sub(first.at).Seconds()
		t.eventsPerSec = float64(ev-first.events) / dt
		t.bytesPer = float64(by-first.bytes) / dt
	}
	st := t.st
	st.Agents = append([]protocol.Agent(nil), t.st.Agents...)
	st.Facts = append([]Fact(nil), t.st.Facts...)
	st.Notes = append([]string(nil), t.st.Notes...)
	st.sourceNotes = append([]string(nil), t.st.sourceNotes...)
	st.ProbeSpecs = append([]string(nil), t.st.ProbeSpecs...)
	st.Events, st.Bytes, st.DecodeErrors = ev, by, t.errs.Load()
	st.EventsPerSec, st.BytesPerSec = t.eventsPerSec, t.bytesPer
	if st.State == StateEnded {
		// Nothing more comes: a rate over the last seconds, falling as
		// they pass, read as a stream still flowing.
		st.EventsPerSec, st.BytesPerSec = 0, 0
	}
	return st
}
