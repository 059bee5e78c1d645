package decode

import (
	"errors"
	"fmt"
	"strings"
)

// The kinds of decoding failure. An *Error wraps exactly one of them, so
// callers test with errors.Is.
var (
	ErrBadMagic     = errors.New("bad magic (want \"0TBF\")")
	ErrVersion      = errors.New("unsupported major version")
	ErrDataOffset   = errors.New("offset to data below the 12-byte header")
	ErrByteOrder    = errors.New("endianness byte is neither 0 (big) nor 1 (little)")
	ErrMessageSize  = errors.New("message size below its 6-byte header")
	ErrTooLarge     = errors.New("message larger than the configured maximum")
	ErrPastEnd      = errors.New("message larger than the rest of the file")
	ErrShort        = errors.New("attribute runs past the message size")
	ErrNoNUL        = errors.New("string without its NUL terminator")
	ErrStackDepth   = errors.New("stackDepth larger than the message can hold")
	ErrTruncated    = errors.New("stream ends inside a message")
	ErrCharset      = errors.New("unusable charset")
	ErrSyntax       = errors.New("malformed XML")
	ErrValue        = errors.New("invalid value")
	ErrUnknownInput = errors.New("unrecognized stream format")
	ErrZipDamaged   = errors.New("zip archive cut short or damaged")
	ErrGzipDamaged  = errors.New("compressed data damaged")
	ErrTooShort     = errors.New("stream too short to tell its format")
	ErrNoWireForm   = errors.New("kind has no binary message")
)

// Error is a decoding failure with the place it happened.
type Error struct {
	Err       error  // one of the Err* values above
	Offset    int64  // stream offset of the offending byte, or of the message holding it
	MessageID uint16 // binary message id, 0 when not inside a message
	Element   string // event kind or XML element name, "" when none
	Field     string // attribute name, "" when the whole message is at fault
	Line      int    // XML line (1-based), 0 for binary streams
	Column    int    // XML column (1-based byte count), 0 for binary streams
	Entry     string // zip entry holding the stream, "" when not zipped
	Ordinal   int64  // which message (element) of the stream, from 1; 0 when not counted
	Detail    string // what was found, in a few words
	// Fatal says the decoder cannot go on: the stream's framing is lost. A
	// decoder returns a non-fatal error once, skips the bad message, and
	// continues with the next one.
	Fatal bool
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("decode: ")
	if e.Entry != "" {
		fmt.Fprintf(&b, "zip entry %q: ", e.Entry)
	}
	fmt.Fprintf(&b, "offset %d", e.Offset)
	if e.Line > 0 {
		fmt.Fprintf(&b, " (line %d, column %d)", e.Line, e.Column)
	}
	ordinal := ""
	if e.Ordinal > 0 {
		ordinal = fmt.Sprintf("#%d, ", e.Ordinal)
	}
	switch {
	case e.MessageID != 0 && e.Element != "":
		fmt.Fprintf(&b, ": message %sid %d (%s)", ordinal, e.MessageID, e.Element)
	case e.MessageID != 0:
		fmt.Fprintf(&b, ": message %sid %d", ordinal, e.MessageID)
	case e.Element != "" && e.Line > 0:
		fmt.Fprintf(&b, ": element %s<%s>", ordinal, e.Element)
	case e.Element != "":
		fmt.Fprintf(&b, ": %s%s", ordinal, e.Element) // a binary record, not an XML element
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": field %s", e.Field)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	if e.Detail != "" {
		fmt.Fprintf(&b, ": %s", e.Detail)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// MoreMayCome says the input ended where more bytes could still make it
// readable: inside a message, or before its format could be told. A file
// still being written is not refused for it: it is waited for.
func MoreMayCome(err error) bool {
	return errors.Is(err, ErrTruncated) || errors.Is(err, ErrTooShort)
}

// IsFatal reports whether err ends the stream: any error but a non-fatal
// *Error (one bad message that the decoder skipped).
func IsFatal(err error) bool {
	var de *Error
	if errors.As(err, &de) {
		return de.Fatal
	}
	return err != nil
}

// numberError gives a decoding error about a message the message's number
// in the stream, counting it.
func numberError(err error, ordinal *int64) {
	var de *Error
	if errors.As(err, &de) && de.Ordinal == 0 && (de.MessageID != 0 || de.Element != "") {
		*ordinal++
		de.Ordinal = *ordinal
	}
}
