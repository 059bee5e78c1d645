package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proftop/proftop/internal/syncbuf"
)

// Only the JVM's user gets in, whether the agent came with -javaagent or
// proftop attach: that user's proftop finds the token by itself, another
// user's gets UNAUTHORIZED and nothing else (no pid, no main class),
// unless given the token on purpose.
func TestOnlyTheJVMsUserGetsIn(t *testing.T) {
	dir := t.TempDir()
	jar, portFile := filepath.Join(dir, "agent.jar"), filepath.Join(dir, "port")
	if _, errs, code := run(t, nil, "agent-jar", jar); code != 0 {
		t.Fatalf("agent-jar: %s", errs)
	}
	jvm, _ := javaWorkload(t, "-javaagent:"+jar+"=port=0,portfile="+portFile)
	var port string
	for deadline := time.Now().Add(20 * time.Second); port == ""; time.Sleep(50 * time.Millisecond) {
		data, _ := os.ReadFile(portFile)
		port, _, _ = strings.Cut(string(data), "\n")
		if time.Now().After(deadline) {
			t.Fatal("no port file")
		}
	}
	streams := func(pid int) func(line string) bool {
		return func(line string) bool {
			var doc struct {
				State  string
				Events int64
				Agent  struct{ PID int }
			}
			json.Unmarshal([]byte(line), &doc)
			return doc.State == "streaming" && doc.Events > 0 && doc.Agent.PID == pid
		}
	}
	if out, ok := watchUntil(t, nil, streams(jvm.Process.Pid), "--host", "127.0.0.1", "--port", port); !ok {
		t.Fatalf("the JVM's user, without a token:\n%.600s", out)
	}

	// proftop attach into a JVM without the agent, then the same user by host and port.
	other, _ := javaWorkload(t)
	out, ok := watchUntil(t, nil, streams(other.Process.Pid), "attach", strconv.Itoa(other.Process.Pid))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var doc struct{ Source string }
	for i := len(lines) - 1; i >= 0 && doc.Source == ""; i-- {
		json.Unmarshal([]byte(lines[i]), &doc)
	}
	_, attachedPort, found := strings.Cut(doc.Source, ":")
	if !ok || !found {
		t.Fatalf("attach:\n%.600s", out)
	}
	// (The agent frees its one place a moment after attach's proftop leaves: this one may retry.)
	if out, ok := watchUntil(t, nil, streams(other.Process.Pid), "--host", "127.0.0.1", "--port", attachedPort); !ok {
		t.Fatalf("after attach, by host and port:\n%.600s", out)
	}

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
	shared, err := os.MkdirTemp("", "proftop-other-user")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shared)
	os.Chmod(shared, 0o755) // nobody must reach the binary
	bin := filepath.Join(shared, "proftop")
	data, _ := os.ReadFile(proftopBin)
	os.WriteFile(bin, data, 0o755)
	asNobody := func(env []string, args ...string) (string, error) {
		cmd := exec.Command(runuser, append([]string{"-u", nobody.Username, "--", bin}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Dir = shared
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	runAsNobody := []string{runuser, "-u", nobody.Username, "--", bin}
	for _, p := range []string{port, attachedPort} {
		// Until the agent ends the connection (no -n: a first snapshot may
		// come before the refusal does, and would end proftop with 0).
		out, err := asNobody(nil, "--host", "127.0.0.1", "--port", p, "--batch", "--json", "--reconnect=false")
		if err == nil || !strings.Contains(out, "UNAUTHORIZED") || strings.Contains(out, "Workload") || strings.Contains(out, `"agent":`) ||
			strings.Contains(out, `"pid":`+strconv.Itoa(jvm.Process.Pid)) || strings.Contains(out, `"pid":`+strconv.Itoa(other.Process.Pid)) {
			t.Fatalf("nobody, port %s: %v\n%s", p, err, out)
		}
	}
	// Widened on purpose: the owner hands the token over.
	data, err = os.ReadFile(filepath.Join("/tmp", "proftop-0", "token-"+port))
	if err != nil {
		t.Fatal(err)
	}
	token, _, _ := strings.Cut(string(data), "\n") // the token's line; the writer's pid follows
	if out, ok := watchUntil(t, &proc{argv: runAsNobody, env: []string{"PROFTOP_TOKEN=" + token}, dir: shared},
		streams(jvm.Process.Pid), "--host", "127.0.0.1", "--port", port); !ok {
		t.Fatalf("nobody, given the token:\n%.600s", out)
	}
}

// proc says how to start proftop: argv before its arguments (default:
// the binary), extra environment, working directory.
type proc struct {
	argv []string
	env  []string
	dir  string
}

// watchUntil runs proftop --batch --json with args (through p, when
// given) until a snapshot satisfies done, or a minute passes; it returns
// what it printed and whether done held.
func watchUntil(t *testing.T, p *proc, done func(line string) bool, args ...string) (string, bool) {
	t.Helper()
	argv := []string{proftopBin}
	if p != nil && p.argv != nil {
		argv = p.argv
	}
	cmd := exec.Command(argv[0], append(append(argv[1:], args...), "--batch", "--json", "--refresh", "500ms")...)
	if p != nil {
		cmd.Env, cmd.Dir = append(os.Environ(), p.env...), p.dir
	}
	stdout, _ := cmd.StdoutPipe()
	var errs syncbuf.Buffer
	cmd.Stderr = &errs
	// Its own process group, so that proftop goes too when started
	// through runuser; and no waiting for pipes a straggler holds.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	found := make(chan bool, 1)
	var seen syncbuf.Buffer
	go func() {
		lines := bufio.NewScanner(stdout)
		lines.Buffer(nil, 64<<20)
		for lines.Scan() {
			seen.Write(append(lines.Bytes(), '\n'))
			if done(lines.Text()) {
				found <- true
				return
			}
		}
		found <- false
	}()
	select {
	case ok := <-found:
		return seen.String() + errs.String(), ok
	case <-time.After(time.Minute):
		return seen.String() + errs.String(), false
	}
}
