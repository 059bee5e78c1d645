package tui

import (
	"slices"
	"strconv"
	"strings"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// The fleet overview's table: one row per JVM, over a fleet snapshot and
// the sources' statuses.

// fleetRow is one JVM: its name in the overview, its source's status and
// the summary of its picture.
type fleetRow struct {
	name   string
	status client.Status
	sum    state.Summary
}

// Connection states as the overview names them, in the order a sort by
// state puts them (the worst last).
const (
	fleetLive = iota
	fleetConnecting
	fleetChoosing
	fleetReconnecting
	fleetExited
	fleetGone
)

var fleetStateNames = [...]string{"live", "connecting", "choose agent", "reconnecting", "exited", "gone"}

// rowState is a JVM's state in the overview: exited, when its agent said
// the JVM shut down and no new one streams (a connection refused then is
// no question of whether the agent runs), else its connection's.
func rowState(st client.State, sum *state.Summary) int {
	s := fleetState(st)
	if (s == fleetReconnecting || s == fleetGone) && !sum.Process.Exited.IsZero() {
		return fleetExited
	}
	return s
}

// rowCause is why a JVM does not stream: its exit, as its agent said it,
// then what the connection met since, unless that is only the refusal
// an exited JVM's port gives (a JVM started again that refuses the
// token, say, is said); or its connection's cause.
func rowCause(st *client.Status, sum *state.Summary) string {
	if rowState(st.State, sum) != fleetExited {
		return st.Cause
	}
	why := "the JVM exited at " + sum.Process.Exited.Local().Format("15:04:05") + " (its agent said so)"
	if st.State == client.StateReconnecting {
		why += "; reconnecting in case it starts again"
	}
	if st.Cause != "" && !st.Refused {
		why += "; " + st.Cause
	}
	return why
}

// withoutAddress takes out of a cause the address the row's HOST says:
// in a narrow cell, "connection refused by 127.0.0.1…" had lost the port
// that told which JVM, and kept the address every row has.
func withoutAddress(cause, addr string) string {
	if addr == "" {
		return cause
	}
	cause = strings.Replace(cause, " by "+addr, "", 1)
	cause = strings.Replace(cause, " from "+addr, "", 1)
	return strings.TrimPrefix(cause, addr+" ")
}

// fleetState reduces a source's state to the overview's few.
func fleetState(st client.State) int {
	switch st {
	case client.StateStreaming:
		return fleetLive
	case client.StateChoosingAgent:
		return fleetChoosing
	case client.StateReconnecting:
		return fleetReconnecting
	case client.StateDisconnected, client.StateEnded:
		return fleetGone
	}
	return fleetConnecting // idle, connecting, negotiating
}

var fleetCols = []column{
	{title: "HOST", width: 15, grow: 17, asc: true, shorten: middle, name: "host (as listed)"},
	{title: "STATE", width: 12, name: "state"},
	{title: "EV/S", width: 5, right: true, name: "events/s"},
	{title: "CPU", width: 5, right: true, name: "CPU"},
	{title: "THR", width: 4, right: true, drop: 4, name: "threads"},
	{title: "BLKD", width: 4, right: true, name: "blocked now"},
	{title: "DL", width: 2, right: true, name: "deadlocks"},
	{title: "GC%", width: 5, right: true, drop: 5, name: "GC time"},
	{title: "TOP METHOD", min: 14, text: true, asc: true, shorten: shortMethod, name: "top method"},
	{title: "TOP LOCK", width: 18, grow: 22, text: true, asc: true, drop: 8, shorten: shortLock, name: "top lock"},
	{title: "LAST ERROR", width: 20, grow: 60, text: true, asc: true, drop: 9, name: "error"},
}

// fleetColError is LAST ERROR's column.
const fleetColError = 10

// fleetColsNoError are the columns when no JVM has an error to show: the
// column's cells would all be empty, and its width goes to the others
// (TOP LOCK was cut to "…amManager@7f3a0048" beside 20 empty cells).
var fleetColsNoError = func() []column {
	cols := slices.Clone(fleetCols)
	cols[fleetColError].off = true
	return cols
}()

// fleetColumns are the columns for rows: LAST ERROR only when a row has
// one, or the table is sorted by it.
func fleetColumns(rows fleetRows, sortCol int) []column {
	if sortCol == fleetColError {
		return fleetCols
	}
	for i := range rows {
		if rows.Cell(i, fleetColError) != "" {
			return fleetCols
		}
	}
	return fleetColsNoError
}

// fleetRows is the table's data over one snapshot.
type fleetRows []fleetRow

func (r fleetRows) Len() int       { return len(r) }
func (r fleetRows) ID(i int) int64 { return int64(i) }

// Name is what the filter matches: the host, the state, the JVM's name,
// the top method and lock, and "deadlock" for a JVM with one
// ("/deadlock", "/reconnect", "!live").
func (r fleetRows) Name(i int) string {
	f := &r[i]
	parts := []string{f.name, fleetStateNames[rowState(f.status.State, &f.sum)], f.status.Agent.Name, f.sum.Process.Name,
		f.sum.TopMethod, f.sum.TopLock}
	if len(f.sum.Deadlocks) > 0 {
		parts = append(parts, "deadlock")
	}
	return strings.Join(parts, "\x00")
}

// noData is the cell of a figure a JVM has not sent yet.
const noData = "–"

func (r fleetRows) Cell(i, col int) string {
	f := &r[i]
	s := &f.sum
	switch col {
	case 0:
		return inert(f.name)
	case 1:
		return fleetStateNames[rowState(f.status.State, &f.sum)]
	case 2:
		if fleetState(f.status.State) != fleetLive {
			return noData
		}
		return rate(f.status.EventsPerSec)
	case fleetColError:
		if fleetState(f.status.State) == fleetLive {
			return ""
		}
		return inert(withoutAddress(rowCause(&f.status, &f.sum), f.status.Source))
	}
	if !s.HasData() {
		return noData
	}
	// Of a JVM not connected, what it does now is not known: its CPU, its
	// threads blocked and its GC share go; what it was seen doing stays.
	if fleetState(f.status.State) != fleetLive && (col == 3 || col == 5 || col == 7) {
		return noData
	}
	switch col {
	case 3:
		if !s.CPUKnown {
			return noData
		}
		return pct(s.CPUPercent)
	case 4:
		return count(int64(s.Threads))
	case 5:
		return strconv.Itoa(s.Blocked)
	case 6:
		if len(s.Deadlocks) == 0 {
			return ""
		}
		return strconv.Itoa(len(s.Deadlocks))
	case 7:
		return pct(s.GCPercent)
	case 8:
		return inert(s.TopMethod)
	case 9:
		return inert(s.TopLock)
	}
	return ""
}

func (r fleetRows) Num(i, col int) int64 {
	f := &r[i]
	s := &f.sum
	switch col {
	case 0:
		return int64(i) // the order given
	case 1:
		return int64(rowState(f.status.State, &f.sum))
	case 2:
		return int64(f.status.EventsPerSec)
	case 3:
		return int64(s.CPUPercent * 1000)
	case 4:
		return int64(s.Threads)
	case 5:
		return int64(s.Blocked)
	case 6:
		return int64(len(s.Deadlocks))
	case 7:
		return int64(s.GCPercent * 1000)
	}
	return 0
}

func (r fleetRows) Text(i, col int) string {
	switch col {
	case 8:
		return r[i].sum.TopMethod
	case 9:
		return r[i].sum.TopLock
	case 10:
		return rowCause(&r[i].status, &r[i].sum)
	}
	return r[i].name
}

func (r fleetRows) Kind(i int) rowKind {
	switch {
	case len(r[i].sum.Deadlocks) > 0:
		return rowAlert
	case rowState(r[i].status.State, &r[i].sum) >= fleetExited:
		return rowDim
	}
	return rowNormal
}

func (r fleetRows) CellStyle(i, col int) cellHint {
	switch col {
	case 1:
		switch rowState(r[i].status.State, &r[i].sum) {
		case fleetLive:
			return hintRunning
		case fleetConnecting, fleetChoosing:
			return hintWaiting
		case fleetReconnecting:
			return hintBlocked
		}
	case 5:
		if r[i].sum.Blocked > 0 && fleetState(r[i].status.State) == fleetLive {
			return hintBlocked
		}
	case 6:
		if len(r[i].sum.Deadlocks) > 0 {
			return hintBlocked
		}
	}
	return hintNone
}
