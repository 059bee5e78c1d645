package tui

import (
	"context"
	"os"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// The fleet: an overview of many JVMs, one row each, and, on Enter, the
// usual panes of one of them — the root Model, unchanged, wrapped. Each
// JVM keeps its Model once opened (its pane, sort and filter are there
// when it is opened again); only the open one refreshes. Esc and q at the
// top of a JVM's panes come back to the overview.

// FleetSources is what the overview watches: the JVMs' names and sources,
// in the order given (client.Fleet is one).
type FleetSources interface {
	Len() int
	Label(i int) string
	Member(i int) client.Source
}

// FleetModel is the fleet's root model.
type FleetModel struct {
	cfg   Config
	keys  KeyMap
	st    Styles
	srcs  FleetSources
	aggs  *state.Fleet
	meter *cpuMeter

	width, height int

	fetched, applied uint64
	snap             *state.FleetSnapshot
	statuses         []client.Status
	rows             fleetRows
	// seen is each JVM's top method and lock as last seen live: a JVM
	// not connected shows those, not a window that goes on emptying
	// (its top method changed, then went, after the connection did).
	seen []state.Summary
	cpu  float64

	table       *table
	filter      string
	filtering   bool
	filterInput textinput.Model
	filterPrev  string
	help        *helpView
	notice      string
	quitting    bool
	page        int // rows the table showed at the last frame

	models []*Model // the JVMs' panes, by index, once opened
	open   int      // the JVM shown, -1: the overview
}

// NewFleet returns the overview of the JVMs of srcs, whose events feed
// aggs (the aggregator of the same index).
func NewFleet(cfg Config, srcs FleetSources, aggs *state.Fleet) *FleetModel {
	cfg.Refresh = min(max(cfg.Refresh, MinRefresh), MaxRefresh)
	f := &FleetModel{
		cfg:    cfg,
		keys:   DefaultKeyMap(),
		st:     NewStyles(cfg.Theme),
		srcs:   srcs,
		aggs:   aggs,
		meter:  newCPUMeter(),
		table:  newTable(fleetCols, 0),
		models: make([]*Model, srcs.Len()),
		open:   -1,
	}
	f.filterInput = textinput.New()
	f.filterInput.Prompt = "/"
	return f
}

// RunFleet shows the fleet until the user quits: every source runs, and
// every aggregator feeds, on goroutines of their own.
func RunFleet(ctx context.Context, cfg Config, color ColorMode, fleet *client.Fleet, aggs *state.Fleet) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go fleet.Run(ctx)
	go aggs.Feed(fleet.Member)
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if p, forced := Profile(color, os.Getenv); forced {
		opts = append(opts, tea.WithColorProfile(p))
	}
	_, err := tea.NewProgram(NewFleet(cfg, fleet, aggs), opts...).Run()
	if err == tea.ErrProgramKilled && ctx.Err() != nil {
		return nil
	}
	return err
}

// fleetSnapshotMsg delivers the fleet's summaries, built off the UI goroutine.
type fleetSnapshotMsg struct {
	seq      uint64
	snap     *state.FleetSnapshot
	statuses []client.Status
	cpu      float64
	ticked   bool
}

// fleetTickMsg is the overview's refresh timer.
type fleetTickMsg struct{}

// memberMsg carries a message of one JVM's Model: what its commands
// return is tagged with the JVM, so that a snapshot of one never reaches
// another.
type memberMsg struct {
	member int
	msg    tea.Msg
}

func (f *FleetModel) Init() tea.Cmd { return f.fetch(true) }

// fetch summarizes every JVM in a command, off the UI goroutine.
func (f *FleetModel) fetch(ticked bool) tea.Cmd {
	f.fetched++
	seq, srcs, aggs, meter := f.fetched, f.srcs, f.aggs, f.meter
	return func() tea.Msg {
		snap := aggs.Snapshot(time.Now())
		sts := make([]client.Status, srcs.Len())
		for i := range sts {
			sts[i] = srcs.Member(i).Status()
		}
		return fleetSnapshotMsg{seq: seq, snap: snap, statuses: sts, cpu: meter.sample(), ticked: ticked}
	}
}

// tag wraps a JVM Model's command so that its messages come back tagged;
// a batch is wrapped command by command, so that it still runs as one.
func tag(member int, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		switch msg := cmd().(type) {
		case nil:
			return nil
		case tea.BatchMsg:
			out := make(tea.BatchMsg, 0, len(msg))
			for _, c := range msg {
				out = append(out, tag(member, c))
			}
			return out
		case tea.QuitMsg:
			return msg // only ctrl+c and q quit, and the overview takes those first
		default:
			return memberMsg{member: member, msg: msg}
		}
	}
}

func (f *FleetModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		f.width, f.height = msg.Width, msg.Height
		f.sizeOpen()
		return f, nil
	case fleetSnapshotMsg:
		var next tea.Cmd
		if msg.ticked {
			next = tea.Tick(f.cfg.Refresh, func(time.Time) tea.Msg { return fleetTickMsg{} })
		}
		if msg.seq < f.applied {
			return f, next
		}
		f.applied = msg.seq
		f.snap, f.statuses, f.cpu = msg.snap, msg.statuses, msg.cpu
		f.rows, f.seen = buildFleetRows(f.srcs, f.snap, f.statuses, f.rows, f.seen)
		f.sizeOpen()
		return f, next
	case fleetTickMsg:
		return f, f.fetch(true)
	case memberMsg:
		m := f.models[msg.member]
		if _, tick := msg.msg.(tickMsg); tick && msg.member != f.open {
			return f, nil // a JVM no longer shown stops refreshing
		}
		_, cmd := m.Update(msg.msg)
		return f, tag(msg.member, cmd)
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" {
			return f.quit()
		}
		if f.open >= 0 {
			return f.openKey(msg)
		}
		return f.key(msg)
	}
	if f.open >= 0 {
		_, cmd := f.models[f.open].Update(msg)
		return f, tag(f.open, cmd)
	}
	if f.filtering {
		var cmd tea.Cmd
		f.filterInput, cmd = f.filterInput.Update(msg)
		return f, cmd
	}
	return f, nil
}

// buildFleetRows pairs each JVM's summary with its source's status; of a
// JVM not connected, its top method and lock are those of its summary
// last seen live (seen, kept up to date here).
func buildFleetRows(srcs FleetSources, snap *state.FleetSnapshot, sts []client.Status, out fleetRows, seen []state.Summary) (fleetRows, []state.Summary) {
	out = out[:0]
	if len(seen) != len(sts) {
		seen = make([]state.Summary, len(sts))
	}
	for i := range sts {
		sum := snap.JVMs[i]
		if fleetState(sts[i].State) == fleetLive {
			seen[i] = sum
		} else if live := &seen[i]; live.HasData() {
			sum.TopMethod, sum.TopMethodPercent, sum.TopMethodSelf = live.TopMethod, live.TopMethodPercent, live.TopMethodSelf
			sum.TopLock, sum.TopLockBlocked = live.TopLock, live.TopLockBlocked
		}
		out = append(out, fleetRow{name: srcs.Label(i), status: sts[i], sum: sum})
	}
	return out, seen
}

func (f *FleetModel) quit() (tea.Model, tea.Cmd) {
	f.quitting = true
	return f, tea.Quit
}

// openMember shows one JVM's panes: its Model, made on first opening,
// refreshing again from now.
func (f *FleetModel) openMember(i int) (tea.Model, tea.Cmd) {
	f.open = i
	m := f.models[i]
	var cmd tea.Cmd
	if m == nil {
		cfg := f.cfg
		cfg.Fleet, cfg.Label = true, f.srcs.Label(i)
		m = New(cfg, f.srcs.Member(i), f.aggs.Member(i))
		f.models[i] = m
		cmd = m.Init()
	} else {
		cmd = m.restartTimer() // the old timer's ticks are ignored
	}
	f.sizeOpen()
	return f, tag(i, cmd)
}

// closeMember goes back to the overview; the JVM's Model stays as it was.
func (f *FleetModel) closeMember() (tea.Model, tea.Cmd) {
	f.open = -1
	return f, f.fetch(false)
}

// sizeOpen gives the open JVM's panes the screen less the lines that say
// which other JVMs are deadlocked.
func (f *FleetModel) sizeOpen() {
	if f.open < 0 {
		return
	}
	m := f.models[f.open]
	m.width, m.height = f.width, max(f.height-len(f.elsewhere()), 1)
}

// atTop says a JVM's Model shows its panes, with nothing open over them
// that esc or q would close first.
func (m *Model) atTop() bool {
	return m.detail == nil && m.help == nil && !m.filtering && !m.confirmReset
}

// openKey routes a key to the open JVM's panes; esc and q at their top
// come back to the overview (esc first clears the pane's filter, as it
// does on its own).
func (f *FleetModel) openKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	m := f.models[f.open]
	if m.atTop() {
		switch {
		case msg.String() == "q", msg.String() == "esc" && m.filters[m.focus] == "":
			return f.closeMember()
		}
	}
	_, cmd := m.Update(msg)
	return f, tag(f.open, cmd)
}
