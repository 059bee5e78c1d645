package decode

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unsafe"
)

// proftop's convention for custom messages (docs/protocol.md, section 8):
// a custom body
//
//	proftop:NAME/1?ATTRIBUTE=VALUE&ATTRIBUTE=VALUE…
//
// carries the message NAME (telemetrySeries, telemetryValue,
// telemetryProblem, probe) with its attributes as a URL query: each
// attribute under its name, its value written as in the XML encoding
// (times and durations in decimal seconds, numbers in decimal) and
// percent-encoded; a stack as repeated frame=METHOD:LINE, innermost first.
// The body is the same in both encodings, so that any agent that can send
// a custom message can publish series, whatever the format negotiated.
// Decoders turn a recognised body into its event; a body that does not
// start with the prefix stays a Custom event.

// ConventionPrefix starts every custom body in proftop's convention.
const ConventionPrefix = "proftop:"

// conventionVersion is the only version of the convention; a later one
// adds attributes, which readers of this one skip.
const conventionVersion = "1"

// Bounds on what a peer may declare in one body: anything larger is
// refused, whatever the stream's message size limit.
const (
	maxConventionBody   = 64 << 10
	maxSeriesName       = 256
	maxConventionString = 4096
	maxConventionFrames = 256
)

// The kinds of convention failure; a *ConventionError wraps one of them.
var (
	ErrConventionUnknown = errors.New("unknown message of proftop's custom convention")
	ErrConventionVersion = errors.New("unsupported version of proftop's custom convention")
	ErrConventionSize    = errors.New("custom body larger than proftop's convention allows")
	ErrConventionSyntax  = errors.New("custom body is not a query string")
	ErrConventionValue   = errors.New("invalid value in a custom body")
)

// ConventionError says what was wrong with a custom body that claims
// proftop's convention: which message and which attribute, and what was
// found. A decoder wraps it in an *Error that gives the place.
type ConventionError struct {
	Err       error  // one of the ErrConvention* values
	Message   string // the convention's message name, "" when it could not be told
	Attribute string // the attribute at fault, "" when the whole body is
	Detail    string
}

func (e *ConventionError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Attribute != "" {
		b.WriteString(": attribute " + e.Attribute)
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}

func (e *ConventionError) Unwrap() error { return e.Err }

// IsConvention says whether a custom body claims proftop's convention.
func IsConvention(body string) bool { return strings.HasPrefix(body, ConventionPrefix) }

// fromCustom turns a custom message in proftop's convention into its
// event, filled into the decoder's flyweight of that kind; any other
// custom message is returned as it is.
func fromCustom(c *Custom, clock Clock, events *[numKinds]Event, bases *[numKinds]unsafe.Pointer, in *interner) (Event, *ConventionError) {
	if !IsConvention(c.Body) {
		return c, nil
	}
	sp, query, cerr := conventionHead(c.Body)
	if cerr != nil {
		return nil, cerr
	}
	if err := parseConvention(sp, bases[sp.kind], query, clock, in); err != nil {
		return nil, err
	}
	return events[sp.kind], nil
}

// conventionHead reads "proftop:NAME/VERSION?" and returns the kind and the query.
func conventionHead(body string) (*kindSpec, string, *ConventionError) {
	if len(body) > maxConventionBody {
		return nil, "", &ConventionError{Err: ErrConventionSize, Detail: fmt.Sprintf("%d bytes, at most %d", len(body), maxConventionBody)}
	}
	rest := body[len(ConventionPrefix):]
	head, query, ok := strings.Cut(rest, "?")
	if !ok {
		return nil, "", &ConventionError{Err: ErrConventionSyntax, Detail: fmt.Sprintf("no '?' after %s", quoteDetail(ConventionPrefix+head))}
	}
	name, version, ok := strings.Cut(head, "/")
	sp := kindTable().byConvention[name]
	if sp == nil {
		return nil, "", &ConventionError{Err: ErrConventionUnknown, Detail: fmt.Sprintf("%s (known: telemetrySeries, telemetryValue, telemetryProblem, probe)", quoteDetail(name))}
	}
	if !ok || version != conventionVersion {
		return nil, "", &ConventionError{Err: ErrConventionVersion, Message: sp.name, Detail: fmt.Sprintf("version %s, this reader knows %s", quoteDetail(version), conventionVersion)}
	}
	return sp, query, nil
}

// parseConvention fills the struct at p from the query's attributes;
// absent ones take their defaults, unknown ones are skipped (a later
// version's), and each kind's own rules are checked last.
func parseConvention(sp *kindSpec, p unsafe.Pointer, query string, clock Clock, in *interner) *ConventionError {
	resetFields(sp, p)
	q, err := url.ParseQuery(query)
	if err != nil {
		return &ConventionError{Err: ErrConventionSyntax, Message: sp.name, Detail: err.Error()}
	}
	bad := func(attr, format string, args ...any) *ConventionError {
		return &ConventionError{Err: ErrConventionValue, Message: sp.name, Attribute: attr, Detail: fmt.Sprintf(format, args...)}
	}
	for i := range sp.fields {
		f := &sp.fields[i]
		if f.typ == fieldStack {
			if err := parseFrames(fieldAt[Stack](p, f.off), q["frame"], in); err != nil {
				err.Message = sp.name
				return err
			}
			continue
		}
		vs, ok := q[f.name]
		if !ok {
			continue
		}
		if len(vs) > 1 {
			return bad(f.name, "given %d times", len(vs))
		}
		v := vs[0]
		switch f.typ {
		case fieldLong:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return bad(f.name, "%s is not a 64-bit integer", quoteDetail(v))
			}
			*fieldAt[int64](p, f.off) = n
		case fieldInt:
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return bad(f.name, "%s is not a 32-bit integer", quoteDetail(v))
			}
			*fieldAt[int32](p, f.off) = int32(n)
		case fieldByte:
			n, err := strconv.ParseUint(v, 10, 8)
			if err != nil {
				return bad(f.name, "%s is not a byte", quoteDetail(v))
			}
			*fieldAt[byte](p, f.off) = byte(n)
		case fieldDouble:
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return bad(f.name, "%s is not a number", quoteDetail(v))
			}
			*fieldAt[float64](p, f.off) = x
		case fieldTicks:
			t, ok := clock.parseSeconds([]byte(v))
			if !ok {
				return bad(f.name, "%s is not decimal seconds", quoteDetail(v))
			}
			*fieldAt[Ticks](p, f.off) = t
		case fieldString:
			if len(v) > maxConventionString {
				return bad(f.name, "%d bytes, at most %d", len(v), maxConventionString)
			}
			*fieldAt[string](p, f.off) = in.bytes([]byte(v))
		}
	}
	if err := checkConvention(sp, p); err != nil {
		err.Message = sp.name
		return err
	}
	return nil
}

// parseFrames reads frame=METHOD:LINE values into a stack, innermost first.
func parseFrames(st *Stack, frames []string, in *interner) *ConventionError {
	if len(frames) > maxConventionFrames {
		return &ConventionError{Err: ErrConventionValue, Attribute: "frame", Detail: fmt.Sprintf("%d frames, at most %d", len(frames), maxConventionFrames)}
	}
	for i, fr := range frames {
		colon := strings.LastIndexByte(fr, ':')
		line, err := strconv.ParseInt(fr[colon+1:], 10, 64)
		if colon < 0 || err != nil {
			return &ConventionError{Err: ErrConventionValue, Attribute: "frame", Detail: fmt.Sprintf("frame %d, %s, is not METHOD:LINE", i+1, quoteDetail(fr))}
		}
		if len(fr) > maxConventionString {
			return &ConventionError{Err: ErrConventionValue, Attribute: "frame", Detail: fmt.Sprintf("frame %d: %d bytes, at most %d", i+1, len(fr), maxConventionString)}
		}
		st.Methods = append(st.Methods, in.bytes([]byte(fr[:colon])))
		st.Lines = append(st.Lines, line)
	}
	return nil
}

// checkConvention applies each kind's rules: what a chart or a table
// could not show sensibly is refused here, named.
func checkConvention(sp *kindSpec, p unsafe.Pointer) *ConventionError {
	bad := func(attr, format string, args ...any) *ConventionError {
		return &ConventionError{Err: ErrConventionValue, Attribute: attr, Detail: fmt.Sprintf(format, args...)}
	}
	switch sp.kind {
	case KindTelemetrySeries:
		s := (*TelemetrySeries)(p)
		switch {
		case s.Name == "":
			return bad("name", "empty: a series needs a name")
		case len(s.Name) > maxSeriesName:
			return bad("name", "%d bytes, at most %d", len(s.Name), maxSeriesName)
		case !knownUnit(s.Unit):
			return bad("unit", "%s is not one of %s", quoteDetail(s.Unit), strings.Join(Units(), ", "))
		case s.Divisor == 0:
			s.Divisor = 1 // absent
		case math.IsNaN(s.Divisor) || math.IsInf(s.Divisor, 0) || s.Divisor < 0:
			return bad("divisor", "%v: a divisor is a positive number", s.Divisor)
		}
	case KindTelemetryProblem:
		if (*TelemetryProblem)(p).Spec == "" {
			return bad("spec", "empty: a problem names the spec it is about")
		}
	case KindProbe:
		if (*Probe)(p).Name == "" {
			return bad("probe", "empty: a probe record names its probe")
		}
	}
	return nil
}

func knownUnit(u string) bool {
	for _, k := range Units() {
		if u == k {
			return true
		}
	}
	return false
}

// AppendConvention renders an event of a kind carried in custom messages
// as its custom body in proftop's convention; clock gives the stream's
// ticks per second (times are written in decimal seconds).
func AppendConvention(dst []byte, ev Event, clock Clock) ([]byte, error) {
	sp := specOf(ev.Kind())
	if !sp.custom {
		return dst, fmt.Errorf("encode: %s is not carried in custom messages", sp.name)
	}
	p := sp.base(ev)
	dst = append(dst, ConventionPrefix...)
	dst = append(dst, sp.name...)
	dst = append(dst, '/')
	dst = append(dst, conventionVersion...)
	for i := range sp.fields {
		f := &sp.fields[i]
		sep := byte('?')
		if i > 0 {
			sep = '&'
		}
		if f.typ == fieldStack {
			st := fieldAt[Stack](p, f.off)
			if len(st.Methods) != len(st.Lines) {
				return dst, fmt.Errorf("encode: %s: stack has %d methods but %d lines", sp.name, len(st.Methods), len(st.Lines))
			}
			for j, m := range st.Methods {
				dst = append(dst, sep)
				sep = '&'
				dst = append(dst, "frame="...)
				dst = append(dst, url.QueryEscape(m+":"+strconv.FormatInt(st.Lines[j], 10))...)
			}
			continue
		}
		dst = append(dst, sep)
		dst = append(dst, f.name...)
		dst = append(dst, '=')
		switch f.typ {
		case fieldString:
			dst = append(dst, url.QueryEscape(*fieldAt[string](p, f.off))...)
		case fieldDouble:
			dst = strconv.AppendFloat(dst, *fieldAt[float64](p, f.off), 'f', -1, 64) // never an exponent: its '+' would read back as a space
		default:
			dst = appendNumber(dst, f, p, clock, true)
		}
	}
	return dst, nil
}

// ConventionBody renders an event carried in custom messages as the
// custom message that carries it.
func ConventionBody(ev Event, clock Clock) (*Custom, error) {
	b, err := AppendConvention(nil, ev, clock)
	if err != nil {
		return nil, err
	}
	return &Custom{Body: string(b)}, nil
}
