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
	Title       Style
	Label       Style
	Value       Style
	Muted       Style
	Good        Style
	Warn        Style
	Bad         Style
	Paused      Style
	Deadlock    Style
	Border      Style
	BorderFocus Style
	PaneTitle   Style
	PaneFocus   Style
	ColHeader   Style
	ColSorted   Style
	Selected    Style
	Ended       Style
	Running     Style
	Native      Style
	Blocked     Style
	Parked      Style
	Waiting     Style
	Sleeping    Style
	Spark       Style
	SparkAlt    Style
	Key         Style
	Desc        Style
	Tab         Style
	TabActive   Style
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
		Title:       newStyle(s.Bold(true).Foreground(accent)),
		Label:       newStyle(s.Foreground(muted)),
		Value:       newStyle(s.Foreground(fg).Bold(true)),
		Muted:       newStyle(s.Foreground(muted)),
		Good:        newStyle(s.Foreground(green)),
		Warn:        newStyle(s.Foreground(yellow).Bold(true)),
		Bad:         newStyle(s.Foreground(red).Bold(true)),
		Paused:      newStyle(s.Bold(true).Reverse(true).Foreground(yellow)),
		Deadlock:    newStyle(s.Bold(true).Reverse(true).Foreground(red)),
		Border:      newStyle(s.Foreground(border)),
		BorderFocus: newStyle(s.Foreground(accent)),
		PaneTitle:   newStyle(s.Foreground(fg)),
		PaneFocus:   newStyle(s.Foreground(accent).Bold(true)),
		ColHeader:   newStyle(s.Foreground(muted).Bold(true)),
		ColSorted:   newStyle(s.Foreground(accent).Bold(true).Underline(true)),
		Selected:    newStyle(s.Reverse(true)),
		Ended:       newStyle(s.Foreground(muted).Faint(true)),
		Running:     newStyle(s.Foreground(green)),
		Native:      newStyle(s.Foreground(cyan)),
		Blocked:     newStyle(s.Foreground(red).Bold(true)),
		Parked:      newStyle(s.Foreground(orange)),
		Waiting:     newStyle(s.Foreground(yellow)),
		Sleeping:    newStyle(s.Foreground(muted)),
		Spark:       newStyle(s.Foreground(accent)),
		SparkAlt:    newStyle(s.Foreground(magenta)),
		Key:         newStyle(s.Foreground(accent).Bold(true)),
		Desc:        newStyle(s.Foreground(muted)),
		Tab:         newStyle(s.Foreground(muted)),
		TabActive:   newStyle(s.Foreground(accent).Bold(true).Underline(true)),
	}
	return st
}

// PlainStyles renders nothing but text: for --batch.
func PlainStyles() Styles { return Styles{} }
