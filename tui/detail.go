package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/proftop/proftop/internal/javaname"
	"github.com/proftop/proftop/state"
)

// detailLines renders the drill-in of a row: a monitor with its owner and
// waiters and their stacks, a thread with its contention and stack, or a
// method with its figures and callers. still says the source is a still
// picture (a snapshot file): its figures have no window.
func detailLines(kind paneID, key int64, s *state.Snapshot, st *Styles, still bool) []string {
	switch kind {
	case paneMonitors:
		for i := range s.Monitors {
			if s.Monitors[i].Object == key {
				return monitorDetail(&s.Monitors[i], s, st)
			}
		}
		return []string{st.Muted.Render(fmt.Sprintf("monitor %x is no longer known", key))}
	case paneThreads:
		if key < 0 {
			if g := groupByID(s, key); g != nil {
				return groupDetail(g, s, st)
			}
			return []string{st.Muted.Render("these virtual threads are no longer listed")}
		}
		if t := threadOf(s.Threads, key); t != nil {
			return threadDetail(t, s, st)
		}
		return []string{st.Muted.Render("this thread is no longer known")}
	case paneMethods:
		for i := range s.Methods {
			if int64(s.Methods[i].Slot) == key {
				return methodDetail(&s.Methods[i], s, st, still)
			}
		}
		if m := pagedFocus(s, key); m != nil {
			return methodDetail(m, s, st, still)
		}
		return []string{st.Muted.Render("no calls of this method in the current view")}
	case paneObjects:
		if name, ok := objectByID(s, key); ok {
			return objectDetail(name, s, st)
		}
		return []string{st.Muted.Render("this class is no longer listed")}
	case paneCoverage:
		if c := coverageByID(s, key); c != nil {
			return coverageDetail(c, st)
		}
		return []string{st.Muted.Render("this class is no longer listed")}
	case paneProbes:
		r := newProbeRows(s.Probes)
		for i := range r.s {
			if r.ID(i) == key {
				return probeDetail(r, i, st)
			}
		}
		return []string{st.Muted.Render("this probe row is no longer listed")}
	}
	return nil
}

func stackLines(frames []state.Frame, st *Styles) []string {
	if len(frames) == 0 {
		return []string{"      " + st.Muted.Render("(no stack reported)")}
	}
	out := make([]string, 0, len(frames))
	for _, f := range frames {
		line := ""
		if f.Line > 0 {
			line = fmt.Sprintf(":%d", f.Line)
		}
		out = append(out, "      at "+inert(f.Method)+st.Muted.Render(line))
	}
	return out
}

func inDeadlock(s *state.Snapshot, obj int64) *state.Deadlock {
	for i := range s.Deadlocks {
		for _, m := range s.Deadlocks[i].Monitors {
			if m == obj {
				return &s.Deadlocks[i]
			}
		}
	}
	return nil
}

func monitorDetail(m *state.Monitor, s *state.Snapshot, st *Styles) []string {
	label, value := st.Label.Render, st.Value.Render
	out := []string{
		st.Title.Render("Monitor ") + value(inert(monitorName(m))),
		fmt.Sprintf("  %s %s  %s %s  %s %s  %s %s  %s %s", label("contended enters"), value(count(m.Enters)), label("waits"), value(count(m.Waits)),
			label("blocked total"), value(dur(m.BlockedSum)), label("avg"), value(dur(m.BlockedAvg)), label("max"), value(dur(m.BlockedMax))),
	}
	if d := inDeadlock(s, m.Object); d != nil {
		out = append(out, st.Deadlock.Render(" part of a deadlock between "+inert(strings.Join(d.Names, ", "))+" "))
	}
	if m.ByAddress {
		// One sentence, one line: the drill-in wraps it to the terminal's
		// width (split here, each half was wrapped again at 80 columns).
		out = append(out, label("  known by the address JFR gave its events only: no look at the threads tied them to a lock, "+
			"so it may be a lock of another row of its class, known there by its identity hash"))
	}
	out = append(out, "")
	if m.Owner != 0 {
		from := m.OwnerFrom
		if from == "" {
			from = "no stack known"
		}
		kind := "thread"
		if m.OwnerVirtual {
			kind = "virtual thread"
		}
		out = append(out, st.Title.Render("Owner ")+value(inert(m.OwnerName))+label(fmt.Sprintf(" (%s %d); its stack from %s:", kind, m.Owner, from)))
		out = append(out, stackLines(m.OwnerStack, st)...)
	} else {
		out = append(out, st.Title.Render("Owner ")+label("none known"))
	}
	title := st.Title.Render(fmt.Sprintf("Waiters (%d)", len(m.Waiters)))
	began := waitsBegan(m, s)
	if s.Polled && len(m.Waiters) > 0 {
		// A poll sees a state, not when it began nor how long it lasts:
		// the times are what the polls saw, lower bounds.
		title += label(", as the thread polls saw them")
	}
	out = append(out, "", title)
	if n := m.VirtualUnlistedBlocked + m.VirtualUnlistedWaiting; n > 0 {
		out = append(out, "  "+label(fmt.Sprintf("and %s virtual threads counted, not listed one by one (%s contending, %s waiting)",
			commas(n), commas(m.VirtualUnlistedBlocked), commas(m.VirtualUnlistedWaiting))))
	}
	for i := range m.Waiters {
		w := &m.Waiters[i]
		out = append(out, waiterLine(w, s, st, !s.Polled || began[w.Thread]))
		out = append(out, stackLines(w.Stack, st)...)
	}
	return out
}

// waitsBegan says, of a polled source, which of a monitor's waiters a
// poll saw begin their block or wait (their Since is its start, to within
// a poll), by their threads' rows (state.Thread.SinceBegan) of the same
// Since; a virtual thread has none, and is not known to.
func waitsBegan(m *state.Monitor, s *state.Snapshot) map[int64]bool {
	if !s.Polled || len(m.Waiters) == 0 {
		return nil
	}
	since := make(map[int64]int64, len(m.Waiters))
	for i := range m.Waiters {
		if w := &m.Waiters[i]; !w.Virtual {
			since[w.Thread] = w.Since.UnixNano()
		}
	}
	began := map[int64]bool{}
	for i := range s.Threads {
		t := &s.Threads[i]
		if ns, ok := since[t.ID]; ok && t.SinceBegan && t.Since == ns && t.State != state.ThreadEnded {
			began[t.ID] = true
		}
	}
	return began
}

// waiterLine is a waiter of a monitor's drill-in: who, held up how and
// for how long; began says its Since is when it began, not merely when
// watching began (or the reset).
func waiterLine(w *state.Waiter, s *state.Snapshot, st *Styles, began bool) string {
	label, value := st.Label.Render, st.Value.Render
	what := st.Blocked.Render("BLOCKED")
	if w.State == state.ThreadParked {
		what = st.Parked.Render("PARKED")
	}
	extra := ""
	if w.Waiting && w.State == state.ThreadParked {
		what = st.Waiting.Render("PARKED")
		extra = label(" waiting for a signal")
	} else if w.Waiting {
		what = st.Waiting.Render("WAITING")
		extra = label(" in Object.wait" + waitTimeout(w))
	}
	kind := "thread"
	if w.Virtual {
		kind = "virtual thread"
	}
	forHow, long := heldFor(s, w.Since, began && !w.Virtual)
	if long != "" {
		long = " " + value(long)
	}
	return fmt.Sprintf("  ● %s %s %s %s%s%s", value(inert(w.ThreadName)), label(fmt.Sprintf("(%s %d)", kind, w.Thread)),
		what, label(forHow), long, extra)
}

// heldFor says how long a thread has been in its present state, from
// from; began says from is when it began (a poll saw it begin, to within
// a poll), not merely when watching began. Of a source without polls, the
// start is an event's, exact, and the time runs to now. Of a polled one,
// the present is the latest poll's, and so is the time's end:
// polls that saw the thread so from then to the latest poll (one block,
// its count of blocks unchanged) say it was so at least that long, and
// one poll alone says no length at all (a lock held for milliseconds at a
// time is entered anew between polls); counted to now, such a block read
// "for 1.07s" beside the lock's longest contention of 138 ms.
func heldFor(s *state.Snapshot, from time.Time, began bool) (how, long string) {
	if !s.Polled || s.PolledAt.IsZero() || from.After(s.PolledAt) {
		if began || !s.Polled {
			return "for", since(s.Clock, from)
		}
		return "for at least", since(s.Clock, from)
	}
	if d := s.PolledAt.Sub(from); d >= time.Millisecond {
		return "for at least", dur(d.Round(time.Millisecond))
	}
	return "at the latest poll", ""
}

// waitTimeout says whether an Object.wait has a timeout, as far as the
// snapshot knows: its value comes with an event only (a poll says
// TIMED_WAITING, not for how long), and "no timeout" only when the state
// says so, WAITING (a poll's, or an event's timeout of 0).
func waitTimeout(w *state.Waiter) string {
	switch {
	case w.Timeout > 0:
		return ", timeout " + dur(w.Timeout)
	case w.State == state.ThreadTimedWaiting:
		return ", with a timeout"
	case w.State == state.ThreadWaiting:
		return ", no timeout"
	}
	return ""
}

func threadDetail(t *state.Thread, s *state.Snapshot, st *Styles) []string {
	label, value := st.Label.Render, st.Value.Render
	about := fmt.Sprintf("id %d", t.ID)
	if t.Group != "" {
		about += ", group " + inert(t.Group)
	}
	if s.Streams > 1 {
		about += fmt.Sprintf(", stream %d", t.Stream) // which connection or process it is of
	}
	out := []string{
		st.Title.Render("Thread ") + value(inert(t.Name)) + label(" ("+about+")"),
		fmt.Sprintf("  %s %s  %s %s  %s %s  %s %s  %s %s", label("state"), value(t.State.String()), label("CPU"), value(threadCPU(t)),
			label("blocked"), value(dur(t.Blocked)), label("waiting"), value(dur(t.Waiting)), label("contentions"), value(count(t.Contentions))),
	}
	if t.Started > 0 {
		out = append(out, "  "+label("started ")+value(time.Unix(0, t.Started).UTC().Format(time.DateTime)))
	}
	if t.VirtualCarrier {
		l := "  " + label("a carrier of virtual threads")
		if t.VirtualMounted != 0 {
			l += label(", running ") + value(inert(t.VirtualMountedName)) + label(fmt.Sprintf(" (virtual thread %d)", t.VirtualMounted))
		}
		out = append(out, l)
	}
	if t.Monitor != 0 {
		out = append(out, "  "+lockLine(t, s, st))
	}
	// What it holds, as jstack's "- locked" lines say: who waits on this
	// thread is half of who blocks whom.
	for i := range s.Monitors {
		if m := &s.Monitors[i]; m.Owner == t.ID && m.Grouped == 0 && t.State != state.ThreadEnded {
			l := "  " + label("holds ") + value(inert(monitorName(m)))
			if n := len(m.Waiters); n > 0 {
				l += label(fmt.Sprintf(", %d waiting for it", n))
			}
			out = append(out, l)
		}
	}
	if t.Since > 0 && t.State != state.ThreadEnded {
		// Polled, the state began at some moment before the first poll
		// that saw it: long before, when that was the first poll (or at
		// a reset); else Since is the event that began it.
		how, long := heldFor(s, time.Unix(0, t.Since), t.SinceBegan)
		line := "  " + label("in this state "+how)
		if long != "" {
			line += label(" ") + value(long)
		}
		if s.Polled && !t.SinceBegan {
			line += label(" (already so when watching began, or at the reset)")
		}
		out = append(out, line)
	}
	if t.Method != "" {
		out = append(out, "  "+label("in ")+value(inert(t.Method))+label(fmt.Sprintf(" at depth %d", t.Depth)))
	}
	out = append(out, "")
	from := t.StackFrom
	if from == "" {
		from = "none reported"
	}
	out = append(out, st.Title.Render("Stack ")+label("("+from+", innermost first)"))
	out = append(out, stackLines(t.Stack, st)...)
	return out
}

// threadCPU is a thread's CPU time, – where the source measures none.
func threadCPU(t *state.Thread) string {
	if !t.CPUKnown {
		return "–"
	}
	return dur(t.CPU)
}

// lockLine says what a thread waits for: the lock, its class and owner.
func lockLine(t *state.Thread, s *state.Snapshot, st *Styles) string {
	label, value := st.Label.Render, st.Value.Render
	verb := map[state.ThreadState]string{state.ThreadBlocked: "blocked on", state.ThreadParked: "parked on",
		state.ThreadWaiting: "waiting on", state.ThreadTimedWaiting: "waiting (with a timeout) on"}[t.State]
	if verb == "" {
		verb = "held up by"
	}
	if t.State == state.ThreadParked && t.Timed {
		verb = "parked (with a timeout) on"
	}
	name := fmt.Sprintf("%s@%x", t.LockClass, t.Monitor)
	for i := range s.Monitors {
		if s.Monitors[i].Object == t.Monitor {
			name = monitorName(&s.Monitors[i])
		}
	}
	owner := label(", which no thread owns")
	if t.LockOwner != 0 {
		owner = label(", owned by ") + value(inert(t.LockOwnerName)) + label(fmt.Sprintf(" (thread %d)", t.LockOwner))
	}
	return st.Blocked.Render(verb) + " " + value(inert(name)) + owner
}

func methodDetail(m *state.Method, s *state.Snapshot, st *Styles, still bool) []string {
	label, value := st.Label.Render, st.Value.Render
	name := inert(javaname.Method(s.MethodName(m)))
	sampled := m.Calls == 0 && m.Samples+m.TotalSamples > 0
	out := []string{st.Title.Render("Method ") + value(name)}
	if m.Line > 0 { // its first line (a sampled method has one when the source names it: rbkit)
		out[0] += label(fmt.Sprintf(" (line %d)", m.Line))
	}
	// What the source does not measure reads –, as in the pane.
	measured := func(known bool, d time.Duration) string {
		if !known {
			return "–"
		}
		return dur(d)
	}
	// Samples that stand for no known time (rbkit's) are counted: a
	// method's share of them is its share of the time sampled.
	bySamples := sampled && s.TotalSelf <= 0
	span := func(title string, f *state.Method, samples int64) {
		out = append(out, "", st.Title.Render(title))
		if bySamples {
			out = append(out,
				fmt.Sprintf("  %s %s %s  %s %s%s", label("on top of"), value(count(f.Samples)), label("samples"+shareOf(f.Samples, samples)),
					label("on the stack in"), value(count(f.TotalSamples)), label(shareOf(f.TotalSamples, samples))))
			return
		}
		if sampled {
			out = append(out,
				fmt.Sprintf("  %s %s  %s %s  %s %s", label("on top of"), value(count(f.Samples)), label("samples, self"), value(dur(f.Self)),
					label("on the stack in"), value(count(f.TotalSamples))+label(" samples, total ")+value(dur(f.Total))))
			return
		}
		avg := time.Duration(0)
		if f.Calls > 0 {
			avg = f.Self / time.Duration(f.Calls)
		}
		cpu := fmt.Sprintf("  %s %s", label("CPU"), value(measured(s.MethodCPU, f.CPU)))
		if s.MethodOwnCPU {
			cpu += fmt.Sprintf("  %s %s", label("own CPU"), value(dur(f.OwnCPU)))
		}
		out = append(out,
			fmt.Sprintf("  %s %s  %s %s  %s %s", label("calls"), value(count(f.Calls)), label("self"), value(dur(f.Self)),
				label("total"), value(measured(f.Total >= 0, f.Total)))+cpu,
			fmt.Sprintf("  %s %s  %s %s  %s %s", label("min"), value(measured(f.Timed, f.Min)), label("avg self"), value(dur(avg)),
				label("max"), value(measured(f.Timed, f.Max))))
	}
	sinceLabel := countedFrom(s)
	sinceLabel = strings.ToUpper(sinceLabel[:1]) + sinceLabel[1:]
	samples := s.Samples
	if !s.HasFocus || s.FocusRecent.Slot != m.Slot {
		var listed int64 // figures of one span only, as are the samples of the methods listed
		for i := range s.Methods {
			listed += s.Methods[i].Samples
		}
		samples = state.SampleCounts{Window: listed, Cumulative: listed}
	}
	switch {
	case still:
		// A snapshot's figures are one moment's, cumulative: no window.
		cumulative := *m
		if s.HasFocus && s.FocusCumulative.Slot == m.Slot {
			cumulative = s.FocusCumulative
		}
		span("As the snapshot has them", &cumulative, samples.Cumulative)
	case s.IsPicture():
		// A moment of the history: its rows are the window's; the figures
		// since the start as of then, where the picture kept them (without
		// the number of all samples then: no share).
		span("Over the last "+dur(s.Window)+" to "+s.Taken.Local().Format("15:04:05"), m, samples.Window)
		if int(m.Slot) < len(s.Since) {
			span(sinceLabel+", as of then", &s.Since[m.Slot], 0)
		} else {
			out = append(out, "", st.Title.Render(sinceLabel),
				"  "+st.Muted.Render("not kept in the history for this moment"))
		}
	case s.HasFocus && s.FocusRecent.Slot == m.Slot:
		span("Over the last "+dur(s.Window), &s.FocusRecent, samples.Window)
		span(sinceLabel, &s.FocusCumulative, samples.Cumulative)
	case s.Recent:
		span("Over the last "+dur(s.Window), m, samples.Window) // the other span comes with the next refresh
	default:
		span(sinceLabel, m, samples.Cumulative)
	}
	if s.TotalSelf > 0 {
		out = append(out, "  "+label("of all self time, in the pane's span: ")+value(pct(s.Percent(m))))
	}
	switch {
	case bySamples:
		out = append(out, "", label("Sampled: the samples stand for no measured time; a method's share of them is"),
			label("about its share of the time sampled (CPU or wall time, as the clock is set)."))
	case sampled:
		out = append(out, "", label("Sampled: times are the CPU time of the threads sampled in it, shared among"),
			label("their samples; calls, min and max are not measured."))
	}
	from := countedFrom(s) + ", from method entries"
	switch {
	case sampled && still:
		from = "from the snapshot's sampled stacks, in samples"
	case sampled:
		from = countedFrom(s) + ", from sampled stacks, in samples"
	case still:
		from = "from the snapshot's call tree, in calls"
	}
	out = append(out, "", st.Title.Render("Callers ")+label("("+from+"; the most frequent kept)"))
	if len(s.Callers) == 0 && s.IsPicture() {
		out = append(out, "  "+st.Muted.Render("not kept in the history: t shows the call tree of this moment"))
	} else if len(s.Callers) == 0 {
		out = append(out, "  "+st.Muted.Render("none known"))
	}
	for _, c := range s.Callers {
		out = append(out, "  "+value(fmt.Sprintf("%8s", count(c.Calls)))+"  "+inert(javaname.Method(c.Name))) // padded before it is styled
	}
	return out
}

// shareOf is n's share of all the samples, " (12% of 6.8k)", "" when
// their number is unknown.
func shareOf(n, all int64) string {
	if all <= 0 {
		return ""
	}
	return " (" + pct(100*float64(n)/float64(all)) + " of " + count(all) + ")"
}

// pagedFocus is the row of the method a drill-in shows, from a page that
// holds the rows on screen only: the figures the query asked for
// (Query.CallersOf); nil when it has none in the span shown.
func pagedFocus(s *state.Snapshot, key int64) *state.Method {
	if s.Page == nil || !s.HasFocus || int64(s.FocusRecent.Slot) != key {
		return nil
	}
	m := s.FocusCumulative
	if s.Recent {
		m = s.FocusRecent
	}
	if m.Calls == 0 && m.Samples == 0 && m.TotalSamples == 0 {
		return nil
	}
	return &m
}

// countedFrom says from when the statistics count: since watching began,
// or since the latest reset (r r), which every figure "since the start"
// counts from.
func countedFrom(s *state.Snapshot) string {
	if s == nil || s.ResetAt.IsZero() {
		return "since watching began"
	}
	return "since the reset, at " + s.ResetAt.Local().Format("15:04:05")
}
