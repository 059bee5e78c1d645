package decode

import (
	"io"
	"strconv"
	"time"
)

// ProfilerJDecoder maps a ProfilerJ snapshot into the event model, all at
// the snapshot's moment: threads (named, with their CPU time, ended when
// the snapshot says they are not alive); each node of an instrumented call
// tree as a Sample with SampleCalls (its path innermost first, its count
// of calls, its own elapsed time); each node of the sampler's trees with
// RUNNABLE hits as an ordinary Sample weighted by its thread's CPU time
// shared among those hits; the memory section as a census (a row per
// class and allocating thread); the coverage section as Coverage events.
// Threads of the sections are matched by name (the n'th thread of a name
// in one section is the n'th of that name in another).
type ProfilerJDecoder struct {
	r    io.Reader
	opts Options
	snap *profilerJSnapshot
	read int64
	err  error
	at   Ticks

	rec     int // records returned
	stage   int // of the events: see Next
	idx     int
	rest    int32      // a node whose unprofiled callees' time is to be sent next, -1: none
	threads []pjThread // of the picture
	ofRow   []int      // a section's thread -> index in threads

	// Flyweights.
	start  ThreadStart
	cpu    ThreadCPU
	end    ThreadEnd
	sample Sample
	census ObjectCensus
	cov    Coverage
	text   []byte
}

// pjThread is one thread of the picture, merged from the sections.
type pjThread struct {
	id      int64
	name    string
	cpu     int64 // ns; absent
	ended   bool
	hits    int64 // the sampler's RUNNABLE hits of it; absent
	hitsCPU int64 // the sampler's CPU time of it; absent
}

// NewProfilerJDecoder returns a decoder of the snapshot in r.
func NewProfilerJDecoder(r io.Reader, opts Options) *ProfilerJDecoder {
	return &ProfilerJDecoder{r: r, opts: opts, rest: -1}
}

func (d *ProfilerJDecoder) Offset() int64      { return 0 }
func (d *ProfilerJDecoder) InputOffset() int64 { return d.read }
func (d *ProfilerJDecoder) Clock() Clock       { return Clock{} }
func (d *ProfilerJDecoder) Format() Format     { return FormatProfilerJ }
func (d *ProfilerJDecoder) Still() bool        { return true }

// Notes say what the picture is and what was assumed.
func (d *ProfilerJDecoder) Notes() []string {
	return []string{
		"a still picture: a snapshot, its figures cumulative",
		"call-tree times taken as µs (the format leaves it open)",
	}
}

// parse reads the document once.
func (d *ProfilerJDecoder) parse() error {
	if d.snap != nil || d.err != nil {
		return d.err
	}
	snap, n, err := readProfilerJ(d.r, d.opts)
	d.read = n
	if err != nil {
		d.err = err
		return err
	}
	d.snap = snap
	when := d.opts.Modified
	if when.IsZero() {
		when = time.Now()
	}
	d.at = Ticks(when.UnixNano())
	d.merge()
	return nil
}

// merge matches the threads of the sections into the picture's.
func (d *ProfilerJDecoder) merge() {
	ids := map[string]int{}
	seen := map[string]int{} // section and name -> occurrences so far
	d.ofRow = make([]int, len(d.snap.threads))
	for i, th := range d.snap.threads {
		n := seen[th.Section+"\x00"+th.Name]
		seen[th.Section+"\x00"+th.Name]++
		key := th.Name + "\x00" + strconv.Itoa(n)
		j, ok := ids[key]
		if !ok {
			j = len(d.threads)
			ids[key] = j
			d.threads = append(d.threads, pjThread{id: int64(j + 1), name: th.Name, cpu: absent, hits: absent, hitsCPU: absent})
		}
		d.ofRow[i] = j
		pt := &d.threads[j]
		th.id = pt.id
		pt.cpu = max(pt.cpu, th.CPUTime)
		if th.IsAlive == 0 {
			pt.ended = true
		}
		if th.Section == sectionSampler {
			pt.hits, pt.hitsCPU = th.Cumulated, th.CPUTime
		}
	}
}

// NextRecord returns the snapshot's elements as records, in document
// order (for `proftop decode`); a caller uses this or Next, not both.
func (d *ProfilerJDecoder) NextRecord() (Record, error) {
	if err := d.parse(); err != nil {
		return nil, err
	}
	if d.rec == len(d.snap.records) {
		return nil, io.EOF
	}
	d.rec++
	return d.snap.records[d.rec-1], nil
}

// Next returns the picture's events: the threads, their CPU times, the
// call trees' nodes, the sampler's, the threads that ended, the census of
// allocations, the coverage.
func (d *ProfilerJDecoder) Next() (Event, error) {
	ev, err := d.next()
	if err == nil {
		boundEvent(ev, d.opts.maxString())
	}
	return ev, err
}

func (d *ProfilerJDecoder) next() (Event, error) {
	if err := d.parse(); err != nil {
		return nil, err
	}
	for {
		switch d.stage {
		case 0:
			if d.idx < len(d.threads) {
				t := &d.threads[d.idx]
				d.idx++
				d.start = ThreadStart{ThreadID: t.id, ThreadName: t.name}
				return &d.start, nil
			}
		case 1:
			for d.idx < len(d.threads) {
				t := &d.threads[d.idx]
				d.idx++
				if t.cpu != absent {
					d.cpu = ThreadCPU{ThreadIDRef: t.id, Time: d.at, CPUTime: Ticks(t.cpu)}
					return &d.cpu, nil
				}
			}
		case 2, 3:
			if d.rest >= 0 {
				i := d.rest
				d.rest = -1
				return d.unprofiledSample(i), nil
			}
			for d.idx < len(d.snap.nodes) {
				i := d.idx
				d.idx++
				if ev := d.nodeSample(int32(i), d.stage == 2); ev != nil {
					return ev, nil
				}
			}
		case 4:
			for d.idx < len(d.threads) {
				t := &d.threads[d.idx]
				d.idx++
				if t.ended {
					d.end = ThreadEnd{ThreadMoment{ThreadIDRef: t.id, Time: d.at}}
					return &d.end, nil
				}
			}
		case 5:
			if d.idx < len(d.snap.memory) {
				m := d.snap.memory[d.idx]
				d.idx++
				d.census = ObjectCensus{Time: d.at, Census: 1, Class: m.Class, Site: "thread " + m.Thread,
					Count: m.Count, Bytes: -1, MaxCount: m.Max}
				return &d.census, nil
			}
		case 6:
			if d.idx < len(d.snap.methods) {
				m := d.snap.methods[d.idx]
				d.idx++
				d.cov = Coverage{Time: d.at, Class: m.Class, Source: m.Source, Method: m.Name, Signature: m.Signature,
					FirstLine: max(m.FirstLine, 0), Count: max(m.Count, 0), Footprints: d.footprintText(m.Footprints)}
				return &d.cov, nil
			}
		default:
			return nil, io.EOF
		}
		d.stage++
		d.idx = 0
	}
}

// nodeSample makes the Sample of a call-tree node: of the instrumented
// tree (calls) or of the sampler's (hits); nil for a node of the other
// tree, or a sampler node without hits of its own.
func (d *ProfilerJDecoder) nodeSample(i int32, calls bool) Event {
	n := d.snap.nodes[i]
	if (n.Section == sectionProfile) != calls {
		return nil
	}
	t := &d.threads[d.ofRow[n.thread]]
	s := &d.sample
	*s = Sample{ThreadIDRef: t.id, Time: d.at, Flags: SampleAggregate, Stack: s.Stack}
	if calls {
		self := n.MethodElapsed
		if self == absent {
			self = n.total - n.children
		}
		s.Flags |= SampleCalls | SampleTotal
		s.Count = max(n.Count, 0)
		s.Weight = Ticks(self * 1000)
		s.Total = Ticks(n.total * 1000)
		if n.Method != absent {
			s.Flags |= SampleCPU
			s.CPU = Ticks(n.Method * 1000)
		}
		if n.totalCPU != absent {
			s.Flags |= SampleTotalCPU
			s.TotalCPU = Ticks(n.totalCPU * 1000)
		}
		if n.total > self+n.children {
			d.rest = i
		}
	} else {
		if n.Hits <= 0 {
			return nil
		}
		s.Count = n.Hits
		if t.hits > 0 && t.hitsCPU > 0 {
			// The thread's CPU time, shared among its RUNNABLE hits.
			s.Weight = Ticks(min(scale(uint64(n.Hits), uint64(t.hitsCPU), uint64(t.hits)), maxNanos))
		}
	}
	s.Stack.Methods, s.Stack.Lines = s.Stack.Methods[:0], s.Stack.Lines[:0]
	d.path(s, i)
	return s
}

// unprofiledSample is the time a node's method spent in callees the
// snapshot did not profile: its cumulated time less its own and its
// profiled calls', under it in the call tree.
func (d *ProfilerJDecoder) unprofiledSample(i int32) Event {
	n := d.snap.nodes[i]
	rest := n.total - n.MethodElapsed - n.children
	t := &d.threads[d.ofRow[n.thread]]
	s := &d.sample
	*s = Sample{ThreadIDRef: t.id, Time: d.at, Flags: SampleCalls | SampleAggregate | SampleUnprofiled | SampleTotal,
		Weight: Ticks(rest * 1000), Total: Ticks(rest * 1000), Stack: s.Stack}
	s.Stack.Methods, s.Stack.Lines = append(s.Stack.Methods[:0], UnprofiledFrame), append(s.Stack.Lines[:0], 0)
	d.path(s, i)
	return s
}

// path appends a node's path to a sample's stack, innermost first.
func (d *ProfilerJDecoder) path(s *Sample, i int32) {
	for ; i >= 0; i = d.snap.nodes[i].parent {
		s.Stack.Methods = append(s.Stack.Methods, d.snap.nodes[i].frame)
		s.Stack.Lines = append(s.Stack.Lines, 0)
	}
}

// footprintText writes footprints as ProfilerJ does: blank-separated.
func (d *ProfilerJDecoder) footprintText(f []int64) string {
	d.text = d.text[:0]
	for i, v := range f {
		if i > 0 {
			d.text = append(d.text, ' ')
		}
		d.text = strconv.AppendInt(d.text, v, 10)
	}
	return string(d.text)
}
