package client

import (
	"context"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proftop/proftop/protocol"
)

// heapPeak samples the heap in use while f runs and returns its peak.
func heapPeak(f func()) uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	return peak.Load()
}

// A peer that sends trace data before it answers a command gets one
// frame limit's worth held (16 MiB), then a clear error: 64 MiB sent
// leave the heap under 48 MiB.
func TestEarlyDataIsBounded(t *testing.T) {
	port := fakeController(t, func(c net.Conn) {
		fr, fw := protocol.NewFrameReader(c, 0), protocol.NewFrameWriter(c, 0)
		chunk := make([]byte, 1<<20)
		for {
			f, err := fr.Next()
			if err != nil {
				return
			}
			m, _ := protocol.ParseMessage(f.Payload)
			var body any
			switch m.Name {
			case "listAgents":
				body = &protocol.AgentList{Agents: []protocol.Agent{{ID: "1", PID: 7, Name: "flood"}}}
			case "attach":
				body = &protocol.Attached{AgentID: "1"}
			default:
				for range 64 { // no answer, only data
					if fw.WriteFrame(true, chunk) != nil {
						return
					}
				}
				time.Sleep(time.Second)
				return
			}
			p, _ := protocol.EncodeMessage("agent:1", "proftop", m.Ctxt, body)
			fw.WriteFrame(false, p)
		}
	})
	runtime.GC()
	var err error
	peak := heapPeak(func() {
		err = NewSession(Config{Host: "127.0.0.1", Port: port, NegotiationTimeout: time.Minute}).Run(context.Background())
	})
	if err == nil || !strings.Contains(err.Error(), "sent more than 16777216 bytes of trace data before its reply") {
		t.Fatalf("%v", err)
	}
	t.Logf("peak heap %d MiB: %v", peak>>20, err)
	if peak > 48<<20 {
		t.Fatalf("the heap reached %d MiB", peak>>20)
	}
}

// An error the profiler sends unasked (ctxt 0) ends the connection, and
// its reason is what the user sees: a refusal at once, or a drop later.
func TestProfilerEndsTheConnectionWithAReason(t *testing.T) {
	refusal := fakeController(t, func(c net.Conn) {
		p, _ := protocol.EncodeMessage("agentController", "proftop", 0,
			&protocol.ErrorReply{Code: protocol.CodeBusy, Message: "8 connections are waiting to authenticate"})
		protocol.NewFrameWriter(c, 0).WriteFrame(false, p)
		time.Sleep(200 * time.Millisecond)
	})
	err := NewSession(Config{Host: "127.0.0.1", Port: refusal}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ended the connection: BUSY: 8 connections are waiting to authenticate") {
		t.Fatalf("a refusal: %v", err)
	}

	drop := scriptedController(t, func(c net.Conn, fw *protocol.FrameWriter) {
		fw.WriteData([]byte("0TBF\x01\x00\x01\x01\x0c\x00\x00\x00"))
		p, _ := protocol.EncodeMessage("agent:1", "proftop", 0,
			&protocol.ErrorReply{Code: protocol.CodeTooSlow, Message: "the client fell more than 2 MiB behind the trace"})
		fw.WriteFrame(false, p)
		time.Sleep(200 * time.Millisecond)
	})
	err = NewSession(Config{Host: "127.0.0.1", Port: drop}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ended the connection: TOO_SLOW: the client fell more than 2 MiB behind") {
		t.Fatalf("a drop: %v", err)
	}
}

// An agent that serves another client refuses the authentication BUSY:
// the error says so, not that the token was wrong.
func TestBusyAgentIsNotATokenProblem(t *testing.T) {
	port := fakeController(t, func(c net.Conn) {
		fr, fw := protocol.NewFrameReader(c, 0), protocol.NewFrameWriter(c, 0)
		f, err := fr.Next()
		if err != nil {
			return
		}
		m, _ := protocol.ParseMessage(f.Payload)
		p, _ := protocol.EncodeMessage("agentController", "proftop", m.Ctxt,
			&protocol.ErrorReply{Code: protocol.CodeBusy, Message: "this JVM's proftop agent already serves a client; it serves one at a time"})
		fw.WriteFrame(false, p)
		time.Sleep(200 * time.Millisecond)
	})
	err := NewSession(Config{Host: "127.0.0.1", Port: port, Token: "s3cret"}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "refused: BUSY: this JVM's proftop agent already serves a client") || strings.Contains(err.Error(), "token") {
		t.Fatalf("%v", err)
	}
}
