package state

import "math"

// A method's figures are kept in two parts: those of measured calls
// (callFigures), which every method with calls has, three times (since the
// start, over the window's closed seconds, in the second being filled);
// and those of stack samples and of the CPU time a source says a method
// spent in itself (sampleFigures), which a source that measures calls
// seldom has. The second part is made for the methods that get any: a
// wide picture's 100,000 measured methods save 24 bytes three times each.
// figures, the two together, is what rows and buckets are made of.

// callFigures are the figures of measured calls: see figures.
type callFigures struct {
	calls, self, total, cpu int64
	min, max                int64
}

// sampleFigures are the figures of stack samples and the method's own
// CPU time: see figures.
type sampleFigures struct {
	samples, totalSamples int64
	ownCPU                int64
}

// methodSamples is a method's sampleFigures since the start, over the
// window's closed seconds and in the second being filled.
type methodSamples struct{ cum, win, cur sampleFigures }

// joinFigures puts the two parts together.
func joinFigures(c *callFigures, s *sampleFigures) figures {
	return figures{calls: c.calls, self: c.self, total: c.total, cpu: c.cpu, min: c.min, max: c.max,
		samples: s.samples, totalSamples: s.totalSamples, ownCPU: s.ownCPU}
}

func (f *callFigures) add(calls, self, total, min, max, cpu int64) {
	if f.calls == 0 {
		f.min, f.max = math.MaxInt64, -1
	}
	f.calls += calls
	f.self += self
	if total >= 0 {
		f.total += total
	}
	if cpu > 0 {
		f.cpu += cpu
	}
	if min >= 0 && min < f.min {
		f.min = min
	}
	if max > f.max {
		f.max = max
	}
}

// merge adds other figures.
func (f *callFigures) merge(o *callFigures) { f.add(o.calls, o.self, o.total, o.min, o.max, o.cpu) }

// addSampled adds the time stack samples stand for: self when the method
// was on top, total when it was anywhere.
func (f *callFigures) addSampled(self, total int64) {
	if f.calls == 0 {
		f.min, f.max = math.MaxInt64, -1
	}
	f.self += self
	f.total += total
}

func (s *sampleFigures) add(o sampleFigures) {
	s.samples += o.samples
	s.totalSamples += o.totalSamples
	s.ownCPU += o.ownCPU
}

// has says the samples part holds anything that makes the figures hold
// something (figures.has).
func (s *sampleFigures) has() bool { return s.samples > 0 || s.totalSamples > 0 }

// samplesOf is a method's sample figures; nil when it has none.
func (mt *methodTable) samplesOf(slot int32) *methodSamples {
	if i := mt.info.at(slot).samplesAt; i > 0 {
		return &mt.sampleFigs[i-1]
	}
	return nil
}

// samplesFor is a method's sample figures, made if need be.
func (mt *methodTable) samplesFor(slot int32) *methodSamples {
	in := mt.info.at(slot)
	if in.samplesAt == 0 {
		mt.sampleFigs = append(mt.sampleFigs, methodSamples{})
		in.samplesAt = int32(len(mt.sampleFigs))
	}
	return &mt.sampleFigs[in.samplesAt-1]
}

// cumOf is a method's figures since the start (or the latest reset).
func (mt *methodTable) cumOf(slot int32) figures {
	var s sampleFigures
	if ms := mt.samplesOf(slot); ms != nil {
		s = ms.cum
	}
	return joinFigures(&mt.stats.at(slot).cum, &s)
}

// cumHas says a method has figures since the start: it is listed.
func (mt *methodTable) cumHas(slot int32) bool {
	if mt.stats.at(slot).cum.calls > 0 {
		return true
	}
	ms := mt.samplesOf(slot)
	return ms != nil && ms.cum.has()
}

// curOf is a method's figures in the second being filled (it is touched).
func (mt *methodTable) curOf(slot int32) figures {
	var s sampleFigures
	if ms := mt.samplesOf(slot); ms != nil {
		s = ms.cur
	}
	return joinFigures(mt.curs.at(mt.info.at(slot).cur), &s)
}

// curHas says a touched method has figures in the second being filled.
func (mt *methodTable) curHas(slot int32) bool {
	if mt.curs.at(mt.info.at(slot).cur).calls > 0 {
		return true
	}
	ms := mt.samplesOf(slot)
	return ms != nil && ms.cur.has()
}

// winHas says a method has figures in the window's closed seconds.
func (mt *methodTable) winHas(slot int32) bool {
	if mt.info.at(slot).win.calls > 0 {
		return true
	}
	ms := mt.samplesOf(slot)
	return ms != nil && ms.win.has()
}
