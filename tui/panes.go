package tui

import (
	"fmt"
	"strconv"
	"time"

	"github.com/proftop/proftop/state"
)

// paneID names the panes.
type paneID int

const (
	paneThreads paneID = iota
	paneMethods
	paneMonitors
	paneGC
	paneObjects
	paneCoverage
	paneTelemetry
	paneProbes
	numPanes
)

var paneNames = [numPanes]string{"Threads", "Hot methods", "Monitors", "GC", "Objects", "Coverage", "Telemetry", "Probes"}

// paneShortNames are the tab bar's when the names do not fit.
var paneShortNames = [numPanes]string{"Threads", "Methods", "Monitors", "GC", "Objects", "Coverage", "Telemetry", "Probes"}

// --- threads ---

var threadCols = []column{
	{title: "ID", width: 6, grow: 10, right: true, asc: true, shorten: tail}, // rbkit ids are long: their end tells apart
	{title: "NAME", width: 22, grow: 18, text: true, asc: true, shorten: middle},
	{title: "GROUP", width: 10, grow: 6, text: true, asc: true, drop: 4, shorten: middle},
	{title: "STATE", width: 10, asc: true},
	{title: "CPU", width: 7, right: true, name: "CPU time"},
	{title: "%CPU", width: 5, right: true, drop: 3},
	{title: "BLOCKED", width: 8, right: true, name: "time blocked"},
	{title: "WAITING", width: 8, right: true, drop: 2, name: "time waiting"},
	{title: "CONT", width: 6, right: true, drop: 5, name: "contentions"},
	{title: "METHOD", min: 12, want: 25, text: true, asc: true, drop: 1, shorten: shortMethod},
	{title: "STARTED", width: 8, right: true, asc: true, drop: 6, name: "start"},
}

// Columns of the threads table the default sort may be.
const (
	threadColID         = 0
	threadColCPU        = 4
	threadColCPUPercent = 5
)

// threadSort is the threads' default sort: by CPU time where the source
// measures it; else by share of the samples (a source that samples stacks
// without times, rbkit); else by id, the order the threads came in (a
// Jinsight trace measures no CPU: a sort over zeros would say nothing).
func threadSort(s *state.Snapshot) int {
	switch {
	case s.ThreadCPU || len(s.Threads) == 0:
		return threadColCPU
	case s.Sampled:
		return threadColCPUPercent
	}
	return threadColID
}

// threadRows are the platform threads, then the rows of virtual threads
// (virtual.go).
type threadRows struct {
	s          []state.Thread
	groups     []state.VirtualGroup
	deadlocked map[int64]bool
}

func newThreadRows(s *state.Snapshot) threadRows {
	return threadRows{s: s.Threads, groups: s.VirtualGroups, deadlocked: deadlockedThreads(s)}
}

func (r threadRows) Len() int { return len(r.s) + len(r.groups) }

// group is row i's virtual threads, nil for a platform thread's row.
func (r threadRows) group(i int) *state.VirtualGroup {
	if i < len(r.s) {
		return nil
	}
	return &r.groups[i-len(r.s)]
}

func (r threadRows) ID(i int) int64 {
	if g := r.group(i); g != nil {
		return g.ID
	}
	return threadKey(&r.s[i])
}

// Name is what the filter matches: the name, the state, the class of the
// lock it waits for and the method it is in ("/blocked", "/ReentrantLock",
// "/virtual").
func (r threadRows) Name(i int) string {
	if g := r.group(i); g != nil {
		return groupName(g)
	}
	t := &r.s[i]
	name := t.Name + "\x00" + t.State.String() + "\x00" + t.LockClass + "\x00" + t.Method
	if t.VirtualCarrier {
		name += "\x00carrier"
	}
	return name
}

// stateLabel is a state in the table's ten cells.
func stateLabel(s state.ThreadState) string {
	if s == state.ThreadTimedWaiting {
		return "timed-wait"
	}
	return s.String()
}

func (r threadRows) Cell(i, col int) string {
	if g := r.group(i); g != nil {
		return groupCell(g, col)
	}
	t := &r.s[i]
	switch col {
	case 0:
		return strconv.FormatInt(t.ID, 10)
	case 1:
		return inert(t.Name)
	case 2:
		return inert(t.Group)
	case 3:
		return stateLabel(t.State)
	case 4:
		if !t.CPUKnown {
			return "–" // not measured (sampled without times: %CPU is its share of the samples)
		}
		return dur(t.CPU)
	case 5:
		if !t.CPUPercent.Known() || t.State == state.ThreadEnded {
			return "–" // two readings are needed; an ended thread has no rate now
		}
		return pct(float64(t.CPUPercent))
	case 6:
		return dur(t.Blocked)
	case 7:
		return dur(t.Waiting)
	case 8:
		return count(t.Contentions)
	case 9:
		if t.VirtualMounted != 0 {
			return inert(carrierText(t))
		}
		return inert(t.Method)
	case 10:
		if t.Started == 0 {
			return "–"
		}
		return time.Unix(0, t.Started).UTC().Format("15:04:05")
	}
	return ""
}

func (r threadRows) Num(i, col int) int64 {
	if g := r.group(i); g != nil {
		return groupNum(g, col)
	}
	t := &r.s[i]
	switch col {
	case 0:
		return t.ID
	case 3:
		return int64(t.State)
	case 4:
		if !t.CPUKnown {
			return -1
		}
		return int64(t.CPU)
	case 5:
		if !t.CPUPercent.Known() || t.State == state.ThreadEnded {
			return -1 // with the threads whose rate is not known, as it reads
		}
		return int64(t.CPUPercent * 1000)
	case 6:
		return int64(t.Blocked)
	case 7:
		return int64(t.Waiting)
	case 8:
		return t.Contentions
	}
	return 0
}

// NumKeys hands over every row's sort key at once (see bulkKeys).
func (r threadRows) NumKeys(col int, ids, keys []int64) ([]int64, []int64) {
	for i := range r.Len() {
		ids = append(ids, r.ID(i))
		keys = append(keys, r.Num(i, col))
	}
	return ids, keys
}

func (r threadRows) Text(i, col int) string {
	if g := r.group(i); g != nil {
		return groupText(g, col)
	}
	t := &r.s[i]
	switch col {
	case 1:
		return t.Name
	case 2:
		return t.Group
	case 9:
		return t.Method
	}
	return ""
}

func (r threadRows) Kind(i int) rowKind {
	if g := r.group(i); g != nil {
		for _, t := range g.Threads {
			if r.deadlocked[t.ID] {
				return rowAlert
			}
		}
		return rowNormal
	}
	switch {
	case r.deadlocked[r.s[i].ID] && r.s[i].State != state.ThreadEnded:
		return rowAlert
	case r.s[i].State == state.ThreadEnded:
		return rowDim
	}
	return rowNormal
}

func (r threadRows) CellStyle(i, col int) cellHint {
	if col != 3 {
		return hintNone
	}
	if g := r.group(i); g != nil {
		return groupHint(g)
	}
	return stateHint(r.s[i].State)
}

// stateHint colours a thread state.
func stateHint(s state.ThreadState) cellHint {
	switch s {
	case state.ThreadRunning:
		return hintRunning
	case state.ThreadNative:
		return hintNative
	case state.ThreadBlocked:
		return hintBlocked
	case state.ThreadParked:
		return hintParked
	case state.ThreadWaiting, state.ThreadTimedWaiting:
		return hintWaiting
	case state.ThreadSleeping:
		return hintSleeping
	}
	return hintNone
}

// threadKey identifies a thread across snapshots: ids are only unique
// within one stream.
func threadKey(t *state.Thread) int64 { return t.ID<<12 ^ int64(t.Stream&0xfff) }

// threadOf finds a thread by its key.
func threadOf(s []state.Thread, key int64) *state.Thread {
	for i := range s {
		if threadKey(&s[i]) == key {
			return &s[i]
		}
	}
	return nil
}

// --- hot methods ---

var methodCols = []column{
	{title: "METHOD", min: 20, want: 32, text: true, asc: true, shorten: shortMethod},
	// The line stays after MIN and MAX have gone: it tells overloads
	// apart when their parameters do not fit.
	{title: "LINE", width: 5, right: true, asc: true, drop: 4},
	{title: "CALLS", width: 7, right: true},
	{title: "SELF", width: 7, right: true, name: "self time"},
	{title: "SELF%", width: 6, right: true, name: "self %"},
	{title: "TOTAL", width: 7, right: true, drop: 2, name: "total time"},
	{title: "MIN", width: 7, right: true, drop: 6},
	{title: "MAX", width: 7, right: true, drop: 5},
	{title: "CPU", width: 7, right: true, drop: 3},
}

type methodRows struct {
	s     []state.Method
	names []string
	total time.Duration // all self time, for percentages
	hits  bool          // the sampler's view: CALLS counts its hits
	// bySamples: the samples stand for no known time (rbkit's), so SELF
	// and TOTAL count samples and SELF% is a share of them.
	bySamples    bool
	totalSamples int64
	cpu          bool // calls' CPU time is measured: else CPU reads –
	// paged: the snapshot holds the rows on screen only, ordered by the
	// aggregator (table_page.go).
	paged *state.MethodPageAnswer
}

func newMethodRows(s *state.Snapshot) methodRows {
	r := methodRows{s: s.Methods, names: s.Names, total: s.TotalSelf, cpu: s.MethodCPU, paged: s.Page}
	if s.Sampled && s.TotalSelf <= 0 {
		if s.Page != nil {
			r.totalSamples = s.Page.Samples // of every row, not only those on screen
		} else {
			for i := range s.Methods {
				r.totalSamples += s.Methods[i].Samples
			}
		}
		// Untimed samples keep their columns while the window is empty:
		// they switched to calls' (MIN, MAX, LINE gone) and back.
		r.bySamples = s.BySamples(r.totalSamples)
	}
	return r
}

// Blank says the LINE column would be empty: a source that sends no
// lines (a sampler's, rbkit's) gives the room to the names.
func (r methodRows) Blank(col int) bool {
	if col != 1 {
		return false
	}
	if r.paged != nil {
		return !r.paged.Lines
	}
	for i := range r.s {
		if r.s[i].Line > 0 {
			return false
		}
	}
	return true
}

func (r methodRows) Len() int          { return len(r.s) }
func (r methodRows) ID(i int) int64    { return int64(r.s[i].Slot) }
func (r methodRows) Name(i int) string { return r.names[r.s[i].Slot] }
func (r methodRows) Kind(int) rowKind  { return rowNormal }

func (r methodRows) CellStyle(int, int) cellHint { return hintNone }

func (r methodRows) Cell(i, col int) string {
	m := &r.s[i]
	switch col {
	case 0:
		return inert(r.Name(i))
	case 1:
		if m.Line <= 0 {
			return ""
		}
		return strconv.FormatInt(int64(m.Line), 10)
	case 2:
		if r.hits {
			return count(m.Samples)
		}
		if m.Calls == 0 && m.Samples+m.TotalSamples > 0 {
			return "–" // sampled: calls are not counted
		}
		return count(m.Calls)
	case 3:
		if r.bySamples {
			return count(m.Samples)
		}
		return dur(m.Self)
	case 4:
		if r.bySamples {
			if r.totalSamples == 0 {
				return "0" // no sample in the window
			}
			return pct(100 * float64(m.Samples) / float64(r.totalSamples))
		}
		if r.total <= 0 {
			return "0"
		}
		return pct(100 * float64(m.Self) / float64(r.total))
	case 5:
		if r.bySamples {
			return count(m.TotalSamples)
		}
		return dur(m.Total)
	case 6, 7:
		if !m.Timed {
			return "–" // sampled, or a call tree's nodes: no single call is timed
		}
		return dur([]time.Duration{m.Min, m.Max}[col-6])
	case 8:
		if !r.cpu || m.Calls == 0 {
			return "–" // the source measures no CPU time of calls (sampled: the time is CPU)
		}
		return dur(m.CPU)
	}
	return ""
}

func (r methodRows) Num(i, col int) int64 {
	m := &r.s[i]
	switch col {
	case 1:
		return int64(m.Line)
	case 2:
		if r.hits {
			return m.Samples
		}
		return m.Calls
	case 3, 4:
		if r.bySamples {
			return m.Samples
		}
		return int64(m.Self)
	case 5:
		if r.bySamples {
			return m.TotalSamples
		}
		return int64(m.Total)
	case 6:
		return int64(m.Min)
	case 7:
		return int64(m.Max)
	case 8:
		return int64(m.CPU)
	}
	return 0
}

func (r methodRows) Text(i, col int) string { return r.Name(i) }

// NumKeys hands over every row's sort key at once (see bulkKeys).
func (r methodRows) NumKeys(col int, ids, keys []int64) ([]int64, []int64) {
	for i := range r.s {
		m := &r.s[i]
		ids = append(ids, int64(m.Slot))
		var k int64
		switch col {
		case 1:
			k = int64(m.Line)
		case 2:
			k = m.Calls
			if r.hits {
				k = m.Samples
			}
		case 3, 4:
			k = int64(m.Self)
			if r.bySamples {
				k = m.Samples
			}
		case 5:
			k = int64(m.Total)
			if r.bySamples {
				k = m.TotalSamples
			}
		case 6:
			k = int64(m.Min)
		case 7:
			k = int64(m.Max)
		case 8:
			k = int64(m.CPU)
		}
		keys = append(keys, k)
	}
	return ids, keys
}

// --- monitors ---

var monitorCols = []column{
	{title: "MONITOR", min: 18, want: 31, text: true, asc: true, shorten: shortLock, name: "lock"},
	{title: "OWNER", width: 16, grow: 16, text: true, asc: true, drop: 2, shorten: middle},
	{title: "BLKD", width: 4, right: true, name: "blocked now"},
	{title: "WAIT", width: 4, right: true, drop: 4, name: "waiting now"},
	{title: "ENTERS", width: 7, right: true, drop: 3, name: "contended enters"},
	{title: "WAITS", width: 6, right: true, drop: 6},
	{title: "BLOCKED", width: 8, right: true, name: "time blocked"},
	{title: "AVG", width: 7, right: true, drop: 5, name: "average blocked"},
	{title: "MAX", width: 7, right: true, name: "longest blocked"},
}

type monitorRows struct {
	s          []state.Monitor
	deadlocked map[int64]bool // monitors in a deadlock
}

func (r monitorRows) Len() int       { return len(r.s) }
func (r monitorRows) ID(i int) int64 { return r.s[i].Object }

// Name is what the filter matches: the lock's name, its owner and its site.
func (r monitorRows) Name(i int) string {
	m := &r.s[i]
	return monitorName(m) + "\x00" + m.OwnerName + "\x00" + m.Site
}

func (r monitorRows) Kind(i int) rowKind {
	m := &r.s[i]
	switch {
	case r.deadlocked[m.Object]:
		return rowAlert
	case m.Owner == 0 && len(m.Waiters) == 0 && m.VirtualWaiters == 0:
		return rowDim
	}
	return rowNormal
}

func (r monitorRows) CellStyle(i, col int) cellHint {
	if col == 2 && blockedCount(&r.s[i]) > 0 {
		return hintBlocked
	}
	return hintNone
}

// monitorName is a lock's name on screen (state.MonitorName).
func monitorName(m *state.Monitor) string { return state.MonitorName(m) }

// blockedCount counts the threads contending for a lock now, virtual
// ones counted only in groups included.
func blockedCount(m *state.Monitor) (n int) {
	for _, w := range m.Waiters {
		if !w.Waiting {
			n++
		}
	}
	return n + int(m.VirtualUnlistedBlocked)
}

// waitingCount counts the threads waiting on a lock now.
func waitingCount(m *state.Monitor) int {
	return len(m.Waiters) + int(m.VirtualUnlistedBlocked+m.VirtualUnlistedWaiting) - blockedCount(m)
}

func (r monitorRows) Cell(i, col int) string {
	m := &r.s[i]
	switch col {
	case 0:
		return inert(monitorName(m))
	case 1:
		if m.Owner == 0 {
			return "–"
		}
		return inert(m.OwnerName)
	case 2:
		return count4(int64(blockedCount(m)))
	case 3:
		return count4(int64(waitingCount(m)))
	case 4:
		return count(m.Enters)
	case 5:
		return count(m.Waits)
	case 6:
		return dur(m.BlockedSum)
	case 7:
		return dur(m.BlockedAvg)
	case 8:
		return dur(m.BlockedMax)
	}
	return ""
}

func (r monitorRows) Num(i, col int) int64 {
	m := &r.s[i]
	switch col {
	case 2:
		return int64(blockedCount(m))
	case 3:
		return int64(waitingCount(m))
	case 4:
		return m.Enters
	case 5:
		return m.Waits
	case 6:
		return int64(m.BlockedSum)
	case 7:
		return int64(m.BlockedAvg)
	case 8:
		return int64(m.BlockedMax)
	}
	return 0
}

func (r monitorRows) Text(i, col int) string {
	if col == 1 {
		return r.s[i].OwnerName
	}
	return monitorName(&r.s[i])
}

// --- GC ---

// gcLines is how many lines renderGC has to say: four of counts and
// pauses, two of the heap, one of the pauses over time, one a pool and
// one a collector.
func gcLines(g *state.GC) int {
	n := 7 + len(g.Pools) + len(g.Collectors)
	if poolsBeforeTheHeap(g) {
		n++
	}
	return n
}

// poolsBeforeTheHeap says the memory pools were polled before the heap
// meter's reading: the heap meter is of the latest collection or poll,
// the pools of the latest poll, and after a collection, until the next
// poll, the two differ.
func poolsBeforeTheHeap(g *state.GC) bool {
	if len(g.Heap) == 0 {
		return false
	}
	// The latest poll's time: a pool no longer reported (another
	// collector's, after a reconnection) keeps an older one.
	var polled time.Time
	for _, p := range g.Pools {
		if p.At.After(polled) {
			polled = p.At
		}
	}
	return !polled.IsZero() && polled.Before(g.Heap[len(g.Heap)-1].At)
}

// renderGC draws the GC pane's lines: counts (since the process started
// when the source says so), pauses, the heap now and over time, and the memory
// pools as the latest poll saw them.
func renderGC(s *state.Snapshot, width, height int, st *Styles, ascii bool) []string {
	g := &s.GC
	label, value := st.Label.Render, st.Value.Render
	// Each line is fields in the order they give way: a field that does
	// not fit goes whole, never cut inside a figure.
	first := []string{fmt.Sprintf("%s %s", label("collections"), value(count(g.Count)))}
	switch {
	case g.Count == 0 && !g.SinceStart && len(g.Collectors) == 0:
		// Nothing reported yet, neither a collection nor the process's
		// totals (rbkit's come with its GC stats, a while after attaching):
		// not "0", which reads as none since the process started.
		first = []string{label("collections") + " " + value("–"), label(" none reported yet")}
	case g.SinceStart && g.TotalTime > 0:
		since := label(" since the process started,") + " " + value(dur(g.TotalTime))
		if widthOf(first[0])+widthOf(since) > width {
			since = label(" since start,") + " " + value(dur(g.TotalTime)) // a count of four figures in a narrow pane
		}
		first = append(first, since)
	case g.SinceStart: // the source counts them, not their time (rbkit's gc_stats)
		first = append(first, label(" since the process started"))
	case len(g.Collectors) > 0 && (g.TotalTime > 0 || g.Count == 0):
		first = append(first, label(" since the reset,")+" "+value(dur(g.TotalTime)))
	case len(g.Collectors) > 0: // counted, not timed
		first = append(first, label(" since the reset"))
	}
	if g.InGC {
		first = append(first, "  "+st.Warn.Render("collecting"))
	}
	// No pause seen (attached after them, or a source that reports none):
	// unknown, not 0.
	// A pause timed at 0 is one shorter than the source's clock tells
	// apart: rbkit stamps collections to the millisecond.
	pause := func(d time.Duration) string {
		switch {
		case len(g.Pauses) == 0 && d == 0:
			return "–"
		case d == 0:
			return "<1ms"
		}
		return dur(d)
	}
	last := []string{fmt.Sprintf("%s %s", label("last pause"), value(pause(g.LastPause)))}
	if g.LastCause != "" {
		last = append(last, label(" "+inert(g.LastCause)))
	}
	gcTime := value(pct(g.Percent))
	if g.Percent <= 0 {
		gcTime = value("0%")
	}
	over := s.Window
	if g.PercentOver > 0 {
		over = g.PercentOver // the time watched, when shorter than the window
	}
	times := []string{label("GC time ") + gcTime + label(" of the last "+dur(over))}
	if g.FreedKnown {
		times = append(times, "  "+label("objects freed ")+value(count(g.Freed)))
	}
	if g.Reclaimed > 0 {
		times = append(times, "  "+label("reclaimed ")+value(size(g.Reclaimed)))
	}
	lines := []string{
		fitFields(width, first...),
		fitFields(width, last...),
		fitFields(width, label("p50")+" "+value(pause(g.P50)), "  "+label("p99")+" "+value(pause(g.P99)),
			"  "+label("max")+" "+value(pause(g.Max)), "  "+label("of the latest "+strconv.Itoa(len(g.Pauses)))),
		fitFields(width, times...),
	}
	spark := max(width-12, 8)
	if n := len(g.Heap); n > 0 {
		last := g.Heap[n-1]
		frac := 0.0
		if last.Total > 0 {
			frac = float64(last.Used) / float64(last.Total)
		}
		meter := max(min(width-30, 40), 5)
		lines = append(lines, fmt.Sprintf("%s %s %s / %s", label("heap"), st.Spark.Render(bar(frac, meter, ascii)), value(size(last.Used)), value(size(last.Total))))
		used := make([]float64, n)
		for i, h := range g.Heap {
			used[i] = float64(h.Used)
		}
		lines = append(lines, fmt.Sprintf("%s %s", label("heap used "), st.Spark.Render(sparkline(used, spark, float64(last.Total), ascii))))
	} else {
		lines = append(lines, label("heap: no collection reported yet"))
	}
	if len(g.Pauses) > 0 {
		ps := make([]float64, len(g.Pauses))
		for i, p := range g.Pauses {
			ps[i] = float64(p)
		}
		lines = append(lines, fmt.Sprintf("%s %s", label("pauses    "), st.SparkAlt.Render(sparkline(ps, spark, 0, ascii))))
	}
	if poolsBeforeTheHeap(g) {
		lines = append(lines, label("memory pools, as polled before the last collection:"))
	}
	// The pools' and the collectors' names in one column, as wide as the
	// widest (CodeHeap 'non-profiled nmethods'), within what leaves the
	// figures room.
	nameW := 22
	for _, p := range g.Pools {
		nameW = max(nameW, widthOf(inert(p.Name)))
	}
	nameW = min(nameW, max(22, width-30))
	for _, p := range g.Pools {
		fields := []string{"  " + padRight(fit(inert(p.Name), nameW, false), nameW) + fmt.Sprintf(" %9s", size(p.Used))}
		if p.Committed > 0 {
			fields = append(fields, label(" of ")+size(p.Committed))
		}
		if p.Max > 0 {
			fields = append(fields, label(", max ")+size(p.Max))
		}
		lines = append(lines, fitFields(width, fields...))
	}
	for _, c := range g.Collectors {
		collections := "collections"
		if c.Count == 1 {
			collections = "collection"
		}
		name := inert(c.Name)
		if c.SinceTotals && c.Name != state.UnnamedCollector {
			name += " (since the latest totals)"
		}
		fields := []string{"  " + padRight(name, nameW) + fmt.Sprintf(" %s %s", value(count(c.Count)), label(collections))}
		// Collections that took no time at all were not timed (rbkit's
		// gc_stats counts them only): their time is unknown, not 0.
		if c.TotalTime > 0 || c.Count == 0 {
			fields = append(fields, label(", "+dur(c.TotalTime)))
		}
		lines = append(lines, fitFields(width, fields...))
	}
	if len(lines) > height {
		lines = lines[:height]
	}
	for i := range lines {
		lines[i] = clip(lines[i], width)
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return lines
}

// fitFields joins a line's fields while they fit in width: the first
// always (cut if it must), each after it whole or not at all, with those
// after a field that does not fit.
func fitFields(width int, fields ...string) string {
	line := fields[0]
	for _, f := range fields[1:] {
		if widthOf(line)+widthOf(f) > width {
			break
		}
		line += f
	}
	return line
}

// methodsTitle says which figures the methods pane shows, and whether they
// are measured (calls timed) or sampled (stack samples weighted by CPU time).
func methodsTitle(s *state.Snapshot) string {
	t := "Hot methods · cumulative"
	if s != nil && s.Recent {
		t = "Hot methods · last " + dur(s.Window)
	}
	switch {
	case s != nil && s.Sampled && s.TotalSelf <= 0 && (s.MethodCount() > 0 || s.SamplesUntimed):
		t += " · sampled: SELF and TOTAL in samples"
	case s != nil && s.Sampled:
		t += " · sampled CPU"
	}
	return t
}

// since renders how long ago t was, relative to now.
func since(now, t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return dur(now.Sub(t).Round(time.Millisecond))
}
