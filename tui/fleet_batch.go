package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/internal/textsafe"
	"github.com/proftop/proftop/state"
)

// The fleet without a terminal: the overview as text, like top -b, or
// one JSON document per JVM per snapshot.

// RenderFleetText draws the overview as plain text, width cells wide:
// the header, the deadlocks, and a row per JVM (the first top, when top
// is above 0), in the order given.
func RenderFleetText(srcs FleetSources, snap *state.FleetSnapshot, sts []client.Status, width, top int, ascii bool) string {
	st := PlainStyles()
	rows, _ := buildFleetRows(srcs, snap, sts, nil, nil)
	var b strings.Builder
	line := func(l string) {
		b.WriteString(strings.TrimRight(l, " "))
		b.WriteByte('\n')
	}
	for _, l := range fleetHeader(rows, fleetHeaderInfo{jvms: len(rows), now: snap.Taken}, width, &st) {
		line(l)
	}
	for _, l := range renderFleetDeadlocks(rows, width, len(rows), &st) {
		line(l)
	}
	n := len(rows)
	if top > 0 {
		n = min(n, top)
	}
	b.WriteByte('\n')
	for _, l := range newTable(fleetColumns(rows, 0), 0).render(rows, width, n+1, &st, false) {
		line(l)
	}
	// The table shortens hosts and errors to its columns; the text's
	// reader cannot widen them: every JVM with an error, named and said
	// whole.
	first := true
	for _, r := range rows { // those below --top too: the error is the news
		if r.status.Cause == "" {
			continue
		}
		if first {
			b.WriteString("\nERRORS\n")
			first = false
		}
		line(textsafe.Inert(r.name) + ":")
		for _, l := range wrapWhole(textsafe.Inert(r.status.Cause), width-2) {
			line("  " + l)
		}
	}
	if ascii {
		return toASCII(b.String())
	}
	return b.String()
}

// fleetDocument is one JVM in one JSON snapshot: its connection as the
// single JVM's document gives it, and the summary of its picture.
type fleetDocument struct {
	Time       time.Time      `json:"time"`
	Host       string         `json:"host"`   // as listed
	Source     string         `json:"source"` // host:port
	State      string         `json:"state"`  // live, connecting, choose agent, reconnecting or gone
	Connection string         `json:"connection"`
	Cause      string         `json:"cause,omitempty"`
	Attempt    int            `json:"attempt,omitempty"`
	Agent      any            `json:"agent,omitempty"`
	Format     string         `json:"format,omitempty"`
	Events     int64          `json:"events"`
	EventsPS   float64        `json:"eventsPerSec"`
	BytesPS    float64        `json:"bytesPerSec"`
	Errors     int64          `json:"decodeErrors"`
	Summary    *state.Summary `json:"picture"`
	// Stale says the picture is the last one seen before the connection
	// was lost: what the JVM does now is not known.
	Stale bool `json:"pictureStale,omitempty"`
}

// RenderFleetJSON renders a snapshot of the fleet as one JSON document
// per JVM, each on one line, in the order given.
func RenderFleetJSON(srcs FleetSources, snap *state.FleetSnapshot, sts []client.Status) ([]byte, error) {
	var out []byte
	for i := range sts {
		s := &sts[i]
		doc := fleetDocument{Time: snap.Taken.UTC(), Host: srcs.Label(i), Source: s.Source, State: fleetStateNames[rowState(s.State, &snap.JVMs[i])],
			Connection: s.State.String(), Cause: rowCause(s, &snap.JVMs[i]), Attempt: s.Attempt, Events: s.Events, EventsPS: s.EventsPerSec,
			BytesPS: s.BytesPerSec, Errors: s.DecodeErrors, Summary: &snap.JVMs[i],
			Stale: fleetState(s.State) != fleetLive && snap.JVMs[i].HasData()}
		if s.Format != 0 {
			doc.Format = s.Format.String()
		}
		if s.Agent.ID != "" {
			doc.Agent = s.Agent
		}
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("JVM %s: %w", srcs.Label(i), err)
		}
		out = append(append(out, textsafe.EscapeJSON(b)...), '\n')
	}
	return out, nil
}
