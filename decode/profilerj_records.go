package decode

// The records of a ProfilerJ snapshot, one per element, in document order,
// under the format page's own names. A call-tree node has an id (document
// order, from 1) and its parent's (0 at the top of its thread's tree);
// attributes the element did not have are left out.

func (*ProfilerJThread) Type() string { return "thread" }
func (*ProfilerJNode) Type() string   { return "profile" }
func (*ProfilerJMemory) Type() string { return "memory" }
func (*ProfilerJClass) Type() string  { return "class" }
func (*ProfilerJMethod) Type() string { return "method" }

// some adds a number unless it is absent.
func (o *jsonObject) some(key string, v int64) {
	if v != absent {
		o.int(key, v)
	}
}

func (r *ProfilerJThread) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.str("section", r.Section)
	o.str("name", r.Name)
	o.some("cpuTime", r.CPUTime)
	if r.IsAlive != absent {
		o.bool("isAlive", r.IsAlive == 1)
	}
	o.some("cumulated", r.Cumulated)
	o.some("cumulatedElapsed", r.CumulatedElapsed)
	o.some("elapsedTime", r.ElapsedTime)
	return o.end()
}

func (r *ProfilerJNode) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.str("section", r.Section)
	o.int("id", r.ID)
	o.int("parent", r.Parent)
	o.str("thread", r.Thread)
	o.str("name", r.Name)
	if r.Section == sectionProfile {
		if r.Signature != "" {
			o.str("signature", r.Signature)
		}
		o.some("count", r.Count)
		o.some("cumulatedElapsed", r.CumulatedElapsed)
		o.some("cumulated", r.Cumulated)
		o.some("methodElapsed", r.MethodElapsed)
		o.some("method", r.Method)
		o.some("overheadCumulated", r.OverheadCumulated)
		o.some("overheadMethod", r.OverheadMethod)
		o.some("exceptions", r.Exceptions)
	} else {
		o.some("hits", r.Hits)
		o.some("elapsed", r.Elapsed)
		o.some("cumulated", r.SampleCumulated)
		o.some("cumulatedElapsed", r.SampleCumulatedElapsed)
	}
	return o.end()
}

func (r *ProfilerJMemory) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.str("section", sectionMemory)
	o.str("thread", r.Thread)
	o.str("class", r.Class)
	o.some("count", r.Count)
	o.some("max", r.Max)
	return o.end()
}

func (r *ProfilerJClass) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.str("section", sectionCoverage)
	o.str("name", r.Name)
	if r.Source != "" {
		o.str("source", r.Source)
	}
	return o.end()
}

func (r *ProfilerJMethod) AppendJSON(dst []byte) []byte {
	o := newJSONObject(dst, r.Type())
	o.str("section", sectionCoverage)
	o.str("class", r.Class)
	o.str("name", r.Name)
	if r.Signature != "" {
		o.str("signature", r.Signature)
	}
	o.some("firstline", r.FirstLine)
	o.some("count", r.Count)
	o.ints("footprints", r.Footprints)
	return o.end()
}
