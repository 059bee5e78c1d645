package decode

// interner returns one shared string per distinct name, so that the names a
// trace repeats endlessly (threads, classes, methods, stack frames) cost no
// allocation after their first appearance.
type interner struct {
	m     map[string]string
	limit int
}

// Strings longer than this are rare payloads (custom bodies), not names:
// they are copied, not kept.
const maxInternLen = 512

// The table is emptied when it holds this many strings, so that a stream of
// ever-new names cannot grow it without bound.
const defaultInternLimit = 1 << 17

func newInterner() *interner {
	return &interner{m: make(map[string]string, 1024), limit: defaultInternLimit}
}

func (in *interner) bytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > maxInternLen {
		return string(b)
	}
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	if len(in.m) >= in.limit {
		clear(in.m)
	}
	s := string(b)
	in.m[s] = s
	return s
}

// str is bytes for a string already made (an encoding/xml attribute).
func (in *interner) str(s string) string {
	if len(s) == 0 || len(s) > maxInternLen {
		return s
	}
	if v, ok := in.m[s]; ok {
		return v
	}
	if len(in.m) >= in.limit {
		clear(in.m)
	}
	in.m[s] = s
	return s
}
