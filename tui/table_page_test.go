package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/state"
)

// manyMethods is an aggregator with n methods of varied figures, all in
// the window, some without a line, and a few threads.
func manyMethods(n int) *state.Aggregator {
	agg := state.New(state.Options{})
	var evs []decode.Event
	for c := range 50 {
		evs = append(evs, &decode.ClassDef{ClassID: int64(c + 1), Name: fmt.Sprintf("com.example.module%d.Service%d", c%7, c)})
	}
	for m := range n {
		evs = append(evs, &decode.MethodDef{Name: fmt.Sprintf("operation%d", m), ClassIDRef: int64(m%50 + 1), MethodID: int64(m + 1), StartLineNumber: int64(m % 9 * 7)})
	}
	for th := range 8 {
		evs = append(evs, &decode.ThreadStart{ThreadID: int64(th + 1), ThreadName: fmt.Sprintf("worker-%d", th), GroupName: "main"})
	}
	now := decode.Ticks(1_000_000)
	for i := range 3 * n {
		m := i * 7919 % n
		th := int64(i%8 + 1)
		evs = append(evs, &decode.MethodEntry{ThreadIDRef: th, MethodIDRef: int64(m + 1), Ticket: int32(i + 1), Time: now},
			&decode.MethodExit{ThreadIDRef: th, Ticket: int32(i + 1), Time: now + decode.Ticks(m*37%5000), ThreadCPUTime: now})
		now += 10
	}
	agg.Apply(evs, 1, decode.Clock{}, t0)
	return agg
}

// screenOf is a model's screen without its colours.
func screenOf(m *Model) string { return ansi.Strip(m.View().Content) }

// TestPagedMethodsLookLikeEveryMethod drives two models over the same
// methods through the same keys, one given every method and one given
// pages (the aggregator ordering them): every screen must be the same.
func TestPagedMethodsLookLikeEveryMethod(t *testing.T) {
	sizes := []struct{ w, h int }{{200, 60}, {100, 30}}
	for _, size := range sizes {
		for _, n := range []int{40, 2500} {
			t.Run(fmt.Sprintf("%dx%d/%d methods", size.w, size.h, n), func(t *testing.T) {
				agg := manyMethods(n)
				model := func(paged bool) *Model {
					bound := 1 << 30
					if paged {
						bound = 0
					}
					defer state.SetPageAboveForTest(state.SetPageAboveForTest(bound))
					src := &fakeSource{st: streamingStatus()}
					m := New(Config{Refresh: time.Second, Theme: ThemeDark, Recent: true}, src, agg)
					m.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
					deliver(m, agg)
					return m
				}
				full, paged := model(false), model(true)
				if paged.snap.Page == nil || full.snap.Page != nil {
					t.Fatalf("paged %v, full %v", paged.snap.Page != nil, full.snap.Page != nil)
				}
				keys := []string{"2", "down", "down", "j", "J", "G", "k", "g", "s", "down", "down", "S", ">", ">", "<", "pgdown", "pgdown", "pgup",
					"/", "o", "p", "e", "r", "a", "t", "i", "o", "n", "1", "enter", "down", "G", "esc", "/", "!", "1", "enter", "down", "esc",
					"c", "DELIVER", "down", "down", "enter", "esc", "c", "DELIVER", "s", "s", "s", "s", "s", "s", "S", "g", "down", "space",
					"down", "s", "G", "space", "DELIVER", "RESIZE", "down", "pgdown", "1", "down", "2", "tab", "DELIVER"}
				shown, pages := false, 0
				for i, k := range keys {
					for _, m := range []*Model{full, paged} {
						func() {
							bound := 1 << 30
							if m == paged {
								bound = 0
							}
							defer state.SetPageAboveForTest(state.SetPageAboveForTest(bound))
							switch k {
							case "DELIVER":
								deliver(m, agg)
							case "RESIZE":
								m.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h - 7})
							case "pgdown", "pgup":
								m.Update(tea.KeyPressMsg{Code: map[string]rune{"pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp}[k]})
							default:
								m.Update(keyMsg(k))
							}
						}()
					}
					f, p := screenOf(full), screenOf(paged)
					if f != p {
						t.Fatalf("after key %d (%s), the paged screen differs:\n%s\nwant:\n%s", i, k, p, f)
					}
					shown = shown || strings.Contains(p, "operation")
					if paged.snap.Page != nil {
						pages++
					}
				}
				if !shown || pages < len(keys)/2 {
					t.Fatalf("methods shown %v, %d screens of %d from pages", shown, pages, len(keys))
				}
			})
		}
	}
}
