package agent

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The ways attaching can fail, for errors.Is.
var (
	ErrNoProcess      = errors.New("no such process")
	ErrNotJVM         = errors.New("not a JVM")
	ErrOtherUser      = errors.New("another user's JVM")
	ErrAttachDisabled = errors.New("the JVM does not answer attach requests")
	ErrAgentFailed    = errors.New("the JVM could not start the agent")
)

// AttachOptions tune Attach.
type AttachOptions struct {
	// AgentOptions are passed to the agent (threshold=10ms,sample=10ms…);
	// port and portfile are set by Attach.
	AgentOptions string
	// Timeout bounds each wait (for the attach socket, for the port); default 10 s.
	Timeout time.Duration
}

// process is what Attach learns about its target.
type process struct {
	pid   int
	nspid int    // the pid inside the JVM's own pid namespace (containers)
	root  string // the JVM's file system root as seen from here
	uid   int
	comm  string
}

func inspect(pid int) (*process, error) {
	dir := fmt.Sprintf("/proc/%d", pid)
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, ErrNoProcess)
	}
	p := &process{pid: pid, nspid: pid, root: dir + "/root"}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		p.uid = int(st.Uid)
	}
	comm, _ := os.ReadFile(dir + "/comm")
	p.comm = strings.TrimSpace(string(comm))
	if euid := os.Geteuid(); euid != 0 && euid != p.uid {
		name := strconv.Itoa(p.uid)
		if u, err := user.LookupId(name); err == nil {
			name = u.Username
		}
		return nil, fmt.Errorf("process %d (%s) runs as user %s: %w, and a JVM accepts attach requests only from its own user: run proftop as %s",
			pid, p.comm, name, ErrOtherUser, name)
	}
	maps, err := os.ReadFile(dir + "/maps")
	if err != nil {
		return nil, fmt.Errorf("process %d (%s): cannot read its memory map to tell whether it is a JVM: %v", pid, p.comm, err)
	}
	if !bytes.Contains(maps, []byte("/libjvm.so")) {
		return nil, fmt.Errorf("process %d (%s) is %w (no libjvm.so in it)", pid, p.comm, ErrNotJVM)
	}
	if status, err := os.ReadFile(dir + "/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "NSpid:" {
				if n, err := strconv.Atoi(f[len(f)-1]); err == nil {
					p.nspid = n
				}
			}
		}
	}
	return p, nil
}

// Attach loads the embedded agent into the JVM of process pid through the
// HotSpot attach mechanism (the attach file, SIGQUIT, the .java_pid
// socket, "load instrument") and returns the loopback port it listens on.
// No JDK tool is needed on this side.
func Attach(pid int, opts AttachOptions) (int, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	p, err := inspect(pid)
	if err != nil {
		return 0, err
	}
	// The jar and the port file go to the JVM's /tmp, and are named by the
	// paths the JVM sees.
	tmp := filepath.Join(p.root, "tmp")
	sum := sha256.Sum256(Jar)
	jarName := "proftop-agent-" + hex.EncodeToString(sum[:6]) + ".jar"
	if err := writeIfAbsent(filepath.Join(tmp, jarName), Jar); err != nil {
		return 0, fmt.Errorf("writing the agent jar for process %d: %w", pid, err)
	}
	portName := fmt.Sprintf("proftop-%d-%d.port", p.nspid, time.Now().UnixNano())
	portFile := filepath.Join(tmp, portName)
	defer os.Remove(portFile)

	conn, err := p.attachSocket(opts.Timeout)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	args := "port=0,portfile=/tmp/" + portName
	if opts.AgentOptions != "" {
		args += "," + opts.AgentOptions
	}
	if err := load(conn, "/tmp/"+jarName+"="+args); err != nil {
		return 0, fmt.Errorf("process %d: %w", pid, err)
	}
	return waitForPort(portFile, opts.Timeout, pid)
}

func writeIfAbsent(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// attachSocket connects to the JVM's attach listener, starting it first if
// need be: a JVM that finds .attach_pid<PID> when it receives SIGQUIT opens
// .java_pid<PID> in its temporary directory.
func (p *process) attachSocket(timeout time.Duration) (net.Conn, error) {
	sock := filepath.Join(p.root, "tmp", fmt.Sprintf(".java_pid%d", p.nspid))
	if c, err := net.Dial("unix", sock); err == nil {
		return c, nil
	}
	trigger := filepath.Join(fmt.Sprintf("/proc/%d/cwd", p.pid), fmt.Sprintf(".attach_pid%d", p.nspid))
	f, err := os.OpenFile(trigger, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		trigger = filepath.Join(p.root, "tmp", fmt.Sprintf(".attach_pid%d", p.nspid))
		if f, err = os.OpenFile(trigger, os.O_CREATE|os.O_WRONLY, 0o600); err != nil {
			return nil, fmt.Errorf("process %d: cannot create the attach file %s: %w", p.pid, trigger, err)
		}
	}
	f.Close()
	defer os.Remove(trigger)
	if err := syscall.Kill(p.pid, syscall.SIGQUIT); err != nil {
		return nil, fmt.Errorf("process %d: signalling it: %w", p.pid, err)
	}
	deadline := time.Now().Add(timeout)
	for wait := 20 * time.Millisecond; time.Now().Before(deadline); wait = min(2*wait, 500*time.Millisecond) {
		time.Sleep(wait)
		if c, err := net.Dial("unix", sock); err == nil {
			return c, nil
		}
	}
	return nil, fmt.Errorf("process %d (%s): %w: no attach socket %s after %v (started with -XX:+DisableAttachMechanism, or stuck?)",
		p.pid, p.comm, ErrAttachDisabled, sock, timeout)
}

// load sends "load instrument false JAR=ARGS" (protocol version 1) and
// reads the answer: "0" for a command carried out, then the agent's
// return code.
func load(conn net.Conn, agent string) error {
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	req := "1\x00load\x00instrument\x00false\x00" + agent + "\x00"
	if _, err := io.WriteString(conn, req); err != nil {
		return fmt.Errorf("sending the attach request: %w", err)
	}
	reply, err := io.ReadAll(bufio.NewReader(io.LimitReader(conn, 64<<10)))
	if err != nil {
		return fmt.Errorf("reading the attach reply: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(reply)), "\n")
	if len(lines) == 0 || lines[0] != "0" {
		return fmt.Errorf("%w: the attach listener answered %q", ErrAgentFailed, string(reply))
	}
	for _, l := range lines[1:] {
		if code, ok := strings.CutPrefix(l, "return code: "); ok && code != "0" {
			return fmt.Errorf("%w: loading the agent returned %s (see the JVM's standard error)", ErrAgentFailed, code)
		}
	}
	return nil
}

// waitForPort reads the port the agent wrote (atomically) to portFile.
func waitForPort(portFile string, timeout time.Duration, pid int) (int, error) {
	deadline := time.Now().Add(timeout)
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, 250*time.Millisecond) {
		if data, err := os.ReadFile(portFile); err == nil {
			port, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil || port <= 0 || port > 65535 {
				return 0, fmt.Errorf("process %d: the agent's port file holds %q", pid, data)
			}
			return port, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("process %d: %w: no port from it after %v (see the JVM's standard error)", pid, ErrAgentFailed, timeout)
		}
		time.Sleep(wait)
	}
}
