package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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
	streams := func(out string) bool {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var doc struct {
			State  string
			Events int64
			Agent  struct{ PID int }
		}
		json.Unmarshal([]byte(lines[len(lines)-1]), &doc)
		return doc.State == "streaming" && doc.Events > 0 && doc.Agent.PID == jvm.Process.Pid
	}
	out, errs, code := run(t, nil, "--host", "127.0.0.1", "--port", port, "--batch", "--json", "-n", "3", "--refresh", "1s")
	if code != 0 || !streams(out) {
		t.Fatalf("the JVM's user, without a token: exit %d\n%.400s\n%s", code, out, errs)
	}

	// proftop attach into a JVM without the agent, then the same user by host and port.
	other, _ := javaWorkload(t)
	out, errs, code = run(t, nil, "attach", strconv.Itoa(other.Process.Pid), "--batch", "--json", "-n", "1")
	var doc struct{ Source string }
	json.Unmarshal([]byte(strings.TrimSpace(out)), &doc)
	_, attachedPort, ok := strings.Cut(doc.Source, ":")
	if code != 0 || !ok {
		t.Fatalf("attach: exit %d: %.300s\n%s", code, out, errs)
	}
	// (The agent frees its one place a moment after attach's proftop leaves: this one may retry.)
	out, errs, code = run(t, nil, "--host", "127.0.0.1", "--port", attachedPort, "--batch", "--json", "-n", "10", "--refresh", "1s")
	if code != 0 || !strings.Contains(out, `"state":"streaming"`) {
		t.Fatalf("after attach, by host and port: exit %d\n%.400s\n%s", code, out, errs)
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
	for _, p := range []string{port, attachedPort} {
		out, err := asNobody(nil, "--host", "127.0.0.1", "--port", p, "--batch", "--json", "-n", "1", "--reconnect=false")
		if err == nil || !strings.Contains(out, "UNAUTHORIZED") || strings.Contains(out, "Workload") ||
			strings.Contains(out, strconv.Itoa(jvm.Process.Pid)) || strings.Contains(out, strconv.Itoa(other.Process.Pid)) {
			t.Fatalf("nobody, port %s: %v\n%s", p, err, out)
		}
	}
	// Widened on purpose: the owner hands the token over.
	token, err := os.ReadFile(filepath.Join("/tmp", "proftop-0", "token-"+port))
	if err != nil {
		t.Fatal(err)
	}
	out, err = asNobody([]string{"PROFTOP_TOKEN=" + strings.TrimSpace(string(token))},
		"--host", "127.0.0.1", "--port", port, "--batch", "--json", "-n", "3", "--refresh", "1s")
	if err != nil || !streams(out) {
		t.Fatalf("nobody, given the token: %v\n%.400s", err, out)
	}
}
