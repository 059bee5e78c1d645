package tui

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/protocol"
	"github.com/proftop/proftop/state"
)

// commandSource is a source that takes commands, as rbkit's does.
type commandSource struct {
	fakeSource
	cpu  bool
	done []string
}

func (c *commandSource) Commands() []client.Command {
	return []client.Command{
		{Key: "C", Label: "CPU sampling", Toggle: true, On: c.cpu},
		{Key: "W", Label: "wall/CPU clock", Toggle: true, State: "CPU clock"},
		{Key: "X", Label: "force a GC"},
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
	for _, name := range []string{"cpu_sampling.msgpack", "memory_profile.msgpack"} {
		b, err := os.ReadFile(filepath.Join("..", "decode", "testdata", "rbkit", name))
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
	src := &commandSource{cpu: true, fakeSource: fakeSource{st: client.Status{Source: "rbkit 127.0.0.1:5555/5556", State: client.StateStreaming,
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
