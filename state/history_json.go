package state

import (
	"encoding/json"
	"fmt"
	"time"
)

// A history is written as JSON lines, one picture a line (a bundle's
// history.jsonl), and read back by replay: the picture is a snapshot as
// --json writes it.

// pictureJSON is a picture as one JSON line.
type pictureJSON struct {
	At    time.Time `json:"at"`
	Marks []string  `json:"marks,omitempty"`
	Held  int       `json:"heldUp"`
	Of    Kept      `json:"of"`
	Snap  *Snapshot `json:"picture"`
}

// MarshalJSON writes a picture without its call-tree weights, which only
// mean something to the aggregator that made them.
func (p *Picture) MarshalJSON() ([]byte, error) {
	return json.Marshal(pictureJSON{At: p.At, Marks: p.Marks.Names(), Held: p.Held, Of: p.Of, Snap: p.Snap})
}

// UnmarshalJSON reads a picture back.
func (p *Picture) UnmarshalJSON(b []byte) error {
	var j pictureJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if j.Snap == nil {
		return fmt.Errorf("a picture without its snapshot (\"picture\")")
	}
	if j.At.IsZero() {
		return fmt.Errorf("a picture without its time (\"at\")")
	}
	*p = Picture{At: j.At, Held: j.Held, Of: j.Of, Snap: j.Snap}
	for _, name := range j.Marks {
		switch name {
		case "deadlock":
			p.Marks |= MarkDeadlock
		case "gc":
			p.Marks |= MarkGC
		case "contention":
			p.Marks |= MarkContention
		}
	}
	p.Snap.picture, p.Snap.gen, p.Snap.keptOf = true, noGen, j.Of
	p.bytes = pictureBytes(p)
	return nil
}

// UnmarshalText reads a thread state by name.
func (s *ThreadState) UnmarshalText(b []byte) error {
	st, ok := parseThreadState(string(b))
	if !ok {
		return fmt.Errorf("unknown thread state %q", b)
	}
	*s = st
	return nil
}

// UnmarshalJSON reads a snapshot as MarshalJSON writes it: methods by
// name become rows with names of their own.
func (s *Snapshot) UnmarshalJSON(b []byte) error {
	type plain Snapshot
	aux := struct {
		*plain
		Methods  []NamedMethod  `json:"methods"`
		Monitors []namedMonitor `json:"monitors"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	s.Methods = make([]Method, len(aux.Methods))
	s.Names = make([]string, len(aux.Methods))
	for i, n := range aux.Methods {
		s.Methods[i], s.Names[i] = n.method(int32(i)), n.Name
		if n.CPU != nil {
			s.MethodCPU = true // a picture written before the flag was
		}
		if n.SinceStart != nil {
			if s.Since == nil {
				s.Since = make([]Method, len(aux.Methods))
			}
			f := n.SinceStart
			since := NamedMethod{Calls: f.Calls, Samples: f.Samples, TotalSamples: f.TotalSamples, Self: f.Self, Total: f.Total,
				Min: f.Min, Max: f.Max, CPU: f.CPU, OwnCPU: f.OwnCPU}
			s.Since[i] = since.method(int32(i))
			s.Since[i].Line = s.Methods[i].Line // the row's: not written twice
		}
	}
	s.Monitors = make([]Monitor, len(aux.Monitors))
	for i := range aux.Monitors {
		s.Monitors[i] = aux.Monitors[i].Monitor
	}
	s.HasObjects = len(s.Objects.Classes) > 0 || len(s.Objects.Census) > 0
	s.gen = noGen
	return nil
}

// method is the row a named method was made of, in slot.
func (n *NamedMethod) method(slot int32) Method {
	m := Method{Slot: slot, Line: n.Line, Calls: n.Calls, Samples: n.Samples, TotalSamples: n.TotalSamples, Sampler: n.Sampler,
		Total: -1, Min: time.Duration(n.Min), Max: time.Duration(n.Max)}
	if n.Self != nil {
		m.Self = time.Duration(*n.Self)
	}
	if n.Total != nil {
		m.Total = time.Duration(*n.Total)
	}
	if n.CPU != nil {
		m.CPU = time.Duration(*n.CPU)
	}
	if n.OwnCPU != nil {
		m.OwnCPU = time.Duration(*n.OwnCPU)
	}
	// Single calls were timed where JSON has their least or most (left
	// out, as zero, where they were not).
	m.Timed = n.Min > 0 || n.Max > 0
	return m
}
