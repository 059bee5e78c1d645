package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles holds every style of the interface, made once from the theme.
// Colors are ANSI 256 indices; Bubble Tea lowers them to 16 colors or none
// as the terminal (or NO_COLOR) requires, so every meaning also has a
// non-color cue (bold, reverse, a symbol).
type Styles struct {
	Title       lipgloss.Style
	Label       lipgloss.Style
	Value       lipgloss.Style
	Muted       lipgloss.Style
	Good        lipgloss.Style
	Warn        lipgloss.Style
	Bad         lipgloss.Style
	Paused      lipgloss.Style
	Deadlock    lipgloss.Style
	Border      lipgloss.Style
	BorderFocus lipgloss.Style
	PaneTitle   lipgloss.Style
	PaneFocus   lipgloss.Style
	ColHeader   lipgloss.Style
	ColSorted   lipgloss.Style
	Selected    lipgloss.Style
	Ended       lipgloss.Style
	Running     lipgloss.Style
	Native      lipgloss.Style
	Blocked     lipgloss.Style
	Parked      lipgloss.Style
	Waiting     lipgloss.Style
	Sleeping    lipgloss.Style
	Spark       lipgloss.Style
	SparkAlt    lipgloss.Style
	Key         lipgloss.Style
	Desc        lipgloss.Style
	Tab         lipgloss.Style
	TabActive   lipgloss.Style

	// table are the styles above a table applies, worked out once.
	table tablePainters
}

// Theme names.
const (
	ThemeDark  = "dark"
	ThemeLight = "light"
)

// NewStyles builds the styles of a theme ("dark" or "light").
func NewStyles(theme string) Styles {
	c := func(n string) color.Color { return lipgloss.Color(n) }
	fg, muted, accent, border := c("252"), c("244"), c("39"), c("240")
	if theme == ThemeLight {
		fg, muted, accent, border = c("235"), c("242"), c("25"), c("248")
	}
	green, yellow, red, magenta, cyan, orange := c("35"), c("178"), c("160"), c("170"), c("37"), c("208")
	s := lipgloss.NewStyle()
	st := Styles{
		Title:       s.Bold(true).Foreground(accent),
		Label:       s.Foreground(muted),
		Value:       s.Foreground(fg).Bold(true),
		Muted:       s.Foreground(muted),
		Good:        s.Foreground(green),
		Warn:        s.Foreground(yellow).Bold(true),
		Bad:         s.Foreground(red).Bold(true),
		Paused:      s.Bold(true).Reverse(true).Foreground(yellow),
		Deadlock:    s.Bold(true).Reverse(true).Foreground(red),
		Border:      s.Foreground(border),
		BorderFocus: s.Foreground(accent),
		PaneTitle:   s.Foreground(fg),
		PaneFocus:   s.Foreground(accent).Bold(true),
		ColHeader:   s.Foreground(muted).Bold(true),
		ColSorted:   s.Foreground(accent).Bold(true).Underline(true),
		Selected:    s.Reverse(true),
		Ended:       s.Foreground(muted).Faint(true),
		Running:     s.Foreground(green),
		Native:      s.Foreground(cyan),
		Blocked:     s.Foreground(red).Bold(true),
		Parked:      s.Foreground(orange),
		Waiting:     s.Foreground(yellow),
		Sleeping:    s.Foreground(muted),
		Spark:       s.Foreground(accent),
		SparkAlt:    s.Foreground(magenta),
		Key:         s.Foreground(accent).Bold(true),
		Desc:        s.Foreground(muted),
		Tab:         s.Foreground(muted),
		TabActive:   s.Foreground(accent).Bold(true).Underline(true),
	}
	st.table = newTablePainters(&st)
	return st
}

// PlainStyles renders nothing but text: for --batch.
func PlainStyles() Styles { return Styles{} }
