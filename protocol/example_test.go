package protocol

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/proftop/proftop/decode"
)

// The worked example of docs/protocol.md must be what the code sends: every
// envelope's length, every command re-encoded byte for byte, and the data
// frame's trace bytes.
func TestWorkedExampleMatchesTheEncoder(t *testing.T) {
	doc, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	text = text[strings.Index(text, "## 6."):]
	text = text[:strings.Index(text, "The same session against")]
	lines := strings.Split(text, "\n")
	checked := 0
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(line, "→ 50 54 41 43") && !strings.HasPrefix(line, "← 50 54 41 43") {
			continue
		}
		fields := strings.Fields(line)[1:]
		if len(fields) < 12 || strings.Contains(line, "…") {
			continue // "more data frames"
		}
		env, err := hex.DecodeString(strings.Join(fields[:12], ""))
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		flags, length := binary.BigEndian.Uint32(env[4:]), binary.BigEndian.Uint32(env[8:])
		if flags == FlagData {
			// Hex lines up to the next arrow; text after a wide gap is commentary.
			var payload []byte
			for j := i + 1; j < len(lines) && !strings.ContainsAny(strings.TrimSpace(lines[j])[:min(3, len(strings.TrimSpace(lines[j])))], "→←"); j++ {
				part := strings.SplitN(strings.TrimSpace(lines[j]), "   ", 2)[0]
				b, err := hex.DecodeString(strings.ReplaceAll(part, " ", ""))
				if err == nil {
					payload = append(payload, b...)
				}
			}
			if uint32(len(payload)) != length {
				t.Fatalf("data frame: envelope says %d bytes, example shows %d", length, len(payload))
			}
			var want bytes.Buffer
			enc := decode.NewEncoder(&want, decode.EncoderOptions{})
			enc.Encode(&decode.Custom{Body: "com.acme.shop"})
			enc.Flush()
			if !bytes.Equal(payload, want.Bytes()) {
				t.Fatalf("data frame payload\n% x\nencoder writes\n% x", payload, want.Bytes())
			}
			checked++
			continue
		}
		payload := []byte(strings.TrimSpace(lines[i+1]))
		if uint32(len(payload)) != length {
			t.Errorf("%s: envelope says %d (0x%x) bytes, payload has %d (0x%x)", payload, length, length, len(payload), len(payload))
		}
		m, err := ParseMessage(payload)
		if err != nil {
			t.Fatal(err)
		}
		body := messageTypes[m.Name]
		if body == nil {
			t.Fatalf("no type for <%s>", m.Name)
		}
		v := body()
		if err := m.Decode(v); err != nil {
			t.Fatal(err)
		}
		again, err := EncodeMessage(m.Src, m.Dest, m.Ctxt, v)
		if err != nil || !bytes.Equal(again, payload) {
			t.Errorf("re-encoded\n%s\nexample\n%s", again, payload)
		}
		checked++
	}
	if checked != 13 {
		t.Fatalf("checked %d frames of the example, want 13", checked)
	}
}

var messageTypes = map[string]func() any{
	"listAgents":          func() any { return &ListAgents{} },
	"agentList":           func() any { return &AgentList{} },
	"attach":              func() any { return &Attach{} },
	"attached":            func() any { return &Attached{} },
	"setOutputFormat":     func() any { return &SetOutputFormat{} },
	"enabledOutputFormat": func() any { return &EnabledOutputFormat{} },
	"startMonitoring":     func() any { return &StartMonitoring{} },
	"monitoringStarted":   func() any { return &MonitoringStarted{} },
	"stopMonitoring":      func() any { return &StopMonitoring{} },
	"monitoringStopped":   func() any { return &MonitoringStopped{} },
	"detach":              func() any { return &Detach{} },
	"detached":            func() any { return &Detached{} },
}
