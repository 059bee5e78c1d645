package protocol

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
)

// Endpoint names used in the src and dest attributes of a command.
const (
	ControllerName = "agentController"
	ClientName     = "proftop"
)

// AgentEndpoint names an agent as a command's destination.
func AgentEndpoint(id string) string { return "agent:" + id }

// Error codes a reply may carry.
const (
	CodeUnrecognizedCommand = "UNRECOGNIZED_COMMAND"
	CodeBadRequest          = "BAD_REQUEST"
	CodeNoSuchAgent         = "NO_SUCH_AGENT"
	CodeNotAttached         = "NOT_ATTACHED"
	CodeBusy                = "BUSY"
	CodeUnauthorized        = "UNAUTHORIZED"
	CodeUnsupportedFormat   = "UNSUPPORTED_FORMAT"
	CodeAgentFailure        = "AGENT_FAILURE"
	// CodeTooSlow ends, unasked (ctxt 0), the connection of a client that
	// fell further behind the trace than the agent queues.
	CodeTooSlow = "TOO_SLOW"
)

// The commands and replies; each is the single child of a <Cmd> envelope.
type (
	// Authenticate presents the controller's token; required first when the
	// controller was started with one.
	Authenticate struct {
		XMLName xml.Name `xml:"authenticate"`
		Token   string   `xml:"token,attr"`
	}
	// Authenticated admits the client. LastDrop, when present, says that
	// the controller dropped this user's previous connection unasked (the
	// reason it sent then may never have been read).
	Authenticated struct {
		XMLName  xml.Name `xml:"authenticated"`
		LastDrop *Drop    `xml:"lastDrop,omitempty"`
	}
	// Drop is why and when a connection was ended unasked: the error code
	// and message it was ended with, MsAgo milliseconds before this reply.
	Drop struct {
		Code    string `xml:"code,attr"`
		MsAgo   int64  `xml:"msAgo,attr"`
		Message string `xml:",chardata"`
	}
	ListAgents struct {
		XMLName xml.Name `xml:"listAgents"`
	}
	AgentList struct {
		XMLName xml.Name `xml:"agentList"`
		Agents  []Agent  `xml:"agent"`
	}
	Attach struct {
		XMLName xml.Name `xml:"attach"`
		AgentID string   `xml:"agentId,attr"`
	}
	Attached struct {
		XMLName xml.Name `xml:"attached"`
		AgentID string   `xml:"agentId,attr"`
	}
	// SetOutputFormat asks the agent for "binary" or "xml".
	SetOutputFormat struct {
		XMLName xml.Name `xml:"setOutputFormat"`
		Format  string   `xml:"format"`
	}
	// EnabledOutputFormat is the agent's answer: the format it will send.
	EnabledOutputFormat struct {
		XMLName xml.Name `xml:"enabledOutputFormat"`
		Format  string   `xml:"format"`
	}
	StartMonitoring struct {
		XMLName xml.Name `xml:"startMonitoring"`
	}
	MonitoringStarted struct {
		XMLName xml.Name `xml:"monitoringStarted"`
	}
	StopMonitoring struct {
		XMLName xml.Name `xml:"stopMonitoring"`
	}
	MonitoringStopped struct {
		XMLName xml.Name `xml:"monitoringStopped"`
	}
	Detach struct {
		XMLName xml.Name `xml:"detach"`
	}
	Detached struct {
		XMLName xml.Name `xml:"detached"`
	}
	// ErrorReply answers a command that failed.
	ErrorReply struct {
		XMLName xml.Name `xml:"error"`
		Code    string   `xml:"code,attr"`
		Message string   `xml:",chardata"`
	}
)

// Agent describes one profiling agent on a controller.
type Agent struct {
	ID      string `xml:"id,attr" json:"id"`
	PID     int    `xml:"pid,attr" json:"pid"`
	Name    string `xml:"name,attr" json:"name"`
	Type    string `xml:"type,attr" json:"type"`
	Version string `xml:"version,attr" json:"version"`
}

func (a Agent) String() string {
	return fmt.Sprintf("%s (pid %d, %s %s)", a.ID, a.PID, a.Name, a.Version)
}

func (e *ErrorReply) Error() string {
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Message is one command or reply: the <Cmd> envelope and its child.
type Message struct {
	Src  string
	Dest string
	Ctxt uint64
	Name string // the child element's name, e.g. "setOutputFormat"
	Body []byte // the child element, as received
}

// Decode unmarshals the child element into v (a pointer to one of the
// command types).
func (m *Message) Decode(v any) error {
	if err := xml.Unmarshal(m.Body, v); err != nil {
		return fmt.Errorf("command <%s>: %w", m.Name, err)
	}
	return nil
}

// AsError returns the reply as an *ErrorReply when it is one.
func (m *Message) AsError() *ErrorReply {
	if m.Name != "error" {
		return nil
	}
	var e ErrorReply
	if m.Decode(&e) != nil {
		return &ErrorReply{Code: CodeBadRequest, Message: "unreadable error reply"}
	}
	return &e
}

// EncodeMessage renders a command or reply in its envelope.
func EncodeMessage(src, dest string, ctxt uint64, body any) ([]byte, error) {
	inner, err := xml.Marshal(body)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`<Cmd src="`)
	xml.EscapeText(&b, []byte(src))
	b.WriteString(`" dest="`)
	xml.EscapeText(&b, []byte(dest))
	b.WriteString(`" ctxt="`)
	b.WriteString(strconv.FormatUint(ctxt, 10))
	b.WriteString(`">`)
	b.Write(inner)
	b.WriteString(`</Cmd>`)
	return b.Bytes(), nil
}

// ErrNotACommand is wrapped by ParseMessage's errors.
var ErrNotACommand = errors.New("malformed command")

// ParseMessage reads a control frame's payload.
func ParseMessage(payload []byte) (Message, error) {
	var env struct {
		XMLName xml.Name `xml:"Cmd"`
		Src     string   `xml:"src,attr"`
		Dest    string   `xml:"dest,attr"`
		Ctxt    string   `xml:"ctxt,attr"`
		Inner   []byte   `xml:",innerxml"`
	}
	if err := xml.Unmarshal(payload, &env); err != nil {
		return Message{}, fmt.Errorf("%w: %v (payload %s)", ErrNotACommand, err, preview(payload))
	}
	ctxt, err := strconv.ParseUint(env.Ctxt, 10, 64)
	if err != nil {
		return Message{}, fmt.Errorf("%w: ctxt %q is not a number", ErrNotACommand, env.Ctxt)
	}
	m := Message{Src: env.Src, Dest: env.Dest, Ctxt: ctxt}
	d := xml.NewDecoder(bytes.NewReader(env.Inner))
	for {
		tok, err := d.Token()
		if err != nil {
			return Message{}, fmt.Errorf("%w: <Cmd ctxt=%q> holds no command element", ErrNotACommand, env.Ctxt)
		}
		if se, ok := tok.(xml.StartElement); ok {
			m.Name = se.Name.Local
			start := d.InputOffset() - int64(len(startTagBytes(env.Inner, d.InputOffset())))
			if err := d.Skip(); err != nil {
				return Message{}, fmt.Errorf("%w: <%s>: %v", ErrNotACommand, m.Name, err)
			}
			m.Body = env.Inner[start:d.InputOffset()]
			return m, nil
		}
	}
}

// startTagBytes returns the start tag ending at offset end of b.
func startTagBytes(b []byte, end int64) []byte {
	i := bytes.LastIndexByte(b[:end], '<')
	if i < 0 {
		return b[:end]
	}
	return b[i:end]
}

func preview(b []byte) string {
	if len(b) > 60 {
		b = b[:60]
	}
	return strconv.Quote(string(b))
}
