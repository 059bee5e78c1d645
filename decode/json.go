package decode

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/proftop/proftop/internal/textsafe"
)

// AppendJSON renders ev as one JSON object: "type" is the kind's element
// name and every attribute appears under its specification name, in wire
// order. Each "time" attribute is followed by "timeRFC3339", the same
// instant as RFC 3339 with nanoseconds, through clock. Attributes the kind
// does not define (XML only) go under "unknownAttributes".
func AppendJSON(dst []byte, ev Event, clock Clock, extra []Attr) []byte {
	sp := specOf(ev.Kind())
	dst = append(dst, `{"type":`...)
	dst = appendJSONString(dst, sp.name)
	if u, ok := ev.(*Unknown); ok {
		if u.Element != "" {
			dst = append(dst, `,"element":`...)
			dst = appendJSONString(dst, u.Element)
			extra = u.Attrs
		} else {
			dst = append(dst, `,"id":`...)
			dst = strconv.AppendUint(dst, uint64(u.ID), 10)
			dst = append(dst, `,"size":`...)
			dst = strconv.AppendUint(dst, uint64(u.Size), 10)
		}
	}
	p := sp.base(ev)
	for i := range sp.fields {
		f := &sp.fields[i]
		switch f.typ {
		case fieldString:
			dst = appendJSONKey(dst, f.name)
			dst = appendJSONString(dst, *fieldAt[string](p, f.off))
		case fieldStack:
			dst = appendJSONStack(dst, fieldAt[Stack](p, f.off))
		case fieldDouble:
			dst = appendJSONKey(dst, f.name)
			x := *fieldAt[float64](p, f.off)
			if math.IsNaN(x) || math.IsInf(x, 0) {
				dst = appendJSONString(dst, strconv.FormatFloat(x, 'g', -1, 64))
			} else {
				dst = strconv.AppendFloat(dst, x, 'g', -1, 64)
			}
		default:
			dst = appendJSONKey(dst, f.name)
			dst = appendNumber(dst, f, p, clock, false)
			if f.name == "time" {
				dst = appendJSONKey(dst, "timeRFC3339")
				dst = append(dst, '"')
				dst = clock.Time(*fieldAt[Ticks](p, f.off)).AppendFormat(dst, time.RFC3339Nano)
				dst = append(dst, '"')
			}
		}
	}
	if len(extra) > 0 {
		key := "unknownAttributes"
		if _, ok := ev.(*Unknown); ok {
			key = "attributes"
		}
		dst = appendJSONKey(dst, key)
		dst = append(dst, '{')
		for i, a := range extra {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, a.Name)
			dst = append(dst, ':')
			dst = appendJSONString(dst, a.Value)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func appendJSONStack(dst []byte, st *Stack) []byte {
	dst = appendJSONKey(dst, attrStackDepth)
	dst = strconv.AppendInt(dst, int64(len(st.Methods)), 10)
	dst = appendJSONKey(dst, attrStackMethods)
	dst = append(dst, '[')
	for i, m := range st.Methods {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, m)
	}
	dst = append(dst, ']')
	dst = appendJSONKey(dst, attrStackLines)
	dst = append(dst, '[')
	for i, l := range st.Lines {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, l, 10)
	}
	return append(dst, ']')
}

func appendJSONKey(dst []byte, key string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// appendJSONString quotes s as a JSON string. Bytes that are not UTF-8
// become U+FFFD, so the output is always valid JSON; C0 and C1 controls,
// bidirectional overrides and the like are escaped, so that a terminal
// showing it is safe.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c < 0x20 || c == 0x7f:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, `\ufffd`...)
		case textsafe.Dangerous(r):
			dst = textsafe.AppendEscape(dst, r)
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}
