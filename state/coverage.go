package state

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/proftop/proftop/decode"
)

// Line coverage by class, from a source that measures it (a ProfilerJ
// snapshot): per method, how often it was invoked and how often each of
// its lines ran. A later report of a method replaces the earlier one.

// CoverageClass is one class's coverage: its methods, the lines with code
// and those of them that ran.
type CoverageClass struct {
	Class   string           `json:"class"`
	Source  string           `json:"source,omitempty"`
	Methods []CoverageMethod `json:"methods"`
	Lines   int64            `json:"lines"`    // lines with code
	Hit     int64            `json:"linesHit"` // of them, lines that ran
	Invoked int              `json:"methodsInvoked"`
}

// CoverageMethod is one method's coverage. Never lists the lines with
// code that never ran, as ranges.
type CoverageMethod struct {
	Name      string      `json:"name"`
	Signature string      `json:"signature,omitempty"`
	FirstLine int64       `json:"firstLine"`
	Count     int64       `json:"invocations"`
	Lines     int64       `json:"lines"`
	Hit       int64       `json:"linesHit"`
	Never     []LineRange `json:"neverReached,omitempty"`
	// Unreadable says the source's line counts could not be read (the
	// method's lines are then unknown).
	Unreadable bool `json:"unreadable,omitempty"`
}

// LineRange is the lines From to To, both included.
type LineRange struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// Bounds of the coverage kept: methods per class, lines per method
// (classes are bounded by Options.MaxClasses).
const (
	maxCoverageMethods = 4096
	maxCoverageLines   = 1 << 16
)

// coverageTable holds the classes; rows are rebuilt only when a report
// changed something, and shared between snapshots (never changed once
// built).
type coverageTable struct {
	byName     map[string]*coverageClass
	maxClasses int
	dropped    int64 // reports beyond the bounds
	changed    bool
	built      []CoverageClass
}

type coverageClass struct {
	row     CoverageClass  // being changed
	shared  CoverageClass  // as last built, shared with snapshots
	methods map[string]int // name and signature -> index in row.Methods
	changed bool
}

func (ct *coverageTable) init(maxClasses int) {
	ct.byName = map[string]*coverageClass{}
	ct.maxClasses = maxClasses
}

// add takes one method's report.
func (ct *coverageTable) add(e *decode.Coverage, at int64) {
	c := ct.byName[e.Class]
	if c == nil {
		if len(ct.byName) >= ct.maxClasses {
			ct.dropped++
			return
		}
		c = &coverageClass{row: CoverageClass{Class: e.Class}, methods: map[string]int{}}
		ct.byName[e.Class] = c
	}
	if e.Source != "" {
		c.row.Source = e.Source
	}
	m := methodCoverage(e)
	key := e.Method + "\x00" + e.Signature
	if i, ok := c.methods[key]; ok {
		c.row.Methods[i] = m
	} else {
		if len(c.methods) >= maxCoverageMethods {
			ct.dropped++
			return
		}
		c.methods[key] = len(c.row.Methods)
		c.row.Methods = append(c.row.Methods, m)
	}
	c.changed, ct.changed = true, true
}

// methodCoverage reads a method's footprints: per line from its first, -1
// for no code, 0 never reached, else how often it ran.
func methodCoverage(e *decode.Coverage) CoverageMethod {
	m := CoverageMethod{Name: e.Method, Signature: e.Signature, FirstLine: e.FirstLine, Count: e.Count}
	fields := strings.Fields(e.Footprints)
	if len(fields) > maxCoverageLines {
		fields = fields[:maxCoverageLines]
	}
	for i, f := range fields {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < -1 {
			return CoverageMethod{Name: e.Method, Signature: e.Signature, FirstLine: e.FirstLine, Count: e.Count, Unreadable: true}
		}
		if n < 0 {
			continue
		}
		m.Lines++
		if n > 0 {
			m.Hit++
			continue
		}
		line := e.FirstLine + int64(i)
		if k := len(m.Never); k > 0 && m.Never[k-1].To == line-1 {
			m.Never[k-1].To = line
		} else {
			m.Never = append(m.Never, LineRange{From: line, To: line})
		}
	}
	return m
}

// rows lists the classes by name.
func (ct *coverageTable) rows() []CoverageClass {
	if !ct.changed {
		return ct.built
	}
	ct.changed = false
	out := make([]CoverageClass, 0, len(ct.byName))
	for _, c := range ct.byName {
		if c.changed {
			c.changed = false
			c.row.Lines, c.row.Hit, c.row.Invoked = 0, 0, 0
			for _, m := range c.row.Methods {
				c.row.Lines += m.Lines
				c.row.Hit += m.Hit
				if m.Count > 0 {
					c.row.Invoked++
				}
			}
			c.shared = c.row
			c.shared.Methods = slices.Clone(c.row.Methods)
		}
		out = append(out, c.shared)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Class < out[j].Class })
	ct.built = out
	return out
}
