package state

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/proftop/proftop/decode"
)

// Telemetry: named series of values sampled about once a second, as a
// source declares them (telemetrySeries and telemetryValue, in proftop's
// custom convention) or as they follow from what it already sends (a
// memory pool's used and committed bytes, from its memoryPool messages).
// Each series keeps the telemetry window at full resolution and, before
// it, buckets of older points that merge two by two when they run out of
// room: the whole run is kept, at a resolution that falls with age, in a
// memory bound fixed by the options.

// Sizes of what a series keeps, for the memory bound.
const (
	pointBytes  = 16 // a point: a time and a value
	bucketBytes = 48 // a bucket: its span, minimum, maximum, sum and count
	// firstBucketWidth is how much time a bucket of older points covers
	// at first; it doubles each time the buckets are merged.
	firstBucketWidth = int64(10 * time.Second)
	// maxProblems bounds the specs whose problems are kept.
	maxProblems = 64
)

// The names of the series derived from memory pools.
const (
	heapUsedPrefix         = "Heap used ("
	heapCommittedPrefix    = "Heap committed ("
	nonHeapUsedPrefix      = "Non-heap used ("
	nonHeapCommittedPrefix = "Non-heap committed ("
	memoryUsedPrefix       = "Memory used ("
	memoryCommittedPrefix  = "Memory committed ("
)

type point struct{ at, v int64 }

// bucket summarises the older points of a span.
type bucket struct {
	from, to      int64
	min, max, sum int64
	n             int64
}

// tseries is one series and its points.
type tseries struct {
	name    string
	unit    string
	divisor float64
	derived bool
	order   int // its place among the series, by first appearance

	recent []point // a ring of the window's points, oldest at head
	head   int
	n      int
	older  []bucket
	width  int64 // of a bucket of older points
	min    int64 // over every point since the start (or the reset)
	max    int64
	seen   bool // a point came since the start (or the reset)
}

// telemetryTable holds every series, the source's ids for them in the
// current stream, and the problems reported about the user's specs.
type telemetryTable struct {
	window     int64 // ns kept at full resolution
	recentCap  int   // points a series keeps in the window
	olderCap   int   // older buckets a series keeps
	maxSeries  int
	byName     map[string]*tseries
	order      []*tseries
	byID       map[int64]*tseries // this stream's ids
	dropped    int                // declarations beyond maxSeries
	undeclared int64              // values of ids never declared
	problems   map[string]problem
	gen        uint64 // changes with every point, declaration or problem

	// The snapshot's copy, rebuilt only when something changed.
	built      []Series
	builtGen   uint64
	builtFocus string
}

type problem struct {
	text string
	at   int64
}

func (tt *telemetryTable) init(window time.Duration, memory int64, maxSeries int) {
	tt.window = int64(window)
	// Up to two points a second fill the window; a source that samples
	// faster has its oldest points of the window folded into buckets.
	tt.recentCap = max(int(2*window/time.Second), 16)
	tt.maxSeries = maxSeries
	perSeries := memory / int64(maxSeries)
	tt.olderCap = max(int((perSeries-int64(tt.recentCap)*pointBytes)/bucketBytes), 16)
	tt.byName = map[string]*tseries{}
	tt.byID = map[int64]*tseries{}
	tt.problems = map[string]problem{}
}

// newStream forgets the ids of the previous stream; the series stay.
func (tt *telemetryTable) newStream() { clear(tt.byID) }

// series finds or makes the series of a name; nil beyond the bound.
func (tt *telemetryTable) series(name, unit string, divisor float64, derived bool) *tseries {
	s := tt.byName[name]
	if s == nil {
		if len(tt.order) >= tt.maxSeries {
			tt.dropped++
			return nil
		}
		s = &tseries{name: name, order: len(tt.order), recent: make([]point, tt.recentCap), width: firstBucketWidth}
		tt.byName[name] = s
		tt.order = append(tt.order, s)
	}
	s.unit, s.divisor, s.derived = unit, divisor, derived
	tt.gen++
	return s
}

// declare records a source's declaration of a series.
func (tt *telemetryTable) declare(e *decode.TelemetrySeries) {
	if s := tt.series(e.Name, e.Unit, max(e.Divisor, 0), false); s != nil {
		tt.byID[e.Series] = s
	} else {
		tt.byID[e.Series] = nil // beyond the bound: its values are dropped
	}
}

// value records a value of a declared series.
func (tt *telemetryTable) value(at int64, id, v int64) {
	s, ok := tt.byID[id]
	switch {
	case !ok:
		tt.undeclared++
	case s != nil:
		tt.add(s, at, v)
	}
}

// derive records a value of a series that follows from another message.
func (tt *telemetryTable) derive(at int64, name, unit string, v int64) {
	if s := tt.series(name, unit, 1, true); s != nil {
		tt.add(s, at, v)
	}
}

// pool derives a memory pool's two series: used and committed bytes,
// named by its kind (decode.PoolHeap…).
func (tt *telemetryTable) pool(at int64, name string, kind byte, used, committed int64) {
	usedPrefix, committedPrefix := nonHeapUsedPrefix, nonHeapCommittedPrefix
	switch kind {
	case decode.PoolHeap:
		usedPrefix, committedPrefix = heapUsedPrefix, heapCommittedPrefix
	case decode.PoolOther:
		usedPrefix, committedPrefix = memoryUsedPrefix, memoryCommittedPrefix
	}
	if used >= 0 {
		tt.derive(at, usedPrefix+name+")", decode.UnitBytes, used)
	}
	if committed >= 0 {
		tt.derive(at, committedPrefix+name+")", decode.UnitBytes, committed)
	}
}

// add appends a point; one older than the series' latest is dropped (the
// points of a series are in time order).
func (tt *telemetryTable) add(s *tseries, at, v int64) {
	if s.n > 0 && at < s.recent[(s.head+s.n-1)%len(s.recent)].at {
		return
	}
	for s.n > 0 && (s.n == len(s.recent) || s.recent[s.head].at < at-tt.window) {
		tt.fold(s, s.recent[s.head])
		s.head = (s.head + 1) % len(s.recent)
		s.n--
	}
	s.recent[(s.head+s.n)%len(s.recent)] = point{at, v}
	s.n++
	if !s.seen {
		s.min, s.max, s.seen = v, v, true
	}
	s.min, s.max = min(s.min, v), max(s.max, v)
	tt.gen++
}

// fold moves a point out of the window into the older buckets, merging
// them two by two when they are full.
func (tt *telemetryTable) fold(s *tseries, p point) {
	if n := len(s.older); n > 0 && p.at < s.older[n-1].from+s.width {
		b := &s.older[n-1]
		b.to, b.min, b.max, b.sum, b.n = p.at, min(b.min, p.v), max(b.max, p.v), b.sum+p.v, b.n+1
		return
	}
	if len(s.older) == tt.olderCap {
		merged := s.older[:0]
		for i := 0; i < len(s.older); i += 2 {
			b := s.older[i]
			if i+1 < len(s.older) {
				c := s.older[i+1]
				b.to, b.min, b.max, b.sum, b.n = c.to, min(b.min, c.min), max(b.max, c.max), b.sum+c.sum, b.n+c.n
			}
			merged = append(merged, b)
		}
		s.older = merged
		s.width *= 2
	}
	if s.older == nil {
		s.older = make([]bucket, 0, tt.olderCap)
	}
	s.older = append(s.older, bucket{from: p.at, to: p.at, min: p.v, max: p.v, sum: p.v, n: 1})
}

// problem records (or, with an empty text, clears) a problem with a spec.
func (tt *telemetryTable) problem(at int64, spec, text string) {
	if text == "" {
		if _, ok := tt.problems[spec]; ok {
			delete(tt.problems, spec)
			tt.gen++
		}
		return
	}
	if p, ok := tt.problems[spec]; ok && p.text == text {
		return
	}
	if _, ok := tt.problems[spec]; !ok && len(tt.problems) >= maxProblems {
		return
	}
	tt.problems[spec] = problem{text: text, at: at}
	tt.gen++
}

// reset counts the minimum and maximum from now; the points stay.
func (tt *telemetryTable) reset() {
	for _, s := range tt.order {
		s.seen = false
		if s.n > 0 {
			last := s.recent[(s.head+s.n-1)%len(s.recent)].v
			s.min, s.max, s.seen = last, last, true
		}
	}
	tt.gen++
}

// Series is one telemetry series as a snapshot shows it: its values are
// integers, shown divided by Divisor in Unit (decode.UnitPlain…).
type Series struct {
	Name    string  `json:"name"`
	Unit    string  `json:"unit"`
	Divisor float64 `json:"divisor"`
	// Group is the X of series named "X (1)" … "X (n)" (any parenthesised
	// suffix shared by two series or more), "" when alone.
	Group string `json:"group,omitempty"`
	// Derived: from another message (a memory pool's), not declared.
	Derived bool `json:"derived,omitempty"`
	// Points are the telemetry window's, oldest first.
	Points []Point `json:"points"`
	// Min and Max are over every value since the start (or the reset).
	Min int64 `json:"min"`
	Max int64 `json:"max"`
	// Older holds the points before the window, downsampled; filled for
	// the series a query asks about.
	Older []Bucket `json:"older,omitempty"`
}

// Point is one value of a series.
type Point struct {
	At    time.Time `json:"at"`
	Value int64     `json:"value"`
}

// Bucket is the values of a series over a span before the window.
type Bucket struct {
	From  time.Time `json:"from"`
	To    time.Time `json:"to"`
	Min   int64     `json:"min"`
	Max   int64     `json:"max"`
	Mean  float64   `json:"mean"`
	Count int64     `json:"count"`
}

// Last is the series' latest point (ok false when it has none).
func (s *Series) Last() (Point, bool) {
	if len(s.Points) == 0 {
		return Point{}, false
	}
	return s.Points[len(s.Points)-1], true
}

// Scaled is a value in the series' unit: divided by its divisor.
func (s *Series) Scaled(v int64) float64 {
	if s.Divisor <= 0 {
		return float64(v)
	}
	return float64(v) / s.Divisor
}

// TelemetryProblem says why a series or probe the user asked for cannot
// be read, since when (the trace's time; zero when the profiler refused
// it before the stream began).
type TelemetryProblem struct {
	Spec    string    `json:"spec"`
	Problem string    `json:"problem"`
	Since   time.Time `json:"since,omitzero"`
}

// snapshot lists the series (the one focus names, or the group it names,
// with its older points) and the problems. Nothing changed since the
// previous call: it returns the previous list, which no one modifies.
func (tt *telemetryTable) snapshot(focus string) ([]Series, []TelemetryProblem) {
	problems := make([]TelemetryProblem, 0, len(tt.problems))
	for spec, p := range tt.problems {
		tp := TelemetryProblem{Spec: spec, Problem: p.text}
		if p.at != 0 {
			tp.Since = time.Unix(0, p.at)
		}
		problems = append(problems, tp)
	}
	sort.Slice(problems, func(i, j int) bool { return problems[i].Spec < problems[j].Spec })
	if tt.built != nil && tt.builtGen == tt.gen && tt.builtFocus == focus {
		return tt.built, problems
	}
	groups := groupNames(tt.order)
	out := make([]Series, 0, len(tt.order))
	for i, s := range tt.order {
		r := Series{Name: s.name, Unit: s.unit, Divisor: s.divisor, Group: groups[i], Derived: s.derived, Min: s.min, Max: s.max,
			Points: make([]Point, s.n)}
		for j := range s.n {
			p := s.recent[(s.head+j)%len(s.recent)]
			r.Points[j] = Point{At: time.Unix(0, p.at), Value: p.v}
		}
		if focus != "" && (s.name == focus || groups[i] == focus) {
			r.Older = make([]Bucket, len(s.older))
			for j, b := range s.older {
				r.Older[j] = Bucket{From: time.Unix(0, b.from), To: time.Unix(0, b.to), Min: b.min, Max: b.max,
					Mean: float64(b.sum) / float64(max(b.n, 1)), Count: b.n}
			}
		}
		out = append(out, r)
	}
	tt.built, tt.builtGen, tt.builtFocus = out, tt.gen, focus
	return out, problems
}

// groupNames gives each series named "X (…)" the X when another series
// shares it: the runtime's "Tasks in Non-blocking Queue (1)" … (n), a
// pool's "Heap used (G1 Eden Space)" beside the other heap pools, the
// MBeans an object-name pattern matched, "Balance (bank:…,name=a)". Its
// members are parts of one whole: sources name series that are not
// otherwise ("Live threads", "Daemon threads").
func groupNames(series []*tseries) []string {
	bases := make([]string, len(series))
	count := map[string]int{}
	for i, s := range series {
		if b, _, ok := groupBase(s.name); ok {
			bases[i] = b
			count[b]++
		}
	}
	for i, b := range bases {
		if count[b] < 2 {
			bases[i] = ""
		}
	}
	return bases
}

// groupBase splits a name "X (member)".
func groupBase(name string) (base, member string, ok bool) {
	if !strings.HasSuffix(name, ")") {
		return "", "", false
	}
	i := strings.LastIndex(name, " (")
	if i <= 0 || len(name)-i-3 <= 0 {
		return "", "", false
	}
	return name[:i], name[i+2 : len(name)-1], true
}

// GroupMember is what tells a series apart within its group: the suffix
// in parentheses ("3", "G1 Eden Space").
func GroupMember(s *Series) string {
	if s.Group == "" {
		return s.Name
	}
	return strings.TrimSuffix(strings.TrimPrefix(s.Name, s.Group+" ("), ")")
}

// SortSeriesNaturally orders series by name with numbers compared as
// numbers, so that "X (2)" comes before "X (10)".
func SortSeriesNaturally(s []Series) {
	slices.SortStableFunc(s, func(a, b Series) int { return NaturalCompare(a.Name, b.Name) })
}

// NaturalCompare compares two names, runs of digits by their value.
func NaturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
