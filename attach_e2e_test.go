package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/internal/syncbuf"
)

// javaWorkload compiles agent/testdata/Workload.java and starts it (without
// the agent); it runs until the test ends. Its standard output after the
// first line is kept in the buffer returned.
func javaWorkload(t *testing.T, jvmArgs ...string) (*exec.Cmd, *syncbuf.Buffer) {
	t.Helper()
	for _, tool := range []string{"java", "javac"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed: apt-get install openjdk-17-jdk-headless (.ci/run installs it)", tool)
		}
	}
	dir := t.TempDir()
	if out, err := exec.Command("javac", "--release", "17", "-d", dir, "agent/testdata/Workload.java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.Command("java", append(jvmArgs, "-cp", dir, "Workload", "run", "300", "deadlock")...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	workloadStdin[cmd] = stdin
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if !strings.Contains(line, "workload started") {
		t.Fatalf("the workload says %q", line)
	}
	out := &syncbuf.Buffer{}
	go io.Copy(out, stdout)
	return cmd, out
}

// workloadStdin is each workload's standard input: closing it ends the JVM.
var workloadStdin = map[*exec.Cmd]io.Closer{}

// proftop attach PID, the real binary, into a JVM started without the
// agent: JSON snapshots show the workload's threads, its contention and
// the deadlock; proftop list shows the JVM.
func TestAttachCommand(t *testing.T) {
	jvm, _ := javaWorkload(t)
	pid := jvm.Process.Pid
	out, errs, code := run(t, nil, "list")
	if code != 0 || !strings.Contains(out, strconv.Itoa(pid)) || !strings.Contains(out, "Workload") {
		t.Fatalf("list: exit %d\n%s\n%s", code, out, errs)
	}
	// Snapshots until the picture holds the workload and its deadlock:
	// attaching and the first poll take seconds on a loaded machine. -n
	// bounds the wait (two minutes of snapshots every 500ms).
	cmd := exec.Command(proftopBin, "attach", strconv.Itoa(pid), "--batch", "--json", "-n", "240", "--refresh", "500ms")
	stdout, _ := cmd.StdoutPipe()
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	type picture struct {
		State       string
		Format      string
		Negotiation string
		Agent       struct{ PID int }
		Picture     struct {
			Threads   []struct{ Name string }
			Monitors  []struct{ Class string }
			Deadlocks []struct{ ThreadNames []string }
		}
	}
	complete := func(doc picture) bool {
		names := map[string]bool{}
		for _, th := range doc.Picture.Threads {
			names[th.Name] = true
		}
		if doc.State != "streaming" || doc.Format != "binary" || doc.Agent.PID != pid || !names["contender-0"] || !names["deadlock-a"] {
			return false
		}
		if len(doc.Picture.Deadlocks) != 1 {
			return false
		}
		pair := strings.Join(doc.Picture.Deadlocks[0].ThreadNames, ",")
		return pair == "deadlock-a,deadlock-b" || pair == "deadlock-b,deadlock-a"
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 64<<20)
	var last picture
	seen := 0
	for lines.Scan() {
		seen++
		last = picture{}
		if err := json.Unmarshal(lines.Bytes(), &last); err != nil {
			t.Fatalf("snapshot %d: %v", seen, err)
		}
		if complete(last) {
			return
		}
	}
	t.Fatalf("after %d snapshots the picture is still incomplete: %+v\n%s", seen, last, stderr.String())
}

// Attach says clearly why it cannot: no such process, not a JVM, attach
// disabled, another user's JVM.
func TestAttachErrors(t *testing.T) {
	_, errs, code := run(t, nil, "attach", "999999")
	if code != 1 || !strings.Contains(errs, "process 999999: no such process") {
		t.Fatalf("exit %d: %q", code, errs)
	}
	_, errs, _ = run(t, nil, "attach", strconv.Itoa(os.Getpid()))
	if !strings.Contains(errs, "is not a JVM") {
		t.Fatalf("%q", errs)
	}
	_, errs, _ = run(t, nil, "attach", "not-a-pid")
	if !strings.Contains(errs, `"not-a-pid" is not a process id`) {
		t.Fatalf("%q", errs)
	}
	disabled, disabledOut := javaWorkload(t, "-XX:+DisableAttachMechanism")
	start := time.Now()
	_, errs, _ = run(t, nil, "attach", strconv.Itoa(disabled.Process.Pid), "--attach-timeout", "2s")
	if !strings.Contains(errs, "does not answer attach requests") || !strings.Contains(errs, "DisableAttachMechanism") || time.Since(start) > 20*time.Second {
		t.Fatalf("%q after %v", errs, time.Since(start))
	}
	// Told by its command line, attach sends no SIGQUIT, which such a JVM
	// would answer with a thread dump on the application's output.
	time.Sleep(500 * time.Millisecond)
	if strings.Contains(disabledOut.String(), "Full thread dump") {
		t.Fatalf("the JVM printed a thread dump:\n%s", disabledOut)
	}
	// Another user's JVM: proftop, run as nobody, against a JVM of root's.
	if os.Geteuid() != 0 {
		t.Log("not root: the other-user case is not run")
		return
	}
	nobody, err := user.Lookup("nobody")
	runuser, lookErr := exec.LookPath("runuser")
	if err != nil || lookErr != nil {
		t.Log("no user nobody or no runuser: the other-user case is not run")
		return
	}
	dir, err := os.MkdirTemp("", "proftop-other-user")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755) // nobody must reach the binary
	bin := filepath.Join(dir, "proftop")
	data, _ := os.ReadFile(proftopBin)
	os.WriteFile(bin, data, 0o755)
	jvm, _ := javaWorkload(t)
	out, err := exec.Command(runuser, "-u", nobody.Username, "--", bin, "attach", strconv.Itoa(jvm.Process.Pid)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "another user's JVM") || !strings.Contains(string(out), "run proftop as root") {
		t.Fatalf("%v: %s", err, out)
	}
}

// When the JVM it watches exits, proftop attach says so, shows its threads
// ended, stops (there is nothing to reconnect to) and, in batch mode,
// exits with status 1.
func TestAttachSeesTheJVMExit(t *testing.T) {
	jvm, _ := javaWorkload(t)
	pid := jvm.Process.Pid
	cmd := exec.Command(proftopBin, "attach", strconv.Itoa(pid), "--batch", "--json", "--refresh", "500ms")
	stdout, _ := cmd.StdoutPipe()
	var errs syncbuf.Buffer
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 64<<20)
	var last string
	// Until the workload shows: attaching and the first poll take seconds
	// on a loaded machine (a snapshot every 500ms: two minutes at most).
	for i := 0; i < 240 && !strings.Contains(last, "contender-0") && lines.Scan(); i++ {
		last = lines.Text()
	}
	if !strings.Contains(last, "contender-0") {
		t.Fatalf("no picture of the workload before it ends: %.300s\n%s", last, errs.String())
	}
	workloadStdin[jvm].Close() // the workload returns from main
	exited := make(chan error, 1)
	go func() {
		for lines.Scan() {
			last = lines.Text()
		}
		exited <- cmd.Wait()
	}()
	select {
	case err := <-exited:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("proftop ended with %v, want exit status 1\n%s", err, errs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("proftop is still running 30 s after the JVM exited\n%s", errs.String())
	}
	if want := fmt.Sprintf("JVM %d exited", pid); !strings.Contains(errs.String(), want) {
		t.Fatalf("stderr %q does not say %q", errs.String(), want)
	}
	var doc struct {
		Picture struct {
			Process struct{ Exited time.Time }
			Threads []struct {
				Name  string
				State string
			}
		}
	}
	if err := json.Unmarshal([]byte(last), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Picture.Process.Exited.IsZero() {
		t.Fatalf("the last picture does not say the JVM exited: %.400s", last)
	}
	for _, th := range doc.Picture.Threads {
		if th.State != "ended" {
			t.Errorf("thread %s is %s after the JVM exited", th.Name, th.State)
		}
	}
}
