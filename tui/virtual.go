package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/proftop/proftop/state"
)

// Virtual threads in the Threads pane: after the platform threads' rows
// come rows of virtual threads, one per container, state and method
// ("3,120 virtual  ThreadPerTaskExecutor@5b6f  parked  …  OrderService.await"),
// which open on their threads and stacks; the pane's title counts them
// and their starts and ends per second.

// groupCell is a cell of a row of virtual threads.
func groupCell(g *state.VirtualGroup, col int) string {
	switch col {
	case 1:
		if g.Count == 1 && len(g.Threads) == 1 {
			name := g.Threads[0].Name
			if !strings.HasPrefix(name, "virtual-") {
				name = "virtual " + name
			}
			return inert(name)
		}
		return commas(g.Count) + " virtual"
	case 2:
		return inert(containerLabel(g.Container))
	case 3:
		return state.VirtualStateLabel(g)
	case 9:
		return inert(g.Site)
	}
	return "–"
}

// groupNum is the sort key of a row of virtual threads: by state as
// threads sort, its count for the ID, nothing measured for the rest.
func groupNum(g *state.VirtualGroup, col int) int64 {
	switch col {
	case 0:
		return -g.Count // ids sort ascending: the busiest group first
	case 3:
		return int64(g.State)
	}
	return -1
}

func groupText(g *state.VirtualGroup, col int) string {
	switch col {
	case 1:
		return "virtual"
	case 2:
		return containerLabel(g.Container)
	case 9:
		return g.Site
	}
	return ""
}

// groupName is what the filter matches for a row of virtual threads: its
// state, container, lock class and site, and its listed threads' names.
func groupName(g *state.VirtualGroup) string {
	var b strings.Builder
	b.WriteString("virtual\x00" + state.VirtualStateLabel(g) + "\x00" + g.Container + "\x00" + g.LockClass + "\x00" + g.Site)
	// The names of its threads listed one by one: "/vdl" finds the group
	// of a named virtual thread.
	for i := range g.Threads {
		b.WriteString("\x00" + g.Threads[i].Name)
	}
	return b.String()
}

// groupHint colours a group's state: pinned threads hold their carriers.
func groupHint(g *state.VirtualGroup) cellHint {
	if g.Pinned {
		return hintBlocked
	}
	return stateHint(g.State)
}

// containerLabel shortens a thread container's name to what tells it
// apart: "ThreadPerTaskExecutor@5b6f7412" for
// java.util.concurrent.ThreadPerTaskExecutor@5b6f7412, "ForkJoinPool-1"
// for ForkJoinPool-1/jdk.internal.vm.SharedThreadContainer@12edcd21.
func containerLabel(c string) string {
	if i := strings.IndexByte(c, '/'); i > 0 {
		return c[:i]
	}
	name := c
	if at := strings.IndexByte(c, '@'); at >= 0 {
		name = c[:at]
	}
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		return c[dot+1:]
	}
	return c
}

// commas writes a count with thousands separators: 3,120.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// virtualTitle is what the Threads pane's title says of the virtual
// threads: how many, and their starts and ends per second.
func virtualTitle(s *state.Snapshot) string {
	v := s.Virtual
	if v == nil || v.Count < 0 {
		return ""
	}
	t := " · virtual " + commas(v.Count)
	if v.Estimated {
		t = " · virtual ≈" + commas(v.Count)
	}
	if v.Started >= 0 {
		t += fmt.Sprintf(" +%s/s −%s/s", rate(v.StartedPerSec), rate(v.EndedPerSec))
	}
	return t
}

// virtualLines are the text lines about the virtual threads: how many,
// by state, how fresh the listing is, and where threads pinned carriers.
func virtualLines(s *state.Snapshot, st *Styles) []string {
	v := s.Virtual
	if v == nil {
		return nil
	}
	label, value := st.Label.Render, st.Value.Render
	line := label("virtual threads ") + value(commas(v.Count))
	if v.Count < 0 {
		line = label("virtual threads ") + value("not listed yet")
	}
	if v.Started >= 0 {
		line += label(fmt.Sprintf("  started %s (%s/s)  ended %s (%s/s)", count(v.Started), rate(v.StartedPerSec), count(v.Ended), rate(v.EndedPerSec)))
	}
	out := []string{line}
	if len(v.ByState) > 0 {
		var parts []string
		for _, name := range []string{"running", "ready", "pinned", "blocked", "parked", "waiting", "timed-waiting", "sleeping"} {
			if n := v.ByState[name]; n > 0 {
				parts = append(parts, value(commas(n))+" "+label(name))
			}
		}
		out = append(out, "  "+strings.Join(parts, label(" · ")))
	}
	if !v.ListedAt.IsZero() {
		l := label("  listed ") + ago(s.Clock, v.ListedAt, st)
		if v.ListingPeriod > 0 {
			l += label(", every ") + value(dur(v.ListingPeriod))
		}
		if v.ListingCost > 0 {
			l += label(", at ") + value(dur(v.ListingCost)) + label(" of CPU each")
		}
		l += label(fmt.Sprintf(", %d one by one", v.Listed))
		out = append(out, l)
	}
	for _, p := range s.VirtualPinning {
		l := fmt.Sprintf("  %s %s %s %s %s %s", st.Blocked.Render("pinned"), value(count(p.Count)), label("times in"), value(inert(p.Site)),
			label("total "+dur(p.Total)+", longest "+dur(p.Max)), label(inert(pinWhy(&p))))
		out = append(out, l)
	}
	return out
}

// pinWhy says why a thread was pinned and what it blocked in.
func pinWhy(p *state.Pinning) string {
	switch {
	case p.Reason != "" && p.Operation != "":
		return "(" + p.Reason + "; " + p.Operation + ")"
	case p.Reason != "":
		return "(" + p.Reason + ")"
	case p.Operation != "":
		return "(" + p.Operation + ")"
	}
	return ""
}

// groupByID finds a row of virtual threads by its id.
func groupByID(s *state.Snapshot, id int64) *state.VirtualGroup {
	for i := range s.VirtualGroups {
		if s.VirtualGroups[i].ID == id {
			return &s.VirtualGroups[i]
		}
	}
	return nil
}

// groupDetail is the drill-in of a row of virtual threads: what they do,
// the lock they wait for, and the threads listed one by one with their
// stacks.
func groupDetail(g *state.VirtualGroup, s *state.Snapshot, st *Styles) []string {
	label, value := st.Label.Render, st.Value.Render
	out := []string{
		st.Title.Render("Virtual threads ") + value(commas(g.Count)) + label(" "+state.VirtualStateLabel(g)+" in ") + value(inert(g.Site)),
		"  " + label("container ") + value(inert(g.Container)),
	}
	if g.Pinned {
		out = append(out, "  "+st.Blocked.Render("pinned")+label(": they block without leaving their carriers, which wait with them"))
	}
	if g.Ready {
		out = append(out, "  "+label("ready: started or unblocked, waiting for a carrier to run them"))
	}
	if g.Lock != 0 {
		name := fmt.Sprintf("%s@%x", g.LockClass, g.Lock)
		owner := label(" owner unknown")
		if g.LockOwner != 0 {
			owner = label(" owned by ") + value(inert(g.OwnerName)) + label(fmt.Sprintf(" (thread %d)", g.LockOwner))
		}
		out = append(out, "  "+label("on ")+value(inert(name))+owner)
	}
	if v := s.Virtual; v != nil && !v.ListedAt.IsZero() {
		out = append(out, "  "+label("as the listing ")+ago(s.Clock, v.ListedAt, st)+label(" saw them"))
	}
	for _, p := range s.VirtualPinning {
		if p.Site == g.Site {
			out = append(out, "  "+st.Blocked.Render("pinned here")+label(fmt.Sprintf(" %s times %s, %s in all, the longest %s %s",
				count(p.Count), countedFrom(s), dur(p.Total), dur(p.Max), pinWhy(&p))))
		}
	}
	out = append(out, "")
	if len(g.Threads) == 0 {
		out = append(out, st.Title.Render("Threads ")+label("none listed one by one; one of them:"))
		out = append(out, stackLines(g.Stack, st)...)
		return out
	}
	title := fmt.Sprintf("Threads (%d listed one by one", g.Listed)
	if len(g.Threads) < g.Listed {
		title += fmt.Sprintf(", the first %d", len(g.Threads))
	}
	if rest := g.Count - int64(g.Listed); rest > 0 {
		title += fmt.Sprintf("; %s more counted only", commas(rest))
	}
	out = append(out, st.Title.Render(title+")"))
	for _, t := range g.Threads {
		extra := ""
		if t.Carrier != 0 {
			extra = fmt.Sprintf(" on carrier %d", t.Carrier)
		}
		if t.Lock != 0 && t.LockOwner != 0 && t.LockOwner != g.LockOwner {
			extra += fmt.Sprintf(", lock owned by thread %d", t.LockOwner)
		}
		out = append(out, fmt.Sprintf("  ● %s %s%s", value(inert(t.Name)), label(fmt.Sprintf("(virtual thread %d)", t.ID)), label(extra)))
		out = append(out, stackLines(t.Stack, st)...)
	}
	return out
}

// carrierText is what a carrier's METHOD cell says while it runs a
// virtual thread.
func carrierText(t *state.Thread) string {
	return "runs " + t.VirtualMountedName
}

// notesLines are the source's notes, for the header.
func notesLines(s *state.Snapshot) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, n := range s.Notes {
		out = append(out, "ⓘ "+inert(n.Text))
	}
	return out
}

// ago says how long before now a moment was, "2.1s ago", or "just now"
// when it is now to the millisecond (a listing of no virtual threads
// takes none): since's bare "0" read "listed 0 ago".
func ago(now, at time.Time, st *Styles) string {
	if d := now.Sub(at).Round(time.Millisecond); d > 0 {
		return st.Value.Render(dur(d)) + st.Label.Render(" ago")
	}
	return st.Label.Render("just now")
}
