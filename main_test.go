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
	"syscall"
	"testing"
	"time"
)

// proftopBin is the real binary, built once for the end-to-end tests.
var proftopBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "proftop-e2e")
	if err != nil {
		panic(err)
	}
	proftopBin = filepath.Join(dir, "proftop")
	build := exec.Command("go", "build", "-o", proftopBin, "-ldflags", "-X main.version=9.9.9-test -X main.commit=abc123 -X main.date=2026-01-02", ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building proftop: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs the binary and returns its stdout, stderr and exit status.
func run(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(proftopBin, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), errs.String(), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errs.String(), 0
}

func TestVersionComesFromLdflags(t *testing.T) {
	out, _, code := run(t, nil, "--version")
	if code != 0 || strings.TrimSpace(out) != "proftop 9.9.9-test (commit abc123, built 2026-01-02)" {
		t.Fatalf("exit %d: %q", code, out)
	}
}

func TestDecodeEndToEnd(t *testing.T) {
	fixture := "../shared/fixtures/tptp/statechum-part3.trcxml"
	data, err := os.ReadFile(fixture)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s is absent (../shared is not beside this checkout); skipping", fixture)
	}
	out, errs, code := run(t, nil, "decode", fixture, "--stats")
	if code != 0 || !strings.Contains(out, "events    3441") || errs != "" {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// The same from standard input, as JSON lines.
	out, _, code = run(t, data, "decode", "-")
	if code != 0 || strings.Count(out, "\n") != 3441 || !strings.HasPrefix(out, `{"type":"node",`) {
		t.Fatalf("exit %d, %d lines", code, strings.Count(out, "\n"))
	}
}

func TestDecodeFailureExitsWithStatus1(t *testing.T) {
	out, errs, code := run(t, []byte("0TBF\x01\x00\x01\x01\x0c\x00\x00\x00\x11\x04\x03\x00\x00\x00"), "decode", "-")
	if code != 1 || out != "" || !strings.Contains(errs, "offset 12: message #1, id 1041 (custom): field size: message size below its 6-byte header") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errs)
	}
	_, errs, code = run(t, nil, "decode", "/no/such/file.trcbin")
	if code != 1 || !strings.Contains(errs, "/no/such/file.trcbin") {
		t.Fatalf("exit %d: %q", code, errs)
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startSimulator runs `proftop simulate` as its own process and waits until it listens.
func startSimulator(t testing.TB, args ...string) int {
	port, _ := startSimulatorProcess(t, args...)
	return port
}

func startSimulatorProcess(t testing.TB, args ...string) (int, *os.Process) {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(proftopBin, append([]string{"simulate", "-q", "--listen", fmt.Sprintf("127.0.0.1:%d", port)}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return port, cmd.Process
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the simulator did not start listening")
	return 0, nil
}

func TestBatchAgainstTheSimulator(t *testing.T) {
	port := startSimulator(t)
	out, errs, code := run(t, nil, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--batch", "-n", "2", "--json", "--refresh", "500ms")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, %d lines\n%s\n%s", code, len(lines), out, errs)
	}
	var last struct {
		State       string
		Format      string
		Negotiation string
		Events      int64
	}
	if err := json.Unmarshal([]byte(lines[1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.State != "streaming" || last.Format != "binary" || last.Negotiation != "negotiated" || last.Events == 0 {
		t.Fatalf("%+v", last)
	}
}

func TestWrongPortGivesAClearMessage(t *testing.T) {
	out, errs, code := run(t, nil, "--host", "127.0.0.1", "--port", strconv.Itoa(freePort(t)), "--batch", "-n", "1", "--reconnect=false")
	if code != 1 || !strings.Contains(errs, "connection refused by 127.0.0.1:") || strings.Contains(errs, "goroutine") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// A proftop killed while recording leaves a file that decodes up to its
// last complete message.
func TestRecordingSurvivesKill(t *testing.T) {
	port := startSimulator(t, "--rate", "200000")
	dir := t.TempDir()
	cmd := exec.Command(proftopBin, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--batch", "--record", filepath.Join(dir, "kill"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kill.trcbin")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if st, err := os.Stat(path); err == nil && st.Size() > 1<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("nothing recorded")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	out, errs, code := run(t, nil, "decode", path, "--stats")
	events := 0
	fmt.Sscanf(out[strings.Index(out, "events"):], "events %d", &events)
	// The file ends wherever the kill struck: cleanly, or inside a message.
	if events < 5000 || (code != 0 && !strings.Contains(errs, "stream ends inside a message")) {
		t.Fatalf("exit %d, %d events\n%s\n%s", code, events, out, errs)
	}
	t.Logf("%d events decoded from the recording of a killed proftop (%s)", events, strings.TrimSpace(errs))
}

// Arguments no command takes are refused with what was wrong, exit 1:
// a completion for a shell that does not exist, a negative count.
func TestNonsenseArgumentsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"completion", "bogus"}, `unknown command "bogus" for "completion"`},
		{[]string{"completion", "bas"}, "did you mean bash?"},
		{[]string{"demo", "--batch", "-n", "-1"}, "--iterations (-n) is a number of snapshots, 0 or more"},
		{[]string{"demo", "--batch", "--top", "-3"}, "--top is a number of rows"},
		{[]string{"attach", "1", "--port", "1", "--batch"}, "--port does not apply to attach"},
	} {
		out, errs, code := run(t, nil, tc.args...)
		if code != 1 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %.80q; want exit 1 saying %q", tc.args, code, errs, out, tc.want)
		}
	}
	if out, _, code := run(t, nil, "completion", "bash"); code != 0 || !strings.Contains(out, "bash completion") {
		t.Errorf("completion bash: exit %d, %.80q", code, out)
	}
}
