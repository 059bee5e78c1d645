package decode

import (
	"errors"
	"fmt"
)

// The rbkit wire format (protocol "2.1"): every PUB frame is one msgpack
// map {0: 7 event_collection, 1: ts, 9: counter, 2: [events]}; the
// handshake reply is {0: 8, 1: ts, 2: {string keys}}. Keys are small
// integers of any width, in any order; nil stands for an absent value.

// Message and event types.
const (
	rbkitObjCreated      = 0
	rbkitObjDestroyed    = 1
	rbkitGCStart         = 2
	rbkitGCEndMark       = 3
	rbkitGCEndSweep      = 4
	rbkitObjectSpaceDump = 5
	rbkitGCStats         = 6
	rbkitEventCollection = 7
	rbkitHandshake       = 8
	rbkitCPUSample       = 9
)

// Field keys.
const (
	rbkitKeyType        = 0
	rbkitKeyTime        = 1
	rbkitKeyPayload     = 2
	rbkitKeyObjectID    = 3
	rbkitKeyClass       = 4
	rbkitKeyFile        = 6
	rbkitKeyLine        = 7
	rbkitKeySize        = 8
	rbkitKeyCounter     = 9
	rbkitKeyCorrelation = 10
	rbkitKeyTotal       = 11
	rbkitKeyMethod      = 12
	rbkitKeyLabel       = 13
	rbkitKeyThread      = 15
)

var rbkitEventNames = map[int64]string{
	rbkitObjCreated: "obj_created", rbkitObjDestroyed: "obj_destroyed", rbkitGCStart: "gc_start",
	rbkitGCEndMark: "gc_end_m", rbkitGCEndSweep: "gc_end_s", rbkitObjectSpaceDump: "object_space_dump",
	rbkitGCStats: "gc_stats", rbkitEventCollection: "event_collection", rbkitHandshake: "handshake",
	rbkitCPUSample: "cpu_sample",
}

func rbkitEventName(t int64) string {
	if n, ok := rbkitEventNames[t]; ok {
		return n
	}
	return fmt.Sprintf("type %d", t)
}

// RbkitHandshake is the reply to rbkit's "handshake" command: who the
// profiled process is and what the server is doing.
type RbkitHandshake struct {
	ServerVersion   string `json:"rbkitServerVersion"`
	ProtocolVersion string `json:"rbkitProtocolVersion"`
	ProcessName     string `json:"processName"`
	Pwd             string `json:"pwd"`
	PID             int64  `json:"pid"`
	ObjectTrace     bool   `json:"objectTraceEnabled"`  // memory profiling is on
	CPUProfiling    bool   `json:"cpuProfilingEnabled"` // CPU sampling is on
	Clock           string `json:"clockType"`           // "cpu" or "wall"
	Mode            string `json:"cpuProfilingMode"`    // "sampling"
}

// RbkitProtocol is the protocol version proftop speaks.
const RbkitProtocol = "2.1"

// The parsed content of one frame, before it becomes events. A frame is
// parsed whole first, so that a malformed one changes nothing.

type rbFrame struct {
	label, method, file string
	line                int64
	thread              int64
}

type rbObject struct {
	id          int64
	class, file string
	line        int64
	hasLine     bool
	size        int64 // -1: unknown
}

type rbStat struct {
	key   string
	value int64
}

type rbEvent struct {
	typ         int64
	ts          float64
	hasTS       bool
	obj         rbObject
	first, n    int // its frames, objects or stats in the message's buffers
	corr, total int64
}

type rbMessage struct {
	typ        int64
	ts         float64
	counter    int64
	hasCounter bool
	events     []rbEvent
	frames     []rbFrame
	objects    []rbObject
	stats      []rbStat
	handshake  RbkitHandshake
}

func (m *rbMessage) reset() {
	m.typ, m.ts, m.counter, m.hasCounter = -1, 0, 0, false
	m.events, m.frames, m.objects, m.stats = m.events[:0], m.frames[:0], m.objects[:0], m.stats[:0]
	m.handshake = RbkitHandshake{}
}

// errNoType is a frame without its message type.
var errNoType = errors.New("no message type (key 0)")

// parse reads one checked frame into m.
func (rr *rbkitReader) parse(b []byte, m *rbMessage) error {
	m.reset()
	rr.reset(b)
	n, err := rr.mapLen()
	if err != nil {
		return fmt.Errorf("the frame: %w", err)
	}
	payload := -1
	for range n {
		k, ok, err := rr.key()
		if err != nil {
			return err
		}
		if !ok {
			if err := rr.skip(); err != nil {
				return err
			}
			continue
		}
		switch k {
		case rbkitKeyType:
			m.typ, ok, err = rr.int()
			if err == nil && !ok {
				m.typ = -1
			}
		case rbkitKeyTime:
			m.ts, _, err = rr.float()
		case rbkitKeyCounter:
			m.counter, m.hasCounter, err = rr.int()
		case rbkitKeyPayload:
			payload = rr.pos()
			err = rr.skip()
		default:
			err = rr.skip()
		}
		if err != nil {
			return fmt.Errorf("key %d: %w", k, err)
		}
	}
	if m.typ < 0 {
		return errNoType
	}
	if payload < 0 {
		return nil
	}
	rr.seek(payload)
	switch m.typ {
	case rbkitEventCollection:
		return rr.parseEvents(m)
	case rbkitHandshake:
		return rr.parseHandshake(&m.handshake)
	}
	return fmt.Errorf("unknown message type %d", m.typ)
}

func (rr *rbkitReader) parseEvents(m *rbMessage) error {
	n, err := rr.arrayLen()
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	for i := range n {
		if err := rr.parseEvent(m); err != nil {
			what := "?"
			if len(m.events) > i {
				what = rbkitEventName(m.events[i].typ)
			}
			return fmt.Errorf("event %d (%s): %w", i, what, err)
		}
	}
	return nil
}

func (rr *rbkitReader) parseEvent(m *rbMessage) error {
	m.events = append(m.events, rbEvent{typ: -1})
	ev := &m.events[len(m.events)-1]
	n, err := rr.mapLen()
	if err != nil {
		return err
	}
	payload := -1
	for range n {
		k, ok, err := rr.key()
		if err != nil {
			return err
		}
		if !ok {
			if err := rr.skip(); err != nil {
				return err
			}
			continue
		}
		switch k {
		case rbkitKeyType:
			ev.typ, ok, err = rr.int()
			if err == nil && !ok {
				ev.typ = -1
			}
		case rbkitKeyTime:
			ev.ts, ev.hasTS, err = rr.float()
		case rbkitKeyCorrelation:
			ev.corr, _, err = rr.int()
		case rbkitKeyTotal:
			ev.total, _, err = rr.int()
		case rbkitKeyPayload:
			payload = rr.pos()
			err = rr.skip()
		default:
			err = rr.skip()
		}
		if err != nil {
			return fmt.Errorf("key %d: %w", k, err)
		}
	}
	if ev.typ < 0 {
		return errNoType
	}
	if payload < 0 {
		return nil
	}
	end := rr.pos()
	rr.seek(payload)
	switch ev.typ {
	case rbkitObjCreated, rbkitObjDestroyed:
		err = rr.parseObject(&ev.obj)
	case rbkitCPUSample:
		ev.first = len(m.frames)
		err = rr.parseFrames(m)
		ev.n = len(m.frames) - ev.first
	case rbkitObjectSpaceDump:
		ev.first = len(m.objects)
		err = rr.parseObjects(m)
		ev.n = len(m.objects) - ev.first
	case rbkitGCStats:
		ev.first = len(m.stats)
		err = rr.parseStats(m)
		ev.n = len(m.stats) - ev.first
	}
	if err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	rr.seek(end)
	return nil
}

// parseObject reads {3 id, 4 class, 6 file, 7 line, 8 size}; every field
// may be nil.
func (rr *rbkitReader) parseObject(o *rbObject) error {
	*o = rbObject{size: -1}
	n, err := rr.mapLen()
	if err != nil {
		return err
	}
	for range n {
		k, ok, err := rr.key()
		if err != nil {
			return err
		}
		if !ok {
			if err := rr.skip(); err != nil {
				return err
			}
			continue
		}
		switch k {
		case rbkitKeyObjectID:
			o.id, _, err = rr.int()
		case rbkitKeyClass:
			o.class, _, err = rr.str()
		case rbkitKeyFile:
			o.file, _, err = rr.str()
		case rbkitKeyLine:
			o.line, o.hasLine, err = rr.int()
		case rbkitKeySize:
			var ok bool
			o.size, ok, err = rr.int()
			if !ok {
				o.size = -1
			}
		default:
			err = rr.skip()
		}
		if err != nil {
			return fmt.Errorf("key %d: %w", k, err)
		}
	}
	return nil
}

func (rr *rbkitReader) parseObjects(m *rbMessage) error {
	n, err := rr.arrayLen()
	if err != nil {
		return err
	}
	for i := range n {
		m.objects = append(m.objects, rbObject{})
		if err := rr.parseObject(&m.objects[len(m.objects)-1]); err != nil {
			return fmt.Errorf("object %d: %w", i, err)
		}
	}
	return nil
}

// parseFrames reads a sample's stack, innermost first:
// {12 method, 13 label, 6 file, 7 line, 14 singleton, 15 thread}.
func (rr *rbkitReader) parseFrames(m *rbMessage) error {
	n, err := rr.arrayLen()
	if err != nil {
		return err
	}
	for i := range n {
		m.frames = append(m.frames, rbFrame{})
		f := &m.frames[len(m.frames)-1]
		fields, err := rr.mapLen()
		if err != nil {
			return fmt.Errorf("frame %d: %w", i, err)
		}
		for range fields {
			k, ok, err := rr.key()
			if err != nil {
				return fmt.Errorf("frame %d: %w", i, err)
			}
			if !ok {
				if err := rr.skip(); err != nil {
					return fmt.Errorf("frame %d: %w", i, err)
				}
				continue
			}
			switch k {
			case rbkitKeyMethod:
				f.method, _, err = rr.str()
			case rbkitKeyLabel:
				f.label, _, err = rr.str()
			case rbkitKeyFile:
				f.file, _, err = rr.str()
			case rbkitKeyLine:
				f.line, _, err = rr.int()
			case rbkitKeyThread:
				f.thread, _, err = rr.int()
			default:
				err = rr.skip()
			}
			if err != nil {
				return fmt.Errorf("frame %d: key %d: %w", i, k, err)
			}
		}
	}
	return nil
}

// parseStats reads gc_stats: a map with string keys and integer values.
// Values of other types are passed over: a later Ruby may add them.
func (rr *rbkitReader) parseStats(m *rbMessage) error {
	n, err := rr.mapLen()
	if err != nil {
		return err
	}
	for range n {
		key, ok, err := rr.str()
		if err != nil || !ok {
			if err := rr.skip(); err != nil {
				return err
			}
			continue
		}
		if !isIntCode(rr.code()) {
			if err := rr.skip(); err != nil {
				return err
			}
			continue
		}
		v, _, err := rr.int()
		if err != nil {
			return fmt.Errorf("%s: %w", quoteDetail(key), err)
		}
		m.stats = append(m.stats, rbStat{key: key, value: v})
	}
	return nil
}

// parseHandshake reads the handshake's string-keyed map.
func (rr *rbkitReader) parseHandshake(h *RbkitHandshake) error {
	n, err := rr.mapLen()
	if err != nil {
		return fmt.Errorf("handshake: %w", err)
	}
	for range n {
		key, ok, err := rr.str()
		if err != nil || !ok {
			if err := rr.skip(); err != nil {
				return err
			}
			continue
		}
		var v int64
		switch key {
		case "rbkit_server_version":
			h.ServerVersion, _, err = rr.str()
		case "rbkit_protocol_version":
			h.ProtocolVersion, _, err = rr.str()
		case "process_name":
			h.ProcessName, _, err = rr.str()
		case "pwd":
			h.Pwd, _, err = rr.str()
		case "pid":
			h.PID, _, err = rr.int()
		case "object_trace_enabled":
			v, _, err = rr.flag()
			h.ObjectTrace = v != 0
		case "cpu_profiling_enabled":
			v, _, err = rr.flag()
			h.CPUProfiling = v != 0
		case "clock_type":
			h.Clock, _, err = rr.str()
		case "cpu_profiling_mode":
			h.Mode, _, err = rr.str()
		default:
			err = rr.skip()
		}
		if err != nil {
			return fmt.Errorf("handshake: %s: %w", quoteDetail(key), err)
		}
	}
	return nil
}

// flag reads 0/1, or a boolean.
func (rr *rbkitReader) flag() (int64, bool, error) {
	switch rr.code() {
	case 0xc2:
		return 0, true, rr.skip()
	case 0xc3:
		return 1, true, rr.skip()
	}
	return rr.int()
}
