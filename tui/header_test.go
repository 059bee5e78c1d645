package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/state"
)

// A narrow header drops its pieces by their drop, highest first; a piece
// with a short form takes it instead and stays; drop 0 stays whole.
func TestJoinItems(t *testing.T) {
	items := []item{{text: "proftop"}, {text: "/srv/app/bin/worker.rb", short: "worker.rb", drop: 2}, {text: "pid 42"},
		{text: "v0.1.10", drop: 3}, {text: "up 5s", drop: 1}}
	for _, tc := range []struct {
		width int
		want  string
	}{
		{80, "proftop  /srv/app/bin/worker.rb  pid 42  v0.1.10  up 5s"},
		{50, "proftop  /srv/app/bin/worker.rb  pid 42  up 5s"},
		{40, "proftop  worker.rb  pid 42  up 5s"},
		{28, "proftop  worker.rb  pid 42"},
		{20, "proftop  worker.rb  "}, // cut: the pid is what goes
	} {
		if got := joinItems(items, tc.width, "  "); got != tc.want {
			t.Errorf("width %d: %q, want %q", tc.width, got, tc.want)
		}
	}
}

// A text snapshot of a recording says its trace's time beside when it was
// taken; of a live JVM on this machine's clock, only the one.
func TestBatchHeaderSaysTheTraceTime(t *testing.T) {
	for _, tc := range []struct {
		ago  time.Duration
		says bool
	}{{time.Hour, true}, {2 * time.Second, false}} {
		snap := &state.Snapshot{Clock: time.Now().Add(-tc.ago), Window: 10 * time.Second}
		text := RenderText(snap, client.Status{}, 132, 5, false)
		want := "trace time " + snap.Clock.Local().Format("2006-01-02 15:04:05")
		if strings.Contains(text, want) != tc.says {
			t.Errorf("%v behind: %q said %v:\n%.300s", tc.ago, want, !tc.says, text)
		}
	}
}

// What watching costs reads as a percentage at nothing too: the header
// said "JFR 0" beside "agent CPU 0.3%", and "JFR 0.0%" a moment later.
func TestHeaderCostsKeepTheirUnit(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{0, "0.0%"}, {-1, "0.0%"}, {0.04, "0.0%"}, {0.3, "0.3%"}, {12.4, "12%"}} {
		if got := costPct(tc.v); got != tc.want {
			t.Errorf("costPct(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	agg := state.New(state.Options{})
	agg.Apply([]decode.Event{
		&decode.AgentCost{Time: decode.Ticks(t0.UnixNano()), AgentThreads: 7, JFRThreads: 2, ProcessCPU: -1},
		&decode.AgentCost{Time: decode.Ticks(t0.Add(2 * time.Second).UnixNano()), AgentThreads: 7, JFRThreads: 2, ProcessCPU: -1},
	}, 1, decode.Clock{}, t0)
	if screen := firstScreen(agg, streamingStatus(), 200, 30); !strings.Contains(screen, "proftop CPU 0.0%") || !strings.Contains(screen, "agent CPU 0.0% JFR 0.0%") {
		t.Fatalf("the header:\n%.400s", screen)
	}
}

// A JVM whose agent said it shut down, reconnected to: the header says
// it exited and that proftop reconnects in case it starts again, not the
// refused connection's question of whether the agent runs.
func TestHeaderOfAJVMThatExited(t *testing.T) {
	agg := state.New(state.Options{})
	agg.Apply([]decode.Event{
		&decode.ThreadStart{ThreadID: 1, ThreadName: "main", Time: decode.Ticks(t0.UnixNano())},
		&decode.RuntimeShutdown{ThreadMoment: decode.ThreadMoment{Time: decode.Ticks(t0.Add(time.Second).UnixNano())}},
	}, 1, decode.Clock{}, t0)
	st := streamingStatus()
	st.State, st.Cause, st.Refused = client.StateReconnecting, "connection refused by prod-1:10002: is the profiler's agent controller running there?", true
	screen := firstScreen(agg, st, 200, 30)
	if !strings.Contains(screen, "exited at") || !strings.Contains(screen, "reconnecting in case it starts again") || strings.Contains(screen, "agent controller running") {
		t.Fatalf("the header:\n%.600s", screen)
	}
}

// firstScreen is the screen of a model of w×h cells over agg, its source
// saying st, once a snapshot has come.
func firstScreen(agg *state.Aggregator, st client.Status, w, h int) string {
	m := New(Config{Refresh: time.Second, Theme: ThemeDark}, &fakeSource{st: st}, agg)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	deliver(m, agg)
	return ansi.Strip(m.render())
}
