package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/state"
)

// The help says how far back the history goes: the last span set, or,
// for a history with no bound in time (a bundle's, as written), that it
// goes as far back as it goes, not the largest duration there is.
func TestHistoryNoteSaysItsSpan(t *testing.T) {
	for _, c := range []struct {
		span time.Duration
		want string
	}{
		{15 * time.Minute, "the last 15m"},
		{1<<63 - 1, "as far back as it goes"},
	} {
		m := &Model{cfg: Config{History: state.NewHistory(state.HistoryOptions{Span: c.span, MaxBytes: 128 << 20})}}
		if got := m.historyNote(); !strings.Contains(got, c.want) || strings.Contains(got, "2562047h") {
			t.Errorf("span %v: %q, want it to say %q", c.span, got, c.want)
		}
	}
}
