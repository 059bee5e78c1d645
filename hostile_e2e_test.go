package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
	"github.com/proftop/proftop/protocol"
)

// The real binary against hostile profilers: whatever a peer sends,
// proftop's memory stays within what its bounds allow (peak RSS, from the
// kernel's own accounting of the process), it says what it left out, and
// nothing the peer wrote reaches the terminal raw.

// hostileController serves the protocol on a loopback port, answering
// every command, then hands the connection to stream after
// startMonitoring, and closes it once stream returns. answer, when set,
// may answer a command its own way (true: answered).
func hostileController(t *testing.T, answer func(m protocol.Message, fw *protocol.FrameWriter) bool, stream func(fw *protocol.FrameWriter)) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				go func() { <-done; c.Close() }()
				fr, fw := protocol.NewFrameReader(c, 0), protocol.NewFrameWriter(c, 0)
				for {
					f, err := fr.Next()
					if err != nil {
						return
					}
					m, _ := protocol.ParseMessage(f.Payload)
					if answer != nil && answer(m, fw) {
						continue
					}
					var body any
					switch m.Name {
					case "authenticate":
						body = &protocol.Authenticated{}
					case "listAgents":
						body = &protocol.AgentList{Agents: []protocol.Agent{{ID: "1", PID: 7, Name: "hostile", Type: "Profiler", Version: "6.6"}}}
					case "attach":
						body = &protocol.Attached{AgentID: "1"}
					case "setOutputFormat":
						body = &protocol.EnabledOutputFormat{Format: "binary"}
					case "startMonitoring":
						body = &protocol.MonitoringStarted{}
					}
					p, _ := protocol.EncodeMessage("agent:1", "proftop", m.Ctxt, body)
					fw.WriteFrame(false, p)
					if m.Name == "startMonitoring" && stream != nil {
						stream(fw)
						return
					}
				}
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// dataWriter turns writes into data frames.
type dataWriter struct{ fw *protocol.FrameWriter }

func (w dataWriter) Write(p []byte) (int, error) { return len(p), w.fw.WriteData(p) }

// encodeStream writes events made by next (nil: the end) as a binary trace.
func encodeStream(fw *protocol.FrameWriter, next func(i int) decode.Event) {
	enc := decode.NewEncoder(dataWriter{fw}, decode.EncoderOptions{})
	for i := 0; ; i++ {
		ev := next(i)
		if ev == nil {
			break
		}
		if enc.Encode(ev) != nil {
			return
		}
	}
	enc.Flush()
}

var (
	peakRSSOnce sync.Once
	peakRSSBin  string
	peakRSSErr  error
)

// runMeasured runs the binary and returns its output, exit status and
// peak resident set size in bytes, as the kernel counts it
// (testdata/peakrss says why through a small starter).
func runMeasured(t *testing.T, args ...string) (stdout, stderr string, code int, peakRSS int64) {
	t.Helper()
	peakRSSOnce.Do(func() {
		peakRSSBin = filepath.Join(filepath.Dir(proftopBin), "peakrss")
		if out, err := exec.Command("go", "build", "-o", peakRSSBin, "./testdata/peakrss").CombinedOutput(); err != nil {
			peakRSSErr = fmt.Errorf("building testdata/peakrss: %v\n%s", err, out)
		}
	})
	if peakRSSErr != nil {
		t.Fatal(peakRSSErr)
	}
	report := filepath.Join(t.TempDir(), "peak")
	cmd := exec.Command(peakRSSBin, append([]string{proftopBin}, args...)...)
	cmd.Env = append(os.Environ(), "PEAKRSS_OUT="+report)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no peak from peakrss: %v\n%s", err, errs.String())
	}
	peakRSS, _ = strconv.ParseInt(string(data), 10, 64)
	return out.String(), errs.String(), cmd.ProcessState.ExitCode(), peakRSS
}

// lastPicture decodes the last JSON snapshot of --batch --json output.
type picture struct {
	DecodeErrors int64
	Picture      struct {
		Threads    []struct{ Name string }
		Methods    []struct{ Name string }
		Monitors   []struct{ Object int64 }
		NotTracked struct{ Threads, Methods, Monitors int64 }
	}
}

func lastPicture(t *testing.T, out string) picture {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var p picture
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &p); err != nil {
		t.Fatalf("%v: %.300s", err, lines[len(lines)-1])
	}
	return p
}

const mib = 1 << 20

// Each bound against a peer that pushes it, with the peak RSS allowed
// (figures measured on the development machine in docs/performance.md):
// the methods' within the default soft limit (--memory-limit 512m).
func TestHostilePeersMemoryIsBounded(t *testing.T) {
	xmlFlood := func(fw *protocol.FrameWriter) {
		var b bytes.Buffer
		b.WriteString(decode.XMLPrologue + `<threadStart threadId="1" threadName="main" time="1"/>` + "\n<threadStart")
		for i := range 1_350_000 {
			fmt.Fprintf(&b, " a%06d='%d'", i, i%10)
		}
		b.WriteString(`/>` + "\n" + `<threadStart threadId="2" threadName="after" time="2"/>` + "\n")
		fw.WriteData(b.Bytes())
	}
	// A megabyte, to name things with.
	long := strings.Repeat("x", 1<<20)
	named := func(n int) string { return strconv.Itoa(n) + long }
	text := []string{"--batch", "--refresh", "10s"}
	for _, tc := range []struct {
		name   string
		answer func(protocol.Message, *protocol.FrameWriter) bool
		stream func(fw *protocol.FrameWriter)
		args   []string // the output asked for, when not --batch --json until the peer closes
		limit  int64
		check  func(t *testing.T, out, errs string, code int)
	}{
		{"data before the replies", func(m protocol.Message, fw *protocol.FrameWriter) bool {
			if m.Name != "setOutputFormat" {
				return false
			}
			chunk := make([]byte, 1<<20)
			for range 2048 { // 2 GiB, unless proftop gives up first
				if fw.WriteFrame(true, chunk) != nil {
					break
				}
			}
			return true
		}, nil, nil, 96 * mib, func(t *testing.T, out, errs string, code int) {
			if code != 1 || !strings.Contains(errs, "sent more than 16777216 bytes of trace data before its reply") {
				t.Fatalf("exit %d: %s", code, errs)
			}
		}},
		{"300,000 threads", nil, func(fw *protocol.FrameWriter) {
			encodeStream(fw, func(i int) decode.Event {
				if i == 300_000 {
					return nil
				}
				return &decode.ThreadStart{ThreadID: int64(i + 1), ThreadName: "worker-" + strconv.Itoa(i), GroupName: "main", Time: 1}
			})
		}, nil, 256 * mib, func(t *testing.T, out, errs string, code int) {
			p := lastPicture(t, out)
			if n := p.Picture.NotTracked.Threads; len(p.Picture.Threads) != 50_000 || n < 249_000 || n > 251_000 {
				t.Fatalf("%d threads, %d not tracked", len(p.Picture.Threads), n)
			}
		}},
		{"a million methods", nil, func(fw *protocol.FrameWriter) {
			encodeStream(fw, func(i int) decode.Event {
				switch {
				case i == 0:
					return &decode.ClassDef{ClassID: 1, Name: "com.example.Generated"}
				case i <= 1_000_000:
					return &decode.Sample{ThreadIDRef: 1, Time: decode.Ticks(i), Count: 1, Weight: 1000,
						Stack: decode.Stack{Methods: []string{"com.example.Generated.m" + strconv.Itoa(i)}, Lines: []int64{1}}}
				}
				return nil
			})
		}, nil, 512 * mib, func(t *testing.T, out, errs string, code int) {
			p := lastPicture(t, out)
			if n := p.Picture.NotTracked.Methods; len(p.Picture.Methods) != 200_000 || n < 795_000 || n > 805_000 {
				t.Fatalf("%d methods, %d not tracked", len(p.Picture.Methods), n)
			}
		}},
		{"100,000 held monitors", nil, func(fw *protocol.FrameWriter) {
			encodeStream(fw, func(i int) decode.Event {
				if i == 100_000 {
					return nil
				}
				return &decode.MonContendedEnter{ThreadIDRef: int64(2 + i%1000), ObjIDRef: int64(i + 1), ThreadOwner: 1, Time: 1}
			})
		}, nil, 128 * mib, func(t *testing.T, out, errs string, code int) {
			p := lastPicture(t, out)
			if n := p.Picture.NotTracked.Monitors; len(p.Picture.Monitors) != 10_000 || n < 89_000 || n > 91_000 {
				t.Fatalf("%d monitors, %d not tracked", len(p.Picture.Monitors), n)
			}
		}},
		{"exactly 200,000 methods", nil, func(fw *protocol.FrameWriter) {
			encodeStream(fw, func(i int) decode.Event {
				if i == 200_000 {
					return nil
				}
				return &decode.Sample{ThreadIDRef: 1, Time: decode.Ticks(i), Count: 1, Weight: 1000,
					Stack: decode.Stack{Methods: []string{"com.example.Generated.m" + strconv.Itoa(i)}, Lines: []int64{1}}}
			})
		}, nil, 512 * mib, func(t *testing.T, out, errs string, code int) {
			if p := lastPicture(t, out); len(p.Picture.Methods) != 200_000 || p.Picture.NotTracked.Methods != 0 {
				t.Fatalf("%d methods, %d not tracked", len(p.Picture.Methods), p.Picture.NotTracked.Methods)
			}
		}},
		{"20,000 methods named with 5 KiB each", nil, func(fw *protocol.FrameWriter) {
			encodeStream(fw, func(i int) decode.Event {
				if i == 20_000 {
					return nil
				}
				return &decode.Sample{ThreadIDRef: 1, Time: decode.Ticks(i), Count: 1, Weight: 1000,
					Stack: decode.Stack{Methods: []string{"com.example.M" + named(i)[:5<<10] + ".run"}, Lines: []int64{1}}}
			})
		}, nil, 512 * mib, func(t *testing.T, out, errs string, code int) {
			// Cut to 4 KiB, they fill the table by bytes: 200,000 × 256 bytes hold 12,500 of them.
			p := lastPicture(t, out)
			if n := len(p.Picture.Methods); n < 12_000 || n > 12_600 || int64(n)+p.Picture.NotTracked.Methods < 19_800 {
				t.Fatalf("%d methods, %d not tracked", n, p.Picture.NotTracked.Methods)
			}
			for _, m := range p.Picture.Methods {
				if len(m.Name) > decode.DefaultMaxString || !strings.Contains(m.Name, " bytes elided #") {
					t.Fatalf("a method named with %d bytes: %.100s", len(m.Name), m.Name)
				}
			}
		}},
		{"1,000 threads named with 1 MiB each", nil, func(fw *protocol.FrameWriter) {
			encodeStream(fw, func(i int) decode.Event {
				if i == 1000 {
					return nil
				}
				return &decode.ThreadStart{ThreadID: int64(i + 1), ThreadName: named(i), GroupName: named(i), Time: 1}
			})
		}, text, 128 * mib, func(t *testing.T, out, errs string, code int) {
			if !strings.Contains(out, "THREADS (1000, first 20)") {
				t.Fatalf("exit %d: %.2000s\n%s", code, out, errs)
			}
		}},
		{"300 threads named with 1 MiB each, in JSON", nil, func(fw *protocol.FrameWriter) {
			encodeStream(fw, func(i int) decode.Event {
				if i == 300 {
					return nil
				}
				return &decode.ThreadStart{ThreadID: int64(i + 1), ThreadName: named(i), GroupName: named(i), Time: 1}
			})
		}, nil, 128 * mib, func(t *testing.T, out, errs string, code int) {
			p := lastPicture(t, out)
			for _, th := range p.Picture.Threads {
				if len(th.Name) > decode.DefaultMaxString || !strings.Contains(th.Name, " bytes elided #") {
					t.Fatalf("a thread named with %d bytes: %.100s", len(th.Name), th.Name)
				}
			}
			if len(p.Picture.Threads) != 300 || len(out) > 20*mib {
				t.Fatalf("%d threads, %d bytes of JSON", len(p.Picture.Threads), len(out))
			}
		}},
		{"1.35 million attributes on one element", func(m protocol.Message, fw *protocol.FrameWriter) bool {
			if m.Name != "setOutputFormat" {
				return false
			}
			p, _ := protocol.EncodeMessage("agent:1", "proftop", m.Ctxt, &protocol.EnabledOutputFormat{Format: "xml"})
			fw.WriteFrame(false, p)
			return true
		}, xmlFlood, nil, 192 * mib, func(t *testing.T, out, errs string, code int) {
			p := lastPicture(t, out)
			names := map[string]bool{}
			for _, th := range p.Picture.Threads {
				names[th.Name] = true
			}
			if p.DecodeErrors != 1 || !names["main"] || !names["after"] {
				t.Fatalf("%d decode errors, threads %v", p.DecodeErrors, names)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := hostileController(t, tc.answer, tc.stream)
			// Until the peer closes: the last snapshot is the picture of everything it sent.
			args := tc.args
			if args == nil {
				args = []string{"--batch", "--json", "--refresh", "10s", "--window", "1h"}
			}
			out, errs, code, rss := runMeasured(t, append([]string{"--host", "127.0.0.1", "--port", strconv.Itoa(port), "--reconnect=false",
				"--negotiation-timeout", "30s"}, args...)...)
			t.Logf("peak RSS %d MiB (limit %d MiB)", rss/mib, tc.limit/mib)
			tc.check(t, out, errs, code)
			if rss > tc.limit {
				t.Fatalf("peak RSS %d MiB, over %d MiB", rss/mib, tc.limit/mib)
			}
		})
	}
}

// Names with escape sequences, C1 controls, DEL and bidirectional
// overrides: escaped in --json (and its --history), and in the error line
// a peer's words end up in.
func TestPeerTextReachesTheTerminalEscaped(t *testing.T) {
	evil := "x\x1b]0;owned\x07\u009b2J\u202egnp.exe\x7f"
	port := hostileController(t, nil, func(fw *protocol.FrameWriter) {
		encodeStream(fw, func(i int) decode.Event {
			if i > 0 {
				return nil
			}
			return &decode.ThreadStart{ThreadID: 1, ThreadName: evil, GroupName: evil, Time: 1}
		})
	})
	out, errs, code := run(t, nil, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--batch", "--json", "--history", "-n", "2", "--refresh", "1s")
	const escaped = `x\u001b]0;owned\u0007\u009b2J\u202egnp.exe\u007f`
	if code != 0 || strings.Count(out, escaped) < 3 { // two snapshots and the history
		t.Fatalf("exit %d: %s\n%s", code, out, errs)
	}
	for _, raw := range []string{"\x1b", "\u009b", "\u202e", "\x7f"} {
		if strings.Contains(out, raw) {
			t.Fatalf("%q reached the output raw", raw)
		}
	}

	// XML cannot carry C0 controls; what it can (C1 controls, overrides)
	// reaches the error line proftop ends with.
	refusing := hostileController(t, func(m protocol.Message, fw *protocol.FrameWriter) bool {
		p, _ := protocol.EncodeMessage("agentController", "proftop", m.Ctxt,
			&protocol.ErrorReply{Code: protocol.CodeUnauthorized, Message: "x\u009b2J\u202egnp.exe\u0085"})
		fw.WriteFrame(false, p)
		return true
	}, nil)
	// Until the refusal ends it (no -n: proftop would give up after that
	// many snapshots if the first came before the refusal).
	_, errs, code = run(t, nil, "--host", "127.0.0.1", "--port", strconv.Itoa(refusing), "--batch", "--reconnect=false")
	last := errs[strings.LastIndex(strings.TrimSuffix(errs, "\n"), "\n")+1:]
	if code != 1 || !strings.HasPrefix(last, "proftop: ") || !strings.Contains(last, `UNAUTHORIZED: x\x9b2J\u202egnp.exe\x85`) {
		t.Fatalf("exit %d: %q", code, errs)
	}
	for _, raw := range []string{"\u009b", "\u202e", "\u0085"} {
		if strings.Contains(errs, raw) {
			t.Fatalf("%q reached standard error raw: %q", raw, errs)
		}
	}
}

// proftop simulate --port listens there (it used to be ignored), on the
// host of --listen when that names a host alone, and a flag that means
// nothing to a command is refused, not ignored.
func TestSimulatePortAndStrayFlags(t *testing.T) {
	for _, listen := range [][]string{nil, {"--listen", "127.0.0.1"}} {
		port := freePort(t)
		cmd := exec.Command(proftopBin, append([]string{"simulate", "-q", "--port", strconv.Itoa(port)}, listen...)...)
		var errs bytes.Buffer
		cmd.Stderr = &errs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		deadline := time.Now().Add(20 * time.Second)
		for {
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("simulate --port %d %v: nothing listens\n%s", port, listen, errs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for _, args := range [][]string{{"simulate", "--refresh", "1s"}, {"decode", "--batch", "x"}, {"list", "--json"}} {
		_, errs, code := run(t, nil, args...)
		if code != 1 || !strings.Contains(errs, "does not apply to proftop "+args[0]) {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	_, errs, code := run(t, nil, "simulate", "--port", "1", "--listen", "127.0.0.1:2")
	if code != 1 || !strings.Contains(errs, "name two ports") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
