package tui

import (
	"slices"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// Config is what the interface needs from the settings: a plain struct,
// viper stays in main and config.
type Config struct {
	Refresh time.Duration // time between snapshots, 100 ms to 10 s
	Theme   string        // "dark" or "light"
	ASCII   bool          // an ASCII terminal: no symbols, sparklines or borders beyond ASCII
	Recent  bool          // start the methods pane on the window rather than cumulative
	Fleet   bool          // one JVM of a fleet: esc and q at the top go back to the overview
	// Label names the JVM as the fleet lists it (prod-4/billing), in the
	// header instead of its connection's address, which the JVMs of one
	// agent controller share.
	Label string
	// History holds the pictures of the last minutes, for time travel
	// (nil: none kept).
	History *state.History
	// Bundle writes a triage bundle to a path and says what it holds; it
	// runs off the UI goroutine (nil: w is not offered).
	Bundle func(path string, now time.Time) (string, error)
}

// Refresh bounds.
const (
	MinRefresh = 100 * time.Millisecond
	MaxRefresh = 10 * time.Second
)

// agentChooser is a source that can be told which agent to attach to.
type agentChooser interface {
	SelectAgent(spec string)
}

// Model is the root model: it owns the state and routes the keys
// (input.go); the panes are plain renderers (layout.go, panes.go).
type Model struct {
	cfg    Config
	keys   KeyMap
	st     Styles
	src    client.Source
	agg    *state.Aggregator
	meter  *cpuMeter
	width  int
	height int

	refresh time.Duration
	started time.Time       // when the interface began: the first data is looked for quickly
	tickGen uint64          // the refresh timer's generation: a timer of an older one is ignored
	fetched uint64          // sequence of the latest snapshot asked for
	applied uint64          // sequence of the latest snapshot received
	snap    *state.Snapshot // what is shown
	latest  *state.Snapshot // the newest, which differs from snap while paused
	status  client.Status
	// commands are the source's (none for most), as of the latest snapshot.
	commands []client.Command
	// censusAsked is the census shown when a command asking for a new one was sent
	// (client.Command.Census), until the new one arrives; zero: none asked.
	censusAsked   time.Time
	censusPending bool
	cpu           float64
	paused        bool
	recent        bool
	grouped       bool // monitors by class and site
	sampler       bool // methods: the sampler's view of a source with two
	views         viewCache
	census        bool // objects: the census by class and site, not the classes
	// The Objects pane's two tables, one a view: tables[paneObjects] is
	// the one shown (census.go).
	classTable, censusTable *table
	focus                   paneID
	tables                  [numPanes]*table // nil for the GC pane
	detail                  *detailView
	help                    *helpView // the help screen, when open
	notice                  string
	// noticeSeen is the notice the latest snapshot found, since noticeAt:
	// a notice gives the footer back to the key hints after noticeFor.
	noticeSeen string
	noticeAt   time.Time
	// errorNotice is the latest notice of a file not written.
	errorNotice string
	chooser     int
	// confirmReset: r was pressed once; a second r resets.
	confirmReset bool
	quitting     bool // the last frame is drawn empty

	// Time travel (timetravel.go): the snapshot frozen, and the place in
	// the history while frozen.
	frozen *state.Snapshot
	trip   *travel
	// frozenEnded says the source had ended when the view was frozen, and
	// frozenRate is the events' rate the live view showed then: the moment
	// frozen says it, not the rate of the recording's last pictures (36/s
	// of a finished replay the live view gave as 0/s).
	frozenEnded bool
	frozenRate  float64
	// The call tree (calltree.go): its view, the tree shown and its span,
	// and the sequence of the trees asked for and received.
	ctree      *treeView
	tree       *state.CallTree
	treeSpan   string
	treeSeq    uint64
	treeGot    uint64
	bundling   bool   // a bundle is being written
	bundleNote string // what the footer says while it is
	mem        int64  // proftop's own memory, bytes

	filtering   bool
	filterInput textinput.Model
	filterPrev  string
	filters     [numPanes]string

	cache   [numPanes]paneCache
	entries entriesCache // the telemetry's, of the snapshot shown
}

type detailView struct {
	kind   paneID
	key    int64
	name   string // a telemetry entry's: the series (or group) whose older points the query asks for
	offset int
}

// paneCache keeps a pane's rendering until its data, size or state change.
type paneCache struct {
	key   cacheKey
	lines []string
}

type cacheKey struct {
	snap    *state.Snapshot
	w, h    int
	focused bool
	sortCol int
	flipped bool
	filter  string
	selID   int64
	hasSel  bool
	offset  int
	sampler bool
	census  bool
	lost    string // lostTitle: the source's state changes with the same snapshot shown
}

// New returns the model for a source whose events feed agg.
func New(cfg Config, src client.Source, agg *state.Aggregator) *Model {
	cfg.Refresh = min(max(cfg.Refresh, MinRefresh), MaxRefresh)
	m := &Model{
		cfg:     cfg,
		keys:    DefaultKeyMap(),
		st:      NewStyles(cfg.Theme),
		src:     src,
		agg:     agg,
		meter:   newCPUMeter(),
		refresh: cfg.Refresh,
		recent:  cfg.Recent,
		started: time.Now(),
		tables: [numPanes]*table{
			paneThreads:  newTable(threadCols, 4),
			paneMethods:  newTable(methodCols, 3),
			paneMonitors: newTable(monitorCols, 6),
			paneObjects:  newTable(objectCols, 1),
			paneCoverage: newTable(coverageCols, 0),
			// Telemetry in the order the source declared its series;
			// probes by total time.
			paneTelemetry: newTable(telemetryCols, 0),
			paneProbes:    newTable(probeCols, 3),
		},
	}
	m.classTable, m.censusTable = m.tables[paneObjects], newTable(censusCols, 2)
	m.filterInput = textinput.New()
	m.filterInput.Prompt = "/"
	return m
}

// snapshotMsg delivers a snapshot built off the UI goroutine.
type snapshotMsg struct {
	seq      uint64 // the order it was asked for in
	snap     *state.Snapshot
	status   client.Status
	commands []client.Command
	cpu      float64
	mem      int64
	ticked   bool   // from the refresh timer: schedule the next one
	gen      uint64 // the timer generation it belongs to
}

// tickMsg is the refresh timer of one generation.
type tickMsg struct{ gen uint64 }

func (m *Model) Init() tea.Cmd { return m.fetch(true) }

// quit leaves the program, drawing an empty last frame.
func (m *Model) quit() (tea.Model, tea.Cmd) {
	m.quitting = true
	return m, tea.Quit
}

// query is what the current view needs from a snapshot.
func (m *Model) query() state.Query {
	// A still picture (a snapshot file) has no timeline: its figures are cumulative.
	q := state.Query{Recent: m.recent && !m.status.Still, CallersOf: -1, GroupMonitors: m.grouped, Methods: m.methodQuestion()}
	if d := m.detail; d != nil {
		switch d.kind {
		case paneThreads:
			q.StackOf = d.key >> 12
		case paneMethods:
			q.CallersOf = int32(d.key)
		case paneTelemetry:
			q.Telemetry = d.name
		}
	}
	return q
}

// fetch builds a snapshot in a command, off the UI goroutine. Commands
// run concurrently, so each snapshot is numbered: one asked for earlier
// but arriving later is dropped.
func (m *Model) fetch(ticked bool) tea.Cmd {
	m.fetched++
	q, agg, src, meter, seq, gen := m.query(), m.agg, m.src, m.meter, m.fetched, m.tickGen
	return func() tea.Msg {
		return snapshotMsg{seq: seq, snap: agg.Snapshot(time.Now(), q), status: src.Status(), commands: commandsOf(src), cpu: meter.sample(), mem: processMemory(),
			ticked: ticked, gen: gen}
	}
}

// restartTimer makes a new refresh interval take effect now: a snapshot at
// once, and the next after the new interval; the old timer's tick is
// ignored when it fires.
func (m *Model) restartTimer() tea.Cmd {
	m.tickGen++
	return m.fetch(true)
}

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	model, cmd := m.update(msg)
	if !m.quitting {
		m.settlePage()
	}
	return model, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case snapshotMsg:
		var next tea.Cmd
		if msg.ticked && msg.gen == m.tickGen {
			gen := m.tickGen
			next = tea.Tick(m.nextTick(msg.snap), func(time.Time) tea.Msg { return tickMsg{gen: gen} })
		}
		if msg.seq < m.applied {
			m.agg.Release(msg.snap) // stale: never shown
			return m, next
		}
		m.applied = msg.seq
		oldLatest, oldSnap := m.latest, m.snap
		m.latest, m.status, m.cpu, m.mem, m.commands = msg.snap, msg.status, msg.cpu, msg.mem, msg.commands
		if !m.paused || m.snap == nil {
			m.snap = msg.snap
		}
		m.release(oldLatest, oldSnap)
		m.censusArrived(msg.snap)
		m.ageNotice(time.Now())
		if m.paused {
			m.refreshTrip()
		} else if m.ctree != nil && msg.ticked {
			next = tea.Batch(next, m.treeCmd())
		}
		return m, next
	case treeMsg:
		m.takeTree(msg)
		return m, nil
	case fileMsg:
		if msg.bundle {
			m.bundling = false
		}
		m.notice = msg.what
		if msg.err != nil {
			m.notice = msg.err.Error()
			m.errorNotice = m.notice
		}
		return m, nil
	case tickMsg:
		if msg.gen != m.tickGen {
			return m, nil // a timer of an older interval
		}
		return m, m.fetch(true)
	case commandMsg:
		return m, m.commandDone(msg)
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	if m.filtering {
		var cmd tea.Cmd
		m.filterInput, cmd = m.filterInput.Update(msg)
		return m, cmd
	}
	return m, nil
}

// firstDataPoll is how often the picture is looked at while no data has
// come: the first frame with data shows as soon as it arrives, not a
// refresh (up to 10 s) later.
const firstDataPoll = 200 * time.Millisecond

// firstDataFor bounds the quick looks at a picture that stays empty (a
// source that sends no threads or methods at all).
const firstDataFor = 10 * time.Second

// nextTick is the time to the next snapshot after s: quick until there is
// something to show (events that name no thread yet show an empty pane).
func (m *Model) nextTick(s *state.Snapshot) time.Duration {
	switch {
	case s == nil || s.Events == 0,
		len(s.Threads) == 0 && s.MethodCount() == 0 && time.Since(m.started) < firstDataFor:
		return min(m.refresh, firstDataPoll)
	}
	return m.refresh
}

// noticeFor is how long a notice holds the footer (a key press clears it
// at once): long enough to read, and then the key hints come back. A
// file that could not be written says so for longer: the user may be
// away while a bundle is written.
const (
	noticeFor      = 10 * time.Second
	errorNoticeFor = time.Minute
)

// ageNotice clears a notice that has been shown for noticeFor, unless a
// confirmation or the filter's line is waiting on it.
func (m *Model) ageNotice(now time.Time) {
	hold := noticeFor
	if m.notice == m.errorNotice {
		hold = errorNoticeFor
	}
	switch {
	case m.notice != m.noticeSeen:
		m.noticeSeen, m.noticeAt = m.notice, now
	case m.notice != "" && !m.filtering && !m.confirmReset && now.Sub(m.noticeAt) >= hold:
		m.notice, m.noticeSeen = "", ""
	}
}

// release hands snapshots no longer shown back to the aggregator for reuse.
func (m *Model) release(snaps ...*state.Snapshot) {
	for i, s := range snaps {
		if s == nil || s == m.snap || s == m.latest || s == m.frozen || slices.Contains(snaps[:i], s) {
			continue
		}
		m.agg.Release(s)
	}
}

// fetchUnpaused asks for a snapshot now, unless the view is frozen.
func (m *Model) fetchUnpaused() tea.Cmd {
	if m.paused {
		return nil
	}
	return m.fetch(false)
}
