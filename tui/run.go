package tui

import (
	"context"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// ColorMode is the --color setting.
type ColorMode string

const (
	ColorAuto   ColorMode = "auto"
	ColorAlways ColorMode = "always"
	ColorNever  ColorMode = "never"
)

// Profile resolves the color profile: NO_COLOR (any non-empty value) and
// "never" mean no color at all; "always" forces 256 colors; "auto" lets
// the terminal tell.
func Profile(mode ColorMode, env func(string) string) (colorprofile.Profile, bool) {
	switch {
	case mode == ColorNever, mode != ColorAlways && env("NO_COLOR") != "":
		return colorprofile.Ascii, true
	case mode == ColorAlways:
		return colorprofile.ANSI256, true
	}
	return 0, false
}

// Run shows the interface until the user quits: the source runs and the
// aggregator feeds on their own goroutines; the UI gets snapshots.
func Run(ctx context.Context, cfg Config, color ColorMode, src client.Source, agg *state.Aggregator) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go src.Run(ctx)
	go agg.Feed(src)
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if p, forced := Profile(color, os.Getenv); forced {
		opts = append(opts, tea.WithColorProfile(p))
	}
	_, err := tea.NewProgram(New(cfg, src, agg), opts...).Run()
	if err == tea.ErrProgramKilled && ctx.Err() != nil {
		return nil
	}
	return err
}
