package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// What a source adds to the interface without forking it: the commands it
// takes (bound to their keys, listed in the help and the footer, their
// state in the header), and the sentence of a pane it cannot fill.

// commandMsg is a command's outcome.
type commandMsg struct {
	key  string
	text string
	err  error
}

// commands lists the source's commands, none when it takes none.
func commandsOf(src client.Source) []client.Command {
	if c, ok := src.(client.Commander); ok {
		return c.Commands()
	}
	return nil
}

// runCommand runs the command of a key off the UI goroutine; false when
// no command has that key.
func (m *Model) runCommand(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	c, ok := m.src.(client.Commander)
	if !ok {
		return nil, false
	}
	for _, cmd := range c.Commands() {
		if msg.String() != cmd.Key {
			continue
		}
		m.notice = cmd.Label + ": sent, waiting for the reply…"
		if cmd.Census && m.latest != nil {
			// The census shown now, not at the reply: the new one may come
			// in a snapshot before the reply does.
			m.censusAsked = m.latest.Objects.CensusAt
		}
		k := cmd.Key
		return func() tea.Msg {
			text, err := c.Do(context.Background(), k)
			return commandMsg{key: k, text: text, err: err}
		}, true
	}
	return nil, false
}

// commandDone shows a command's outcome.
func (m *Model) commandDone(msg commandMsg) tea.Cmd {
	if msg.err != nil {
		m.notice = msg.key + ": " + inert(msg.err.Error())
	} else {
		m.notice = inert(msg.text)
		for _, c := range m.commands {
			if c.Key == msg.key && c.Census {
				m.censusPending = true
			}
		}
	}
	return m.fetch(false)
}

// censusArrived says so when the census a command asked for has come:
// the command's notice said it would show when it had.
func (m *Model) censusArrived(s *state.Snapshot) {
	if !m.censusPending || !s.Objects.CensusAt.After(m.censusAsked) {
		return
	}
	// The census announced is the one a further ask is compared with: a
	// second O before it came would else announce it twice.
	m.censusPending, m.censusAsked = false, s.Objects.CensusAt
	m.notice = fmt.Sprintf("census arrived: %s objects, counted at %s (5: the Objects pane, v: its census)",
		count(s.Objects.CensusTotal), s.Objects.CensusAt.Local().Format("15:04:05"))
}

// commandBindings are the source's commands as key bindings, for the help.
func commandBindings(cmds []client.Command) []key.Binding {
	out := make([]key.Binding, 0, len(cmds))
	for _, c := range cmds {
		desc := c.Label
		if c.Toggle && c.State == "" {
			desc += " on/off"
		}
		out = append(out, key.NewBinding(key.WithKeys(c.Key), key.WithHelp(c.Key, desc)))
	}
	return out
}

// commandFooter is the source's commands for the footer, right after "?":
// the last to go when the terminal is narrow. They go by their short
// words, so that more of them fit.
func commandFooter(cmds []client.Command) []footerItem {
	out := make([]footerItem, 0, len(cmds))
	for i, b := range commandBindings(cmds) {
		desc := cmds[i].Short
		if desc == "" {
			desc = b.Help().Desc
		}
		out = append(out, footerItem{key: b.Help().Key, desc: desc})
	}
	return out
}

// commandItems are the toggles' states, for the header.
func commandItems(cmds []client.Command, st *Styles) []item {
	var out []item
	for _, c := range cmds {
		if !c.Toggle || c.Unknown {
			continue
		}
		state := st.Muted.Render("off")
		if c.On {
			state = st.Good.Render("on")
		}
		text := st.Key.Render(c.Key) + " " + st.Label.Render(c.Label) + " " + state
		if c.State != "" {
			text = st.Key.Render(c.Key) + " " + st.Value.Render(c.State)
		}
		if c.Busy {
			text += st.Muted.Render("…")
		}
		out = append(out, item{text: text, drop: 1})
	}
	return out
}

// paneSource is how Status names each pane.
var paneSource = [numPanes]string{client.PaneThreads, client.PaneMethods, client.PaneMonitors, client.PaneGC, client.PaneObjects}

// unfilled is the sentence of a pane the source cannot fill, wrapped to
// width; nil when the source fills it.
func unfilled(status client.Status, p paneID, width int, st *Styles) []string {
	why := status.Why(paneSource[p])
	if why == "" {
		return nil
	}
	var out []string
	line := ""
	for _, w := range strings.Fields(inert(why)) {
		if line != "" && widthOf(line)+1+widthOf(w) > width {
			out = append(out, st.Muted.Render(line))
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(out, st.Muted.Render(line))
}
