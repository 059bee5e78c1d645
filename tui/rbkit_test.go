package tui

import (
	"bytes"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/internal/fixtures"
	"github.com/proftop/proftop/protocol"
	"github.com/proftop/proftop/state"
)

// commandSource is a source that takes commands, as rbkit's does.
type commandSource struct {
	fakeSource
	cpu, memory bool
	unknown     bool // the toggles' states are not known (never connected)
	done        []string
}

func (c *commandSource) Commands() []client.Command {
	return []client.Command{
		{Key: "C", Label: "CPU sampling", Short: "CPU", Toggle: true, On: c.cpu, Unknown: c.unknown},
		{Key: "W", Label: "wall/CPU clock", Short: "clock", Toggle: true, State: "CPU clock", Unknown: c.unknown},
		{Key: "X", Label: "force a GC", Short: "GC"},
		{Key: "M", Label: "memory profiling", Short: "memory", Toggle: true, On: c.memory, Unknown: c.unknown},
		{Key: "O", Label: "object-space snapshot", Short: "snapshot", Census: true},
	}
}

func (c *commandSource) Do(_ context.Context, key string) (string, error) {
	c.done = append(c.done, key)
	if key == "C" {
		c.cpu = !c.cpu
	}
	return "done: " + key, nil
}

// rbkitModel shows the rbkit captures through a source with rbkit's status.
func rbkitModel(t *testing.T, w, h int) (*Model, *state.Aggregator, *commandSource) {
	t.Helper()
	agg := state.New(state.Options{})
	for _, name := range []string{"cpu_sampling.msgpack", "memory_profile.msgpack", "objectspace_dump.msgpack.gz"} {
		b, err := os.ReadFile(fixtures.Path(t, "rbkit/"+name))
		if err != nil {
			t.Fatal(err)
		}
		d, err := decode.Open(bytes.NewReader(b), decode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var batch decode.Batch
		for {
			ev, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			batch.Add(ev)
		}
		agg.Apply(batch.Events(), 1, decode.Clock{}, t0)
	}
	src := &commandSource{cpu: true, memory: true, fakeSource: fakeSource{st: client.Status{Source: "rbkit 127.0.0.1:5555/5556", State: client.StateStreaming,
		Format: decode.FormatRbkit, Negotiation: client.OutcomeHandshake, Streams: 1, Lost: 3,
		Agent:    protocol.Agent{ID: "14772", PID: 14772, Name: "/opt/rbkit-run/target.rb", Type: "rbkit", Version: "0.1.10"},
		Facts:    []client.Fact{{Key: "pwd", Value: "/opt/rbkit-run"}, {Key: "rbkit", Value: "0.1.10, protocol 2.1"}},
		Unfilled: []client.Unfilled{{Pane: client.PaneMonitors, Why: "rbkit reports no locks: a Ruby process's monitors and mutexes are not traced, so this pane stays empty."}},
	}}}
	m := New(Config{Refresh: time.Second, Theme: ThemeDark}, src, agg)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	deliverCommands(m, agg)
	return m, agg, src
}

// deliverCommands is deliver with the source's commands, as fetch gives them.
func deliverCommands(m *Model, agg *state.Aggregator) {
	m.fetched++
	m.Update(snapshotMsg{seq: m.fetched, snap: agg.Snapshot(time.Unix(0, 1795251590000000000), m.query()), status: m.src.Status(), commands: commandsOf(m.src)})
}

func TestRbkitGoldenScreens(t *testing.T) {
	for _, tc := range []struct {
		name string
		w, h int
		keys []string
	}{
		{"rbkit-grid-200x50", 200, 50, nil},
		{"rbkit-monitors-80x24", 80, 24, []string{"3"}},
		{"rbkit-methods-80x24", 80, 24, []string{"2"}},
		{"rbkit-help-80x24", 80, 24, []string{"?"}},
		{"rbkit-method-drill-in-80x24", 80, 24, []string{"2", "enter"}},
		{"rbkit-objects-80x24", 80, 24, []string{"5"}},
		{"rbkit-census-80x24", 80, 24, []string{"5", "v"}},
		{"rbkit-census-200x50", 200, 50, []string{"5", "v"}},
		{"rbkit-census-drill-in-80x24", 80, 24, []string{"5", "v", "enter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, agg, _ := rbkitModel(t, tc.w, tc.h)
			press(m, tc.keys...)
			deliverCommands(m, agg)
			screen := m.render()
			checkFrame(t, screen, tc.w, tc.h)
			golden(t, tc.name, screen)
		})
	}
}

// A source's command keys run its commands off the UI goroutine; the
// outcome is the notice and the toggle's state shows in the header.
func TestSourceCommandKeys(t *testing.T) {
	m, agg, src := rbkitModel(t, 200, 50)
	if !strings.Contains(ansi.Strip(m.render()), "C CPU sampling on") {
		t.Fatal("the header does not show CPU sampling on")
	}
	cmd := press(m, "C")
	if cmd == nil || len(src.done) != 0 {
		t.Fatal("C ran nothing, or ran on the UI goroutine")
	}
	m.Update(cmd())
	deliverCommands(m, agg)
	screen := ansi.Strip(m.render())
	if len(src.done) != 1 || src.done[0] != "C" || !strings.Contains(screen, "done: C") || !strings.Contains(screen, "C CPU sampling off") {
		t.Fatalf("after C: commands %v, screen:\n%s", src.done, screen)
	}
	if cmd := press(m, "Z"); cmd != nil && len(src.done) > 1 {
		t.Fatal("a key the source does not take ran a command")
	}
}

// A command whose answer comes later as a census says so when it has come:
// its reply's notice ("the census shows when it has arrived") stayed up
// after it had.
func TestCommandSaysWhenItsCensusArrived(t *testing.T) {
	m, agg, _ := rbkitModel(t, 200, 50)
	before := m.latest.Objects.CensusAt
	m.Update(press(m, "O")())
	deliverCommands(m, agg)
	if !strings.Contains(m.notice, "done: O") {
		t.Fatalf("before the census: %q", m.notice)
	}
	at := decode.Ticks(before.Add(time.Minute).UnixNano())
	agg.Apply([]decode.Event{&decode.ObjectCensus{Time: at, Census: 9, Class: "Widget", Count: 42, Bytes: 1680, MaxCount: -1}}, 1, decode.Clock{}, t0)
	deliverCommands(m, agg)
	if !strings.Contains(m.notice, "census arrived: 42 objects") {
		t.Fatalf("after the census: %q", m.notice)
	}
}

// The census may come in a snapshot before the command's reply does: it
// is still said to have arrived (it was compared with the census shown at
// the reply, which was already the new one).
func TestCensusBeforeTheReplyIsSaidToHaveArrived(t *testing.T) {
	m, agg, _ := rbkitModel(t, 200, 50)
	before := m.latest.Objects.CensusAt
	cmd := press(m, "O")
	at := decode.Ticks(before.Add(time.Minute).UnixNano())
	agg.Apply([]decode.Event{&decode.ObjectCensus{Time: at, Census: 9, Class: "Widget", Count: 42, Bytes: 1680, MaxCount: -1}}, 1, decode.Clock{}, t0)
	deliverCommands(m, agg)
	m.Update(cmd())
	deliverCommands(m, agg)
	if !strings.Contains(m.notice, "census arrived: 42 objects") {
		t.Fatalf("census before the reply: %q", m.notice)
	}
}

// rbkit's samples say nothing of the time they stand for: the call tree
// counts them, and its title says so.
func TestRbkitCallTree(t *testing.T) {
	m, agg, _ := rbkitModel(t, 80, 24)
	run(m, "2", "t")
	deliverCommands(m, agg)
	screen := m.render()
	checkFrame(t, screen, 80, 24)
	for _, w := range []string{"Call tree", "stack samples", "SAMPLES", "Foo#work"} {
		if !strings.Contains(ansi.Strip(screen), w) {
			t.Errorf("the screen lacks %q", w)
		}
	}
	golden(t, "rbkit-call-tree-80x24", screen)
}

// The footer offers the source's keys by their short words, as many as
// fit; "?" says more when some do not.
func TestRbkitFooterKeys(t *testing.T) {
	for _, tc := range []struct {
		width   int
		want    []string
		lacking []string
	}{
		{80, []string{"? help", "C CPU", "W clock", "X GC", "M memory", "O snapshot", "q quit"}, nil},
		{48, []string{"? more", "C CPU", "q quit"}, []string{"O snapshot", "? help"}},
	} {
		t.Run(strconv.Itoa(tc.width), func(t *testing.T) {
			m, _, _ := rbkitModel(t, tc.width, 24)
			footer := ansi.Strip(m.footer())
			for _, w := range tc.want {
				if !strings.Contains(footer, w) {
					t.Errorf("footer %q lacks %q", footer, w)
				}
			}
			for _, w := range tc.lacking {
				if strings.Contains(footer, w) {
					t.Errorf("footer %q has %q", footer, w)
				}
			}
		})
	}
}

// A toggle whose state the source does not know (never connected) is left
// out of the header, not shown off.
func TestUnknownTogglesLeftOut(t *testing.T) {
	m, agg, src := rbkitModel(t, 200, 50)
	src.unknown = true
	deliverCommands(m, agg)
	screen := ansi.Strip(m.render())
	for _, w := range []string{"C CPU sampling", "M memory profiling", "W CPU clock"} {
		if strings.Contains(screen, w) {
			t.Errorf("the header shows %q though its state is unknown", w)
		}
	}
	if !strings.Contains(screen, "C CPU · W clock") {
		t.Error("the footer no longer offers the keys")
	}
}

// v shows the census by class and site in the Objects pane, and the
// classes again; without a census it says how to take one. The text
// snapshot lists the census too.
func TestObjectsCensusView(t *testing.T) {
	m, agg, _ := rbkitModel(t, 120, 40)
	press(m, "5", "v")
	deliverCommands(m, agg)
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "census 08:59:43, 12.8k objects") || !strings.Contains(screen, "COUNT") {
		t.Fatalf("after v, no census:\n%s", screen)
	}
	press(m, "v")
	deliverCommands(m, agg)
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "per second over") || !strings.Contains(screen, "CENSUS") {
		t.Fatalf("after v again, not the classes:\n%s", screen)
	}
	text := ansi.Strip(RenderText(agg.Snapshot(time.Unix(0, 1795251590000000000), state.Query{CallersOf: -1}), m.status, 120, 5, false))
	if !strings.Contains(text, "OBJECTS · CENSUS 08:59:43, 12.8K OBJECTS (47, first 5)") || !strings.Contains(text, "9519    74%") {
		t.Fatalf("the text snapshot lacks the census:\n%s", text)
	}

	bare := New(Config{Refresh: time.Second}, &fakeSource{}, state.New(state.Options{}))
	bare.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	bare.snap = &state.Snapshot{HasObjects: true}
	press(bare, "5", "v")
	if bare.census || !strings.Contains(bare.notice, "no census") {
		t.Fatalf("v without a census: census %v, notice %q", bare.census, bare.notice)
	}
}

// A stream still up whose server has gone silent says so in the header.
func TestStreamWarningInTheHeader(t *testing.T) {
	m, agg, src := rbkitModel(t, 80, 24)
	src.st.Warning = "the rbkit server has sent nothing since 15:13:42 and answers no command: is the Ruby process stopped or hung?"
	deliverCommands(m, agg)
	screen := m.render()
	checkFrame(t, screen, 80, 24)
	if !strings.Contains(ansi.Strip(screen), "⚠ the rbkit server has sent nothing since 15:13:42") {
		t.Fatalf("no warning:\n%s", ansi.Strip(screen))
	}
}

// With no census to show, v says how to take one only to a source that
// can (rbkit's O); any other source takes none.
func TestNoCensusSaysWhetherTheSourceTakesOne(t *testing.T) {
	rbkit := &Model{commands: (&commandSource{}).Commands()}
	if got := rbkit.noCensus(); !strings.Contains(got, "O takes one") {
		t.Errorf("rbkit: %q", got)
	}
	jvm := &Model{}
	if got := jvm.noCensus(); strings.Contains(got, "takes one") || !strings.Contains(got, "this source takes none") {
		t.Errorf("a JVM agent's stream: %q", got)
	}
}

// A live source not connected: the threads' and objects' panes say their
// states and rates are the last seen (a killed Ruby process's thread read
// "running 91%" for as long as proftop tried to reconnect); a frozen view
// is of its moment, and says nothing of it.
func TestPanesSayWhenTheSourceIsLost(t *testing.T) {
	m, agg, src := rbkitModel(t, 200, 50)
	if screen := ansi.Strip(m.render()); strings.Contains(screen, "as last seen") {
		t.Fatalf("streaming, yet:\n%s", screen)
	}
	for _, lost := range []client.State{client.StateReconnecting, client.StateConnecting, client.StateNegotiating, client.StateDisconnected} {
		src.st.State = lost
		deliverCommands(m, agg)
		screen := ansi.Strip(m.render())
		if strings.Count(screen, "as last seen, ") != 2 || !strings.Contains(screen, ": not connected") {
			t.Fatalf("%v:\n%s", lost, screen)
		}
	}
	press(m, "space")
	if screen := ansi.Strip(m.render()); strings.Contains(screen, "as last seen") {
		t.Fatalf("frozen:\n%s", screen)
	}
}

// rbkit's samples stand for no time: the methods' title and columns say
// so also when the window holds none (it read "sampled CPU · 0", its
// LINE column gone and MIN there, until samples came again).
func TestUntimedSamplesKeepTheirViewWhenTheWindowEmpties(t *testing.T) {
	m, agg, _ := rbkitModel(t, 200, 50)
	press(m, "2", "c") // the hot methods, over the last 10 s
	m.fetched++
	m.Update(snapshotMsg{seq: m.fetched, snap: agg.Snapshot(time.Unix(0, 1795251590000000000).Add(time.Hour), m.query()), status: m.src.Status(), commands: commandsOf(m.src)})
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "Hot methods · last 10s · sampled: SELF and TOTAL in samples · 0") || strings.Contains(screen, "sampled CPU") {
		t.Fatalf("an empty window:\n%s", screen)
	}
}

// O pressed twice before the first census came: the first is announced
// once, and the second when it comes, not the first again.
func TestTwoCensusesAskedAreEachAnnouncedOnce(t *testing.T) {
	m, agg, _ := rbkitModel(t, 200, 50)
	before := m.latest.Objects.CensusAt
	census := func(id int64, after time.Duration, count int64) {
		at := decode.Ticks(before.Add(after).UnixNano())
		agg.Apply([]decode.Event{&decode.ObjectCensus{Time: at, Census: id, Class: "Widget", Count: count, Bytes: 40 * count, MaxCount: -1}}, 1, decode.Clock{}, t0)
	}
	m.Update(press(m, "O")())
	second := press(m, "O")
	census(9, time.Minute, 42)
	deliverCommands(m, agg)
	if !strings.Contains(m.notice, "census arrived: 42 objects") {
		t.Fatalf("the first census: %q", m.notice)
	}
	m.Update(second())
	deliverCommands(m, agg)
	if strings.Contains(m.notice, "census arrived") {
		t.Fatalf("the first census announced again: %q", m.notice)
	}
	census(10, 2*time.Minute, 43)
	deliverCommands(m, agg)
	if !strings.Contains(m.notice, "census arrived: 43 objects") {
		t.Fatalf("the second census: %q", m.notice)
	}
}
