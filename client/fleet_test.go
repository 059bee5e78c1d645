package client

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/simulator"
)

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		entry string
		want  Target
		label string
		err   string
	}{
		{"prod-1", Target{Host: "prod-1", Port: 10002}, "prod-1", ""},
		{" prod-1:10003 ", Target{Host: "prod-1", Port: 10003}, "prod-1:10003", ""},
		{"prod-1/billing", Target{Host: "prod-1", Port: 10002, Agent: "billing"}, "prod-1/billing", ""},
		{"10.0.0.7:10004/4242", Target{Host: "10.0.0.7", Port: 10004, Agent: "4242"}, "10.0.0.7:10004/4242", ""},
		{"[::1]:10005", Target{Host: "::1", Port: 10005}, "[::1]:10005", ""},
		{"[::1]", Target{Host: "::1", Port: 10002}, "[::1]", ""},
		{"fe80::1", Target{Host: "fe80::1", Port: 10002}, "[fe80::1]", ""},
		{"prod-1:http", Target{}, "", `"prod-1:http": port "http" is not a number from 1 to 65535`},
		{"prod-1:0", Target{}, "", `port "0"`},
		{"prod-1:", Target{}, "", `port ""`},
		{":10002", Target{}, "", "no host"},
		{"prod-1/", Target{}, "", "nothing after /"},
		{"[::1]x", Target{}, "", `"[::1]x"`},
		{"", Target{}, "", "no host"},
		{"127.0.0.1;12004", Target{}, "", `"127.0.0.1;12004": ';' cannot be in a host name or address (a ':' before the port?)`},
		{"prod_1.example.com", Target{Host: "prod_1.example.com", Port: 10002}, "prod_1.example.com", ""},
		{"fe80::1%eth0", Target{Host: "fe80::1%eth0", Port: 10002}, "[fe80::1%eth0]", ""},
		{"prod-1!", Target{}, "", `'!' cannot be in a host name`},
		{"app@prod-1", Target{}, "", `'@' cannot be in a host name`},
		{"fe80::1%veth+1", Target{Host: "fe80::1%veth+1", Port: 10002}, "[fe80::1%veth+1]", ""},
		{"bücher.example", Target{}, "", "xn-- form"},
	} {
		got, err := ParseTarget(tc.entry, 10002)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %q", tc.entry, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.entry, err)
		case got != tc.want || got.Label(10002) != tc.label:
			t.Errorf("%q: %+v labelled %q, want %+v labelled %q", tc.entry, got, got.Label(10002), tc.want, tc.label)
		}
	}
}

func closedPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// Each JVM of a fleet has its own connection: one that refuses and one
// that drops leave the others streaming.
func TestFleetMembersFailApart(t *testing.T) {
	_, steady := startSim(t, simulator.ServerConfig{Seed: 1}, "")
	dropping, drops := startSim(t, simulator.ServerConfig{Seed: 2}, "")
	refused := closedPort(t)
	targets := []Target{{Host: "127.0.0.1", Port: steady}, {Host: "127.0.0.1", Port: drops}, {Host: "127.0.0.1", Port: refused}}
	f := NewFleet(Config{Reconnect: true, ReconnectMin: 50 * time.Millisecond, ReconnectMax: 200 * time.Millisecond}, targets)
	if f.Len() != 3 || f.Label(0) != "127.0.0.1:"+strconv.Itoa(steady) {
		t.Fatalf("%d members, the first labelled %q", f.Len(), f.Label(0))
	}
	consumers := []*consumer{consume(f.Member(0), 0), consume(f.Member(1), 0), consume(f.Member(2), 0)}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- f.Run(ctx) }()
	state := func(i int) Status { return f.Statuses(nil)[i] }
	waitFor(t, "two streams and a refusal", 10*time.Second, func() bool {
		return consumers[0].total() > 1000 && consumers[1].total() > 1000 && state(2).State == StateReconnecting
	})
	if cause := state(2).Cause; !strings.Contains(cause, "connection refused by 127.0.0.1:"+strconv.Itoa(refused)) {
		t.Fatalf("the refused JVM says %q", cause)
	}
	dropping.Close()
	waitFor(t, "the drop to be noticed", 5*time.Second, func() bool { return state(1).State == StateReconnecting })
	if cause := state(1).Cause; !strings.Contains(cause, "127.0.0.1:"+strconv.Itoa(drops)) {
		t.Fatalf("the dropped JVM says %q", cause)
	}
	before := consumers[0].total()
	waitFor(t, "the steady JVM to go on", 5*time.Second, func() bool { return consumers[0].total() > before+1000 })
	if st := state(0); st.State != StateStreaming || st.Streams != 1 {
		t.Fatalf("the steady JVM: %+v", st)
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
	for _, c := range consumers {
		<-c.done // every member's batches end with Run
	}
}

// Without reconnecting, a fleet ends once every JVM has given up, each
// naming why.
func TestFleetGivesUpWithoutReconnect(t *testing.T) {
	a, b := closedPort(t), closedPort(t)
	f := NewFleet(Config{Port: a}, []Target{{Host: "127.0.0.1", Port: a}, {Host: "127.0.0.1", Port: b, Agent: "2"}})
	for i := range f.Len() {
		consume(f.Member(i), 0)
	}
	err := f.Run(context.Background())
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"127.0.0.1: connection refused by 127.0.0.1:" + strconv.Itoa(a),
		"127.0.0.1:" + strconv.Itoa(b) + "/2: connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}

// A fleet's connections hold less than one JVM's alone, unless told
// otherwise.
func TestConfigForFleet(t *testing.T) {
	for _, tc := range []struct {
		in                Config
		readBuffer, batch int
	}{
		{Config{}, 64 << 10, 1024},
		{Config{ReadBuffer: 1 << 20}, 1 << 20, 1024},
		{Config{BatchEvents: 4096}, 64 << 10, 4096},
	} {
		out := tc.in.ForFleet()
		if out.ReadBuffer != tc.readBuffer || out.BatchEvents != tc.batch {
			t.Errorf("%+v: read buffer %d, batches of %d; want %d, %d", tc.in, out.ReadBuffer, out.BatchEvents, tc.readBuffer, tc.batch)
		}
	}
}

// A session's batches stay within the configured size however fast the
// profiler sends: what a JVM costs is bounded by configuration.
func TestFleetMemberBatchesAreBounded(t *testing.T) {
	_, port := startSim(t, simulator.ServerConfig{Seed: 1, Saturate: true}, "")
	f := NewFleet(Config{BatchEvents: 100}, []Target{{Host: "127.0.0.1", Port: port}})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- f.Run(ctx) }()
	src := f.Member(0)
	defer func() {
		cancel()
		for b := range src.Batches() { // drained until Run ends
			src.Recycle(b)
		}
		<-ran
	}()
	// The consumer writes every event as JSON, slower than the decoder
	// reads them, so that the socket stays full and batches fill up.
	largest, full := 0, 0
	var text []byte
	waitFor(t, "full batches", 30*time.Second, func() bool {
		b := <-src.Batches()
		largest = max(largest, b.Len())
		if b.Len() == 100 {
			full++
		}
		for _, ev := range b.Events() {
			text = decode.AppendJSON(text[:0], ev, b.Clock, nil)
		}
		src.Recycle(b)
		return full >= 10
	})
	if largest > 100 {
		t.Fatalf("a batch of %d events, more than the 100 configured", largest)
	}
}
