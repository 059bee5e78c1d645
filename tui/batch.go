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

// RenderText draws a snapshot as plain text, every pane one after the
// other, like top -b: width cells wide, at most top rows per table.
func RenderText(s *state.Snapshot, status client.Status, width, top int, ascii bool) string {
	st := PlainStyles()
	var b strings.Builder
	h := headerInfo{status: status, refresh: 0, now: time.Now(), whole: true}
	for _, l := range renderHeader(h, s, width, &st) {
		b.WriteString(strings.TrimRight(l, " "))
		b.WriteByte('\n')
	}
	for _, l := range renderDeadlocks(s, width, &st) {
		b.WriteString(strings.TrimRight(l, " "))
		b.WriteByte('\n')
	}
	tables := []batchTable{
		{paneThreads, newTable(threadCols, threadSort(s)), newThreadRows(s), ""},
		{paneMethods, newTable(methodCols, 3), methodViewRows(s, false), methodsViewTitle(s, false, false)},
	}
	if s.Views {
		// The second view of the methods: the sampler's hits.
		tables = append(tables, batchTable{paneMethods, newTable(samplerMethodCols, 3), methodViewRows(s, true), methodsViewTitle(s, true, false)})
	}
	tables = append(tables, batchTable{paneMonitors, newTable(monitorCols, 6), monitorRows{s: s.Monitors, deadlocked: deadlockedMonitors(s)}, ""})
	if len(s.Coverage) > 0 {
		tables = append(tables, batchTable{paneCoverage, newTable(coverageCols, 0), coverageRows{s: s.Coverage}, coverageTitle(s)})
	}
	for _, tb := range tables {
		title := paneNames[tb.id]
		if tb.title != "" {
			title = tb.title
		}
		title = strings.ToUpper(title)
		if tb.id == paneThreads {
			title += virtualTitle(s)
		}
		n := tb.rows.Len()
		fmt.Fprintf(&b, "\n%s (%d", title, n)
		if n > top {
			fmt.Fprintf(&b, ", first %d", top)
		}
		if nt := notTracked(s, tb.id); nt != "" {
			b.WriteString("; " + nt)
		}
		b.WriteString(")\n")
		if why := unfilled(status, tb.id, width, &st); why != nil && n == 0 {
			for _, l := range why {
				b.WriteString(l)
				b.WriteByte('\n')
			}
			continue
		}
		for _, l := range tb.t.render(tb.rows, width, min(n, top)+1, &st, false) {
			b.WriteString(strings.TrimRight(l, " "))
			b.WriteByte('\n')
		}
	}
	if s.HasObjects {
		rows := newObjectRows(&s.Objects, ascii)
		n := rows.Len()
		fmt.Fprintf(&b, "\n%s%s (%d", strings.ToUpper(objectsTitle(s)), strings.ToUpper(objectsTitleTail(s)), n)
		if n > top {
			fmt.Fprintf(&b, ", first %d", top)
		}
		b.WriteString(")\n")
		for _, l := range newTable(objectColumns(&s.Objects), objectSortDefault(&s.Objects)).render(rows, width, min(n, top)+1, &st, false) {
			b.WriteString(strings.TrimRight(l, " "))
			b.WriteByte('\n')
		}
	}
	if s.HasObjects && len(s.Objects.Census) > 0 {
		// The census by site, which the table by class sums.
		rows := newCensusRows(&s.Objects)
		n := rows.Len()
		fmt.Fprintf(&b, "\n%s (%d", strings.ToUpper(censusTitle(s)), n)
		if n > top {
			fmt.Fprintf(&b, ", first %d", top)
		}
		b.WriteString(")\n")
		for _, l := range newTable(censusColumns(&s.Objects), 2).render(rows, width, min(n, top)+1, &st, false) {
			b.WriteString(strings.TrimRight(l, " "))
			b.WriteByte('\n')
		}
	}
	if lines := virtualLines(s, &st); len(lines) > 0 {
		b.WriteString("\nVIRTUAL THREADS\n")
		for _, l := range lines {
			b.WriteString(strings.TrimRight(clip(l, width), " "))
			b.WriteByte('\n')
		}
	}
	b.WriteString("\nGC\n")
	for _, l := range renderGC(s, width, gcLines(&s.GC), &st, ascii) {
		if l = strings.TrimRight(l, " "); l != "" {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	writeTelemetryText(&b, s, width, &st, ascii)
	if ascii {
		return toASCII(b.String())
	}
	return b.String()
}

// batchTable is one table of a text snapshot: a pane's rows, and its
// title when it is not the pane's name.
type batchTable struct {
	id    paneID
	t     *table
	rows  rows
	title string
}

// batchDocument is one JSON snapshot.
type batchDocument struct {
	Time        time.Time         `json:"time"`
	Source      string            `json:"source"`
	State       string            `json:"state"`
	Cause       string            `json:"cause,omitempty"`
	Waiting     string            `json:"waiting,omitempty"`
	Agent       any               `json:"agent,omitempty"`
	Format      string            `json:"format,omitempty"`
	Negotiation string            `json:"negotiation,omitempty"`
	Mismatch    string            `json:"mismatch,omitempty"`
	Dropped     string            `json:"dropped,omitempty"`
	Events      int64             `json:"events"`
	EventsPS    float64           `json:"eventsPerSec"`
	BytesPS     float64           `json:"bytesPerSec"`
	Errors      int64             `json:"decodeErrors"`
	Recording   string            `json:"recording,omitempty"`
	Lost        int64             `json:"framesLost,omitempty"`
	Facts       []client.Fact     `json:"facts,omitempty"`
	Unfilled    []client.Unfilled `json:"unfilled,omitempty"`
	Notes       []string          `json:"notes,omitempty"`
	Still       bool              `json:"still,omitempty"`
	// The picture follows, spliced in by RenderJSON: encoding/json would
	// copy the snapshot's own JSON (tens of MB with 200,000 methods) again.
	Snapshot *state.Snapshot `json:"-"`
}

// RenderJSON renders a snapshot as one JSON document on one line, every
// character that could act on a terminal escaped. top > 0 keeps only the
// first top methods by self time.
func RenderJSON(s *state.Snapshot, status client.Status, top int) ([]byte, error) {
	if top > 0 && len(s.Methods) > top {
		c := *s
		t := newTable(methodCols, 3)
		d := newMethodRows(s)
		c.Methods = make([]state.Method, 0, top)
		for _, i := range t.top(d, top) {
			c.Methods = append(c.Methods, s.Methods[i])
		}
		s = &c
	}
	doc := batchDocument{Time: time.Now().UTC(), Source: status.Source, State: status.State.String(), Cause: status.Cause,
		Waiting: status.Waiting, Negotiation: status.Negotiation.String(), Mismatch: status.Mismatch, Dropped: status.Dropped, Events: status.Events, EventsPS: status.EventsPerSec,
		BytesPS: status.BytesPerSec, Errors: status.DecodeErrors, Recording: status.Recording, Lost: status.Lost, Facts: status.Facts,
		Unfilled: status.Unfilled, Notes: status.Notes, Still: status.Still, Snapshot: s}
	if status.Format != 0 {
		doc.Format = status.Format.String()
	}
	if status.Agent.ID != "" {
		doc.Agent = status.Agent
	}
	head, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	picture := []byte("null")
	if s != nil {
		if picture, err = s.MarshalJSON(); err != nil {
			return nil, err
		}
	}
	b := make([]byte, 0, len(head)+len(`,"picture":`)+len(picture))
	b = append(b, head[:len(head)-1]...) // without its closing brace
	b = append(append(append(b, `,"picture":`...), picture...), '}')
	// encoding/json leaves C1 controls and bidirectional overrides as they
	// are: a terminal showing the document would act on them.
	return textsafe.EscapeJSON(b), nil
}
