package decode

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A ProfilerJ snapshot: one XML document, <doc> holding up to four
// sections, as the vendor's format page describes them (no real file is
// public):
//
//   - <profile>: per <thread> (name, cpuTime ns, isAlive), the call tree of
//     instrumented methods as nested <profile> nodes (name, signature,
//     count, cumulatedElapsed, cumulated, methodElapsed, method,
//     overheadCumulated, overheadMethod, exceptions; times in µs);
//   - <sampler>: per <thread> (also cumulated and cumulatedElapsed hits,
//     elapsedTime ns), the sampled tree (hits, elapsed, cumulated,
//     cumulatedElapsed: hits RUNNABLE and in any state);
//   - <memory>: per <thread>, <memory class count max/> allocations;
//   - <coverage>: per <class name source>, <method name signature
//     firstline count> with <footprints>, one count per source line.
//
// The document is read and checked whole before anything is shown: a
// malformed or absurd one is an error with its line and column, and no
// half of it reaches the picture.

// profilerJRoot is the root element of a snapshot.
const profilerJRoot = "doc"

// Bounds on what a snapshot may hold, beyond the document's size.
const (
	maxProfilerJNodes   = 1 << 20 // call-tree nodes, both trees together
	maxProfilerJDepth   = 1024    // nesting of a call tree
	maxProfilerJThreads = 1 << 16
	maxProfilerJRows    = 1 << 20 // memory rows, coverage methods
	maxFootprints       = 1 << 16 // lines of one method
	// Figures beyond these are absurd: a count above 10^15, a time above
	// a century.
	maxProfilerJCount = 1_000_000_000_000_000
	maxMicros         = 100 * 365 * 24 * 3600 * 1_000_000
	maxNanos          = maxMicros * 1000
)

// absent marks an attribute the element did not have.
const absent = -1

// The sections, as records name them.
const (
	sectionProfile  = "profile"
	sectionSampler  = "sampler"
	sectionMemory   = "memory"
	sectionCoverage = "coverage"
)

// ProfilerJThread is a <thread> of a section.
type ProfilerJThread struct {
	Section          string
	Name             string
	CPUTime          int64 // ns; absent: not given
	IsAlive          int8  // 1 alive, 0 ended, absent
	Cumulated        int64 // sampler: hits RUNNABLE
	CumulatedElapsed int64 // sampler: hits in any state
	ElapsedTime      int64 // sampler: ns
	id               int64 // the thread's id in the picture
}

// ProfilerJNode is a <profile> node of a call tree: of the profile
// section (instrumented) or of the sampler.
type ProfilerJNode struct {
	Section   string
	ID        int64 // document order, from 1
	Parent    int64 // 0 at the top of its thread's tree
	Thread    string
	Name      string
	Signature string
	// Profile section, times in µs.
	Count, CumulatedElapsed, Cumulated, MethodElapsed, Method int64
	OverheadCumulated, OverheadMethod, Exceptions             int64
	// Sampler section, in hits.
	Hits, Elapsed int64
	// SampleCumulated and SampleCumulatedElapsed are the sampler's
	// cumulated hits (its cumulated and cumulatedElapsed attributes).
	SampleCumulated, SampleCumulatedElapsed int64

	thread int32 // index of its thread
	parent int32 // index of its parent node, -1 at the top
	frame  string
	// Where the element begins, for what is found wrong with it once its
	// children are read.
	off       int64
	line, col int32
	// Of the instrumented tree, once the node is closed (profilerj_totals.go).
	total, totalCPU       int64 // its cumulated time and CPU, µs; computed when the file leaves them out (totalCPU may stay absent)
	children, childrenCPU int64 // its calls' cumulated time and CPU, µs
}

// ProfilerJMemory is a <memory> row: objects of a class a thread allocated.
type ProfilerJMemory struct {
	Thread string
	Class  string
	Count  int64 // allocated now
	Max    int64 // the most at once
	thread int32
}

// ProfilerJClass is a <class> of the coverage section.
type ProfilerJClass struct {
	Name   string
	Source string
}

// ProfilerJMethod is a <method> of the coverage section.
type ProfilerJMethod struct {
	Class      string
	Source     string
	Name       string
	Signature  string
	FirstLine  int64
	Count      int64
	Footprints []int64 // per line from FirstLine: -1 no code, 0 never reached, else times run
}

// profilerJSnapshot is a document read whole.
type profilerJSnapshot struct {
	records []Record // every element, in document order
	threads []*ProfilerJThread
	nodes   []*ProfilerJNode
	memory  []*ProfilerJMemory
	methods []*ProfilerJMethod
}

// pjParser reads a snapshot document.
type pjParser struct {
	x       *xml.Decoder
	growing bool // Options.Growing: nothing after </doc> is read
	in      *countingLimit
	max     int
	snap    *profilerJSnapshot
	intern  *interner
	line    int // of the token being handled
	col     int
	off     int64
	section string
	thread  int32 // index of the current <thread>, -1 outside one
	class   *ProfilerJClass
	method  *ProfilerJMethod
	path    []int32  // open tree nodes
	stack   []string // open elements
	seen    map[string]int
	text    []byte // footprints text
}

// countingLimit counts the bytes read and refuses more than max.
type countingLimit struct {
	r   io.Reader
	n   int64
	max int64
}

var errSnapshotTooLarge = errors.New("snapshot too large")

func (c *countingLimit) Read(p []byte) (int, error) {
	if c.n >= c.max {
		return 0, errSnapshotTooLarge
	}
	if int64(len(p)) > c.max-c.n {
		p = p[:c.max-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readProfilerJ reads and checks a whole snapshot.
func readProfilerJ(r io.Reader, opts Options) (*profilerJSnapshot, int64, error) {
	in := &countingLimit{r: r, max: int64(opts.maxSize()) + 1}
	p := &pjParser{in: in, max: opts.maxSize(), snap: &profilerJSnapshot{}, intern: newInterner(), thread: -1, seen: map[string]int{}, growing: opts.Growing}
	p.x = xml.NewDecoder(in)
	p.x.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		enc, err := lookupCharset(label)
		if err != nil || enc == nil {
			return input, err
		}
		return enc.NewDecoder().Reader(input), nil
	}
	err := p.run()
	return p.snap, in.n, err
}

// fail makes an error at the token being handled.
func (p *pjParser) fail(kind error, element, field, detail string) error {
	return &Error{Err: kind, Offset: p.off, Line: p.line, Column: p.col, Element: element, Field: field, Detail: detail, Fatal: true}
}

// byteOrderMark may begin a UTF-8 document; encoding/xml reads it as text.
const byteOrderMark = "\ufeff"

func (p *pjParser) run() error {
	depth := 0 // elements open
	for first := true; ; first = false {
		stack := p.stack
		p.line, p.col = p.x.InputPos()
		p.off = p.x.InputOffset()
		tok, err := p.x.Token()
		if err == io.EOF {
			if depth > 0 {
				return p.fail(ErrTruncated, stack[len(stack)-1], "", "the document ends inside <"+stack[len(stack)-1]+">")
			}
			return p.fail(ErrUnknownInput, "", "", "no <doc> element: not a ProfilerJ snapshot")
		}
		if err != nil {
			return p.xmlErr(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := p.distinctAttrs(t); err != nil {
				return err
			}
			if depth == 0 && t.Name.Local != profilerJRoot {
				return p.fail(ErrUnknownInput, t.Name.Local, "", fmt.Sprintf("the root element is <%s>; a ProfilerJ snapshot's is <doc>", t.Name.Local))
			}
			if err := p.start(stack, t); err != nil {
				return err
			}
			p.stack = append(p.stack, t.Name.Local)
			depth++
		case xml.EndElement:
			if err := p.end(stack); err != nil {
				return err
			}
			p.stack = p.stack[:len(p.stack)-1]
			depth--
			if depth == 0 {
				return p.afterRoot()
			}
		case xml.CharData:
			if len(stack) > 0 && stack[len(stack)-1] == "footprints" {
				if len(p.text)+len(t) > 16*maxFootprints {
					return p.fail(ErrBound, "footprints", "", fmt.Sprintf("more than %d bytes of footprints", 16*maxFootprints))
				}
				p.text = append(p.text, t...)
			} else if first && strings.TrimSpace(strings.TrimPrefix(string(t), byteOrderMark)) == "" {
				// A byte-order mark, and white space, before the prologue.
			} else if strings.TrimSpace(string(t)) != "" {
				where := "outside <doc>"
				if len(stack) > 0 {
					where = "in <" + stack[len(stack)-1] + ">"
				}
				return p.fail(ErrUnknownInput, "", "", fmt.Sprintf("text %s %s, which a ProfilerJ snapshot does not have", quoteDetail(strings.TrimSpace(string(t))), where))
			}
		}
	}
}

// afterRoot reads what follows </doc> to the end of the input: comments,
// processing instructions and white space, nothing else (a second root
// element is no longer one document). A file being followed is not read
// past </doc>: its end is not there yet.
func (p *pjParser) afterRoot() error {
	if p.growing {
		return nil
	}
	for {
		p.line, p.col = p.x.InputPos()
		p.off = p.x.InputOffset()
		tok, err := p.x.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return p.xmlErr(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return p.fail(ErrSyntax, t.Name.Local, "", fmt.Sprintf("a second root element <%s> after </doc>: a document has one root", t.Name.Local))
		case xml.CharData:
			if text := strings.TrimSpace(string(t)); text != "" {
				return p.fail(ErrSyntax, "", "", fmt.Sprintf("text %s after </doc>: a document ends with its root", quoteDetail(text)))
			}
		case xml.Directive:
			return p.fail(ErrSyntax, "", "", "a declaration <!…> after </doc>: a document ends with its root")
		}
	}
}

// distinctAttrs refuses an element that gives an attribute twice, which
// XML does not allow: which of the two values would be meant?
func (p *pjParser) distinctAttrs(t xml.StartElement) error {
	for i := 1; i < len(t.Attr); i++ {
		for j := range i {
			if t.Attr[i].Name == t.Attr[j].Name {
				name := t.Attr[i].Name.Local
				return p.fail(ErrSyntax, t.Name.Local, name, fmt.Sprintf("attribute %s given twice (%s=%s, then %s=%s)",
					name, name, quoteDetail(t.Attr[j].Value), name, quoteDetail(t.Attr[i].Value)))
			}
		}
	}
	return nil
}

// xmlErr turns a failure of the XML reader into an *Error.
func (p *pjParser) xmlErr(err error) error {
	line, col := p.x.InputPos()
	if errors.Is(err, errSnapshotTooLarge) {
		return &Error{Err: ErrTooLarge, Offset: p.in.n, Line: line, Column: col, Fatal: true,
			Detail: fmt.Sprintf("the snapshot is larger than %d bytes (--max-message-size)", p.max)}
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		if se.Msg == "unexpected EOF" {
			where := "before its root element"
			if k := len(p.stack); k > 0 {
				where = "inside <" + p.stack[k-1] + ">"
			}
			return &Error{Err: ErrTruncated, Offset: p.x.InputOffset(), Line: line, Column: col, Fatal: true, Detail: "the document ends " + where}
		}
		return &Error{Err: ErrSyntax, Offset: p.x.InputOffset(), Line: line, Column: col, Fatal: true, Detail: se.Msg}
	}
	if err == io.ErrUnexpectedEOF {
		return &Error{Err: ErrTruncated, Offset: p.x.InputOffset(), Line: line, Column: col, Fatal: true, Detail: "the document ends early"}
	}
	var de *Error
	if errors.As(err, &de) {
		return err
	}
	if strings.HasPrefix(err.Error(), "xml: ") {
		return &Error{Err: ErrSyntax, Offset: p.x.InputOffset(), Line: line, Column: col, Fatal: true, Detail: strings.TrimPrefix(err.Error(), "xml: ")}
	}
	return err // the reader's own failure
}

// start takes an element as the structure allows it where it stands.
func (p *pjParser) start(stack []string, t xml.StartElement) error {
	name := t.Name.Local
	parent := ""
	if len(stack) > 0 {
		parent = stack[len(stack)-1]
	}
	place := func() error {
		return p.fail(ErrUnknownInput, name, "", fmt.Sprintf("<%s> inside <%s> is not part of a ProfilerJ snapshot", name, parent))
	}
	switch {
	case len(stack) == 0:
		return nil // <doc>
	case len(stack) == 1:
		switch name {
		case sectionProfile, sectionSampler, sectionMemory, sectionCoverage:
			p.section = name
			return nil
		}
		return place()
	case len(stack) == 2:
		if p.section == sectionCoverage {
			if name != "class" {
				return place()
			}
			return p.startClass(t)
		}
		if name != "thread" {
			return place()
		}
		return p.startThread(t)
	}
	switch p.section {
	case sectionProfile, sectionSampler:
		if name != "profile" {
			return place()
		}
		return p.startNode(t)
	case sectionMemory:
		if name != "memory" || len(stack) != 3 {
			return place()
		}
		return p.memoryRow(t)
	case sectionCoverage:
		switch {
		case name == "method" && len(stack) == 3:
			return p.startMethod(t)
		case name == "footprints" && len(stack) == 4:
			p.text = p.text[:0]
			return nil
		}
		return place()
	}
	return place()
}

// end closes an element: a node adds its time to its parent's children;
// footprints are parsed; a thread, class or method is done.
func (p *pjParser) end(stack []string) error {
	name := stack[len(stack)-1]
	switch {
	case len(stack) == 2:
		p.section = ""
	case name == "thread":
		p.thread = -1
	case name == "profile" && len(p.path) > 0:
		n := p.snap.nodes[p.path[len(p.path)-1]]
		p.path = p.path[:len(p.path)-1]
		if n.Section == sectionProfile {
			return p.nodeClosed(n)
		}
	case name == "footprints":
		return p.footprints()
	case name == "class":
		p.class = nil
	case name == "method":
		p.method = nil
	}
	return nil
}

// attrs reads an element's attributes by name.
type attrs struct {
	p    *pjParser
	el   string
	list []xml.Attr
}

func (a attrs) raw(name string) (string, bool) {
	for _, at := range a.list {
		if at.Name.Local == name {
			return at.Value, true
		}
	}
	return "", false
}

func (a attrs) text(name string, required bool) (string, error) {
	v, ok := a.raw(name)
	if !ok && required {
		return "", a.p.fail(ErrValue, a.el, name, "missing")
	}
	return a.p.intern.str(v), nil
}

// number reads a whole number within [lo, hi]; absent when missing.
func (a attrs) number(name string, lo, hi int64, what string) (int64, error) {
	v, ok := a.raw(name)
	if !ok {
		return absent, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, a.p.fail(ErrValue, a.el, name, fmt.Sprintf("%s=%s: want %s", name, quoteDetail(v), what))
	}
	return n, nil
}

func (a attrs) count(name string) (int64, error) {
	return a.number(name, 0, maxProfilerJCount, "a whole number from 0 to 10^15")
}

func (a attrs) micros(name string) (int64, error) {
	return a.number(name, 0, maxMicros, "microseconds from 0 to a century")
}

func (a attrs) nanos(name string) (int64, error) {
	return a.number(name, 0, maxNanos, "nanoseconds from 0 to a century")
}

func (a attrs) alive() (int8, error) {
	v, ok := a.raw("isAlive")
	if !ok {
		return absent, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	return 0, a.p.fail(ErrValue, a.el, "isAlive", fmt.Sprintf("isAlive=%s: want true or false", quoteDetail(v)))
}

// firstErr returns the first error of a run of attribute reads.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (p *pjParser) startThread(t xml.StartElement) error {
	if len(p.snap.threads) >= maxProfilerJThreads {
		return p.fail(ErrBound, "thread", "", fmt.Sprintf("more than %d threads", maxProfilerJThreads))
	}
	a := attrs{p, "thread", t.Attr}
	th := &ProfilerJThread{Section: p.section, Cumulated: absent, CumulatedElapsed: absent, ElapsedTime: absent, CPUTime: absent, IsAlive: absent}
	var e [6]error
	th.Name, e[0] = a.text("name", true)
	if p.section != sectionMemory {
		th.CPUTime, e[1] = a.nanos("cpuTime")
		th.IsAlive, e[2] = a.alive()
	}
	if p.section == sectionSampler {
		th.Cumulated, e[3] = a.count("cumulated")
		th.CumulatedElapsed, e[4] = a.count("cumulatedElapsed")
		th.ElapsedTime, e[5] = a.nanos("elapsedTime")
	}
	if err := firstErr(e[:]...); err != nil {
		return err
	}
	p.thread = int32(len(p.snap.threads))
	p.snap.threads = append(p.snap.threads, th)
	p.snap.records = append(p.snap.records, th)
	return nil
}

func (p *pjParser) startNode(t xml.StartElement) error {
	if p.thread < 0 {
		return p.fail(ErrUnknownInput, "profile", "", "a call-tree node outside a <thread>")
	}
	if len(p.snap.nodes) >= maxProfilerJNodes {
		return p.fail(ErrBound, "profile", "", fmt.Sprintf("more than %d call-tree nodes", maxProfilerJNodes))
	}
	if len(p.path) >= maxProfilerJDepth {
		return p.fail(ErrBound, "profile", "", fmt.Sprintf("a call tree deeper than %d", maxProfilerJDepth))
	}
	a := attrs{p, "profile", t.Attr}
	th := p.snap.threads[p.thread]
	n := &ProfilerJNode{Section: p.section, ID: int64(len(p.snap.nodes) + 1), Thread: th.Name, thread: p.thread, parent: -1,
		off: p.off, line: int32(p.line), col: int32(p.col),
		Count: absent, CumulatedElapsed: absent, Cumulated: absent, MethodElapsed: absent, Method: absent,
		OverheadCumulated: absent, OverheadMethod: absent, Exceptions: absent, Hits: absent, Elapsed: absent,
		SampleCumulated: absent, SampleCumulatedElapsed: absent}
	if k := len(p.path); k > 0 {
		n.parent = p.path[k-1]
		n.Parent = p.snap.nodes[n.parent].ID
	}
	var e [12]error
	n.Name, e[0] = a.text("name", true)
	if p.section == sectionProfile {
		n.Signature, e[1] = a.text("signature", false)
		n.Count, e[2] = a.count("count")
		n.CumulatedElapsed, e[3] = a.micros("cumulatedElapsed")
		n.Cumulated, e[4] = a.micros("cumulated")
		n.MethodElapsed, e[5] = a.micros("methodElapsed")
		n.Method, e[6] = a.micros("method")
		n.OverheadCumulated, e[7] = a.micros("overheadCumulated")
		n.OverheadMethod, e[8] = a.micros("overheadMethod")
		n.Exceptions, e[9] = a.count("exceptions")
	} else {
		n.Hits, e[1] = a.count("hits")
		n.Elapsed, e[2] = a.count("elapsed")
		n.SampleCumulated, e[3] = a.count("cumulated")
		n.SampleCumulatedElapsed, e[4] = a.count("cumulatedElapsed")
	}
	if err := firstErr(e[:]...); err != nil {
		return err
	}
	if n.Name == "" {
		return p.fail(ErrValue, "profile", "name", "empty: a node names its method")
	}
	n.frame = p.frameOf(n)
	p.path = append(p.path, int32(len(p.snap.nodes)))
	p.snap.nodes = append(p.snap.nodes, n)
	p.snap.records = append(p.snap.records, n)
	return nil
}

// frameOf names a node's method as a stack frame: the qualified name
// before its readable parameter list, then the JVM signature when the node
// has one, so that overloads stay apart ("java.awt.AWTEvent.<init>(Ljava/lang/Object;I)V").
// ProfilerJ names a constructor by its class alone
// ("java.awt.AWTEvent(java.lang.Object,int)"): it becomes <init>, as
// Java names constructors.
func (p *pjParser) frameOf(n *ProfilerJNode) string {
	name, params := n.Name, ""
	if i := strings.IndexByte(name, '('); i > 0 {
		name, params = name[:i], name[i:]
	}
	if constructor(name, n.Signature) {
		name += ".<init>"
	}
	if n.Signature == "" {
		return p.intern.str(name + params)
	}
	return p.intern.str(name + n.Signature)
}

// constructor says a node's qualified name is a class's, not a method's:
// its last part begins with a capital letter (Java's classes do, its
// methods do not), and what it returns, when the signature says, is void.
func constructor(name, signature string) bool {
	last := name[strings.LastIndexByte(name, '.')+1:]
	if last == "" || last[0] < 'A' || last[0] > 'Z' {
		return false
	}
	return signature == "" || strings.HasSuffix(signature, ")V")
}

func (p *pjParser) memoryRow(t xml.StartElement) error {
	if p.thread < 0 {
		return p.fail(ErrUnknownInput, "memory", "", "a memory row outside a <thread>")
	}
	if len(p.snap.memory) >= maxProfilerJRows {
		return p.fail(ErrBound, "memory", "", fmt.Sprintf("more than %d memory rows", maxProfilerJRows))
	}
	a := attrs{p, "memory", t.Attr}
	m := &ProfilerJMemory{Thread: p.snap.threads[p.thread].Name, thread: p.thread}
	var e [3]error
	m.Class, e[0] = a.text("class", true)
	m.Count, e[1] = a.count("count")
	m.Max, e[2] = a.count("max")
	if err := firstErr(e[:]...); err != nil {
		return err
	}
	if m.Count == absent {
		return p.fail(ErrValue, "memory", "count", "missing")
	}
	if m.Max != absent && m.Max < m.Count {
		return p.fail(ErrValue, "memory", "max", fmt.Sprintf("max=%d is below count=%d: the most at once cannot be fewer than now", m.Max, m.Count))
	}
	p.snap.memory = append(p.snap.memory, m)
	p.snap.records = append(p.snap.records, m)
	return nil
}

func (p *pjParser) startClass(t xml.StartElement) error {
	a := attrs{p, "class", t.Attr}
	c := &ProfilerJClass{}
	var e [2]error
	c.Name, e[0] = a.text("name", true)
	c.Source, e[1] = a.text("source", false)
	if err := firstErr(e[:]...); err != nil {
		return err
	}
	p.class = c
	p.snap.records = append(p.snap.records, c)
	return nil
}

func (p *pjParser) startMethod(t xml.StartElement) error {
	if len(p.snap.methods) >= maxProfilerJRows {
		return p.fail(ErrBound, "method", "", fmt.Sprintf("more than %d coverage methods", maxProfilerJRows))
	}
	a := attrs{p, "method", t.Attr}
	m := &ProfilerJMethod{Class: p.class.Name, Source: p.class.Source}
	var e [4]error
	m.Name, e[0] = a.text("name", true)
	m.Signature, e[1] = a.text("signature", false)
	m.FirstLine, e[2] = a.number("firstline", 0, 1<<31-1, "a line number")
	m.Count, e[3] = a.count("count")
	if err := firstErr(e[:]...); err != nil {
		return err
	}
	p.method = m
	p.snap.methods = append(p.snap.methods, m)
	p.snap.records = append(p.snap.records, m)
	return nil
}

// footprints parses a method's line counts.
func (p *pjParser) footprints() error {
	if p.method == nil {
		return nil
	}
	fields := strings.Fields(string(p.text))
	if len(fields) > 0 && p.method.FirstLine == absent {
		return p.fail(ErrValue, "method", "firstline", "missing: the footprints cannot be placed on lines")
	}
	if len(fields) > maxFootprints {
		return p.fail(ErrBound, "footprints", "", fmt.Sprintf("%d lines, more than %d", len(fields), maxFootprints))
	}
	if p.method.FirstLine != absent && p.method.FirstLine+int64(len(fields)) > 1<<31 {
		return p.fail(ErrValue, "footprints", "", "lines beyond 2^31")
	}
	p.method.Footprints = make([]int64, len(fields))
	for i, f := range fields {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < -1 || n > maxProfilerJCount {
			return p.fail(ErrValue, "footprints", "", fmt.Sprintf("value %d is %s: want -1 (no code), 0 (never reached) or how often the line ran", i+1, quoteDetail(f)))
		}
		p.method.Footprints[i] = n
	}
	return nil
}
