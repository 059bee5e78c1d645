package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

func BenchmarkSnapshotOnly(b *testing.B) {
	agg := bigPicture(b)
	at := t0
	for b.Loop() {
		at = at.Add(time.Second)
		agg.Snapshot(at, (&Model{recent: true}).query())
	}
}

func BenchmarkRenderNewSnapshot(b *testing.B) {
	agg := bigPicture(b)
	src := &fakeSource{st: streamingStatus()}
	m := New(Config{Refresh: time.Second}, src, agg)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	snaps := []any{}
	for i := 0; i < 2; i++ {
		snaps = append(snaps, snapshotMsg{snap: agg.Snapshot(t0.Add(time.Duration(i)*time.Second), m.query()), status: src.st})
	}
	i := 0
	for b.Loop() {
		m.Update(snaps[i%2])
		i++
		m.View()
	}
}
