package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	if code != 1 || out != "" || !strings.Contains(errs, "offset 12: message 1041 (custom): field size: message size below its 6-byte header") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errs)
	}
	_, errs, code = run(t, nil, "decode", "/no/such/file.trcbin")
	if code != 1 || !strings.Contains(errs, "/no/such/file.trcbin") {
		t.Fatalf("exit %d: %q", code, errs)
	}
}
