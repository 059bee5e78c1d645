// Package export writes call trees as profiles other tools read: pprof's
// protocol buffer (go tool pprof and every pprof viewer) and collapsed
// stacks, one line per stack, root first ("frame;frame;frame value", what
// flamegraph.pl and speedscope read). Methods are named as Java writes
// them ("wait(long)", not the JVM's "wait(J)V"). It reads both back, so that a bundle's
// profile can be written in the other format and tests can check what was
// written.
package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/proftop/proftop/internal/javaname"
	"github.com/proftop/proftop/internal/textsafe"
	"github.com/proftop/proftop/state"
)

// Value says what a collapsed line counts.
type Value int

const (
	// ValueAuto counts time in microseconds when the tree has times, else
	// samples or calls.
	ValueAuto Value = iota
	// ValueCount counts samples (or calls).
	ValueCount
	// ValueTime counts time in microseconds.
	ValueTime
)

// ParseValue reads --value: auto, count or time.
func ParseValue(s string) (Value, error) {
	switch s {
	case "", "auto":
		return ValueAuto, nil
	case "count":
		return ValueCount, nil
	case "time":
		return ValueTime, nil
	}
	return 0, fmt.Errorf("--value %q: want auto, count or time", s)
}

// Span is what a profile covers, for its header, in the trace's time.
type Span struct {
	From, To time.Time // From zero: unknown
	Source   string    // where the stacks came from
	Sampled  bool      // from stack samples (else from method entries and exits)
}

// Pprof writes a tree as a gzipped pprof profile: a sample per path that
// something ended at, with its count and, when known, its time.
func Pprof(w io.Writer, tree *state.CallTree, span Span) error {
	p := &profile.Profile{}
	// Unknown, the start is left unset (pprof then shows no time): the
	// zero time's nanoseconds overflow into the eighteenth century.
	if !span.From.IsZero() {
		p.TimeNanos = span.From.UnixNano()
		if span.To.After(span.From) {
			p.DurationNanos = span.To.Sub(span.From).Nanoseconds()
		}
	}
	count, timed := "calls", "time"
	if span.Sampled {
		count, timed = "samples", "cpu"
	}
	p.SampleType = []*profile.ValueType{{Type: count, Unit: "count"}}
	// Each sample (or call) counts one: what a period of one sample is.
	// The interval between samples is not in the stream.
	p.PeriodType, p.Period = &profile.ValueType{Type: count, Unit: "count"}, 1
	if tree.Weighted {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: timed, Unit: "nanoseconds"})
	}
	if span.Source != "" {
		p.Comments = append(p.Comments, "proftop: "+span.Source)
	}
	funcs := map[string]*profile.Location{}
	location := func(name string) *profile.Location {
		if l := funcs[name]; l != nil {
			return l
		}
		// Named as Java writes it, as the panes show it; the trace's own
		// name (a JVM descriptor's) is its system name.
		// Inert: a profile's names reach a terminal through pprof's text.
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: textsafe.Inert(javaname.Method(name)), SystemName: textsafe.Inert(name)}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
		p.Function = append(p.Function, f)
		p.Location = append(p.Location, l)
		funcs[name] = l
		return l
	}
	for i := 1; i < len(tree.Nodes); i++ {
		n := &tree.Nodes[i]
		if n.SelfN == 0 && n.Self == 0 {
			continue
		}
		s := &profile.Sample{Value: []int64{n.SelfN}}
		if tree.Weighted {
			s.Value = append(s.Value, n.Self)
		}
		for j := int32(i); j > 0; j = tree.Nodes[j].Parent { // leaf first, as pprof wants
			s.Location = append(s.Location, location(tree.Nodes[j].Name))
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		return fmt.Errorf("pprof profile: %w", err)
	}
	return p.Write(w)
}

// Collapsed writes a tree as collapsed stacks: a line per path that
// something ended at, root first, and its value.
func Collapsed(w io.Writer, tree *state.CallTree, v Value) error {
	bw := bufio.NewWriter(w)
	useTime := v == ValueTime || v == ValueAuto && tree.Weighted
	for i := 1; i < len(tree.Nodes); i++ {
		n := &tree.Nodes[i]
		val := n.SelfN
		if useTime {
			val = n.Self / 1000
		}
		if val <= 0 {
			continue
		}
		for k, f := range tree.Path(int32(i)) {
			if k > 0 {
				bw.WriteByte(';')
			}
			bw.WriteString(frameName(javaname.Method(f)))
		}
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatInt(val, 10))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// frameName keeps a frame on its line and in one piece: ';' separates
// frames and the last space the value, and a line is one stack. Control
// characters and escape sequences from the trace become visible escapes
// (textsafe.Inert): collapsed stacks are often read on a terminal.
func frameName(s string) string {
	s = textsafe.Inert(s)
	if !strings.ContainsAny(s, "; \t\r\n") {
		return s
	}
	return strings.NewReplacer(";", ",", " ", "_", "\t", "_", "\r", "_", "\n", "_").Replace(s)
}

// Stack is one collapsed line: frames root first, and the value.
type Stack struct {
	Frames []string
	Value  int64
}

// ReadCollapsed parses collapsed stacks; a bad line is an error naming it.
func ReadCollapsed(r io.Reader) ([]Stack, error) {
	var out []Stack
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		if sp <= 0 {
			return nil, fmt.Errorf("line %d: no value after the stack: %q", n, line)
		}
		v, err := strconv.ParseInt(line[sp+1:], 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("line %d: the value %q is not a count", n, line[sp+1:])
		}
		out = append(out, Stack{Frames: strings.Split(line[:sp], ";"), Value: v})
	}
	return out, sc.Err()
}

// ReadPprof reads a pprof profile (gzipped or not) back into a call tree:
// its first sample type is the count, its second (when there is one) the
// time.
func ReadPprof(r io.Reader) (*state.CallTree, *profile.Profile, error) {
	p, err := profile.Parse(r)
	if err != nil {
		return nil, nil, err
	}
	if len(p.SampleType) == 0 {
		return nil, nil, errors.New("pprof profile without a sample type")
	}
	b := newTreeBuilder(len(p.SampleType) > 1)
	for _, s := range p.Sample {
		var frames []string
		for i := len(s.Location) - 1; i >= 0; i-- { // root first
			l := s.Location[i]
			for j := len(l.Line) - 1; j >= 0; j-- {
				// The trace's own name, which Pprof keeps as the system
				// name, is what a tree holds.
				if f := l.Line[j].Function; f != nil && f.SystemName != "" {
					frames = append(frames, f.SystemName)
				} else if f != nil {
					frames = append(frames, f.Name)
				}
			}
		}
		var w int64
		if len(s.Value) > 1 {
			w = s.Value[1]
		}
		b.add(frames, w, s.Value[0])
	}
	return b.tree(), p, nil
}

// treeBuilder makes a call tree of paths, for profiles read back.
type treeBuilder struct {
	t    *state.CallTree
	kids map[string]int32 // parent/name -> node
}

func newTreeBuilder(weighted bool) *treeBuilder {
	return &treeBuilder{t: &state.CallTree{Weighted: weighted, Nodes: []state.CallNode{{Parent: -1, Name: "all threads"}}},
		kids: map[string]int32{}}
}

func (b *treeBuilder) add(frames []string, w, n int64) {
	node := int32(0)
	b.t.Nodes[0].Total += w
	b.t.Nodes[0].TotalN += n
	for _, f := range frames {
		key := strconv.Itoa(int(node)) + "/" + f
		k, ok := b.kids[key]
		if !ok {
			k = int32(len(b.t.Nodes))
			b.t.Nodes = append(b.t.Nodes, state.CallNode{Parent: node, Name: f, Depth: b.t.Nodes[node].Depth + 1})
			b.t.Nodes[node].Kids = append(b.t.Nodes[node].Kids, k)
			b.kids[key] = k
		}
		node = k
		b.t.Nodes[node].Total += w
		b.t.Nodes[node].TotalN += n
	}
	b.t.Nodes[node].Self += w
	b.t.Nodes[node].SelfN += n
}

func (b *treeBuilder) tree() *state.CallTree { return b.t }
