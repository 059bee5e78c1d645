package protocol

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestFramesRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	fw := NewFrameWriter(&buf, 100)
	if err := fw.WriteFrame(false, []byte("<Cmd/>")); err != nil {
		t.Fatal(err)
	}
	if err := fw.WriteData(bytes.Repeat([]byte("d"), 250)); err != nil {
		t.Fatal(err)
	}
	fw.WriteFrame(true, nil)
	if err := fw.WriteFrame(false, make([]byte, 101)); err == nil {
		t.Fatal("an oversized frame was written")
	}
	fr := NewFrameReader(iotest.OneByteReader(&buf), 100)
	var got []string
	for {
		f, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kind := "c"
		if f.Data {
			kind = "d"
		}
		got = append(got, kind+":"+string(f.Payload[:min(3, len(f.Payload))])+":"+strings.Repeat("+", len(f.Payload)/50))
	}
	want := []string{"c:<Cm:", "d:ddd:++", "d:ddd:++", "d:ddd:+", "d::"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestMalformedFramesAreNamed(t *testing.T) {
	for _, tc := range []struct {
		name, input, want string
	}{
		{"bad magic", "HTTP/1.1 200 OK\r\n", `bad frame magic "HTTP" (0x48545450)`},
		{"reserved flags", "PTAC\x00\x00\x01\x01\x00\x00\x00\x00", "reserved frame flag bits set: 0x00000101"},
		{"oversized", "PTAC\x00\x00\x00\x00\x01\x00\x00\x01", "frame payload of 16777217 bytes exceeds the limit of 16777216"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewFrameReader(strings.NewReader(tc.input), 0).Next()
			var pe *Error
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "at byte 0") {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	_, err := NewFrameReader(strings.NewReader("PTAC\x00\x00\x00\x01\x00\x00\x00\x10abc"), 0).Next()
	if err != io.ErrUnexpectedEOF {
		t.Fatalf("cut frame: %v", err)
	}
}

func TestMessagesRoundTrip(t *testing.T) {
	payload, err := EncodeMessage(ClientName, ControllerName, 7, &AgentList{Agents: []Agent{{ID: "1", PID: 42, Name: `a "quoted" <name>`, Type: "Profiler", Version: "1.0"}}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseMessage(payload)
	if err != nil {
		t.Fatal(err)
	}
	var list AgentList
	if m.Src != ClientName || m.Dest != ControllerName || m.Ctxt != 7 || m.Name != "agentList" || m.Decode(&list) != nil {
		t.Fatalf("%+v", m)
	}
	if len(list.Agents) != 1 || list.Agents[0].Name != `a "quoted" <name>` || list.Agents[0].PID != 42 {
		t.Fatalf("%+v", list)
	}
	e, _ := EncodeMessage(ControllerName, ClientName, 3, &ErrorReply{Code: CodeUnrecognizedCommand, Message: "unrecognized command <setOutputFormat>"})
	m, _ = ParseMessage(e)
	if er := m.AsError(); er == nil || er.Code != CodeUnrecognizedCommand || er.Message != "unrecognized command <setOutputFormat>" {
		t.Fatalf("%+v", er)
	}
}

func TestMalformedMessages(t *testing.T) {
	for _, bad := range []string{"", "not xml", "<Cmd ctxt='x'><a/></Cmd>", "<Cmd ctxt='1'></Cmd>", "<Other ctxt='1'><a/></Other>", "<Cmd ctxt='1'><a><b></a></Cmd>"} {
		if _, err := ParseMessage([]byte(bad)); !errors.Is(err, ErrNotACommand) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzFrameReader(f *testing.F) {
	f.Add([]byte("PTAC\x00\x00\x00\x00\x00\x00\x00\x06<Cmd/>PTAC\x00\x00\x00\x01\x00\x00\x00\x02ab"))
	f.Add([]byte("PTAC\x00\x00\x00\x01\xff\xff\xff\xff"))
	f.Add(frameStream(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := NewFrameReader(bytes.NewReader(data), 1<<16)
		for range 1000 {
			fm, err := fr.Next()
			if err != nil {
				break
			}
			if !fm.Data {
				ParseMessage(fm.Payload) // must not panic
			}
		}
		// A buffer, large or smaller than the frames, changes nothing.
		want := frames(NewFrameReader(bytes.NewReader(data), 1<<16))
		for _, size := range []int{16, 64 << 10} {
			if got := frames(NewBufferedFrameReader(iotest.HalfReader(bytes.NewReader(data)), 1<<16, size)); !reflect.DeepEqual(got, want) {
				t.Fatalf("buffer of %d:\n got %v\nwant %v", size, got, want)
			}
		}
	})
}

func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{
		`<Cmd src="proftop" dest="agent:1" ctxt="3"><setOutputFormat><format>binary</format></setOutputFormat></Cmd>`,
		`<Cmd src="a" dest="b" ctxt="1"><error code="X">m</error></Cmd>`,
		`<Cmd ctxt="9"><agentList><agent id="1" pid="2"/></agentList></Cmd>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMessage(data)
		if err != nil {
			return
		}
		var list AgentList
		m.Decode(&list)
		m.AsError()
	})
}
