package agent

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/proftop/proftop/internal/textsafe"
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

// Attachment is where an attached agent listens.
type Attachment struct {
	Port int
	// Token is the one clients of the agent present: it came through the
	// port file, in the directory only the JVM's user may read.
	Token string
	// Notes from the agent for the user, e.g. that it was already running
	// and kept the options it was first started with.
	Notes []string
}

// process is what Attach learns about its target.
type process struct {
	pid   int
	nspid int    // the pid inside the JVM's own pid namespace (containers)
	root  string // the JVM's file system root as seen from here
	uid   int
	gid   int
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
		p.uid, p.gid = int(st.Uid), int(st.Gid)
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
func Attach(pid int, opts AttachOptions) (Attachment, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	p, err := inspect(pid)
	if err != nil {
		return Attachment{}, err
	}
	// The jar and the port file go to a directory of the JVM's /tmp that
	// only the JVM's user can write, and are named by the paths the JVM sees.
	dir, err := p.agentDir()
	if err != nil {
		return Attachment{}, fmt.Errorf("process %d: %w", pid, err)
	}
	sum := sha256.Sum256(Jar)
	jar := filepath.Join(dir, "agent-"+hex.EncodeToString(sum[:6])+".jar")
	if err := p.writeJar(jar); err != nil {
		return Attachment{}, fmt.Errorf("process %d: writing the agent jar: %w", pid, err)
	}
	portFile := filepath.Join(dir, fmt.Sprintf("port-%d-%d", p.nspid, time.Now().UnixNano()))
	defer os.Remove(portFile)

	conn, err := p.attachSocket(opts.Timeout)
	if err != nil {
		return Attachment{}, err
	}
	defer conn.Close()
	args := "port=0,portfile=" + p.inJVM(portFile)
	if opts.AgentOptions != "" {
		args += "," + opts.AgentOptions
	}
	if err := load(conn, p.inJVM(jar)+"="+args); err != nil {
		return Attachment{}, fmt.Errorf("process %d: %w", pid, err)
	}
	return waitForPort(portFile, opts.Timeout, pid)
}

// inJVM is the path the JVM sees for a path under its root.
func (p *process) inJVM(path string) string {
	return strings.TrimPrefix(path, p.root)
}

// agentDir returns /tmp/proftop-UID in the JVM's file system, made if need
// be: a directory owned by the JVM's user and closed to everyone else, so
// that no other user can swap the jar the JVM loads or forge the port
// proftop reads. Should someone else have made one by that name, a fresh
// directory is made instead.
func (p *process) agentDir() (string, error) {
	tmp := filepath.Join(p.root, "tmp")
	dir := filepath.Join(tmp, fmt.Sprintf("proftop-%d", p.uid))
	if err := os.Mkdir(dir, 0o700); err == nil {
		if err := p.own(dir); err != nil {
			return "", err
		}
	}
	if p.private(dir, true) == nil {
		return dir, nil
	}
	dir, err := os.MkdirTemp(tmp, fmt.Sprintf("proftop-%d-", p.uid))
	if err != nil {
		return "", fmt.Errorf("making a directory for the agent: %w", err)
	}
	return dir, p.own(dir)
}

// own gives a file proftop made to the JVM's user (when proftop runs as root).
func (p *process) own(path string) error {
	if os.Geteuid() == p.uid {
		return nil
	}
	if err := os.Lchown(path, p.uid, p.gid); err != nil {
		return fmt.Errorf("giving %s to the JVM's user: %w", path, err)
	}
	return nil
}

// private checks that path is, not through a symbolic link, a directory
// (or a regular file) of the JVM's user that no one else may change.
func (p *process) private(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return fmt.Errorf("%s: no owner to check", path)
	case dir && !fi.IsDir(), !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is a %v, not what proftop made", path, fi.Mode().Type())
	case int(st.Uid) != p.uid:
		return fmt.Errorf("%s belongs to user %d, not to the JVM's user %d", path, st.Uid, p.uid)
	case dir && fi.Mode().Perm()&0o077 != 0, !dir && fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is open to other users (mode %v)", path, fi.Mode().Perm())
	}
	return nil
}

// readSmallFile reads a regular file of at most max bytes, never through
// a symbolic link and never blocking on a FIFO or a device: the files
// proftop reads in the JVM's directories are in the hands of the JVM's
// user.
func readSmallFile(path string, max int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is a %v, not a regular file", path, fi.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err == nil && len(data) > max {
		err = fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return data, err
}

// writeJar writes the embedded jar at path, unless the same bytes are
// there already in a file of the JVM's user.
func (p *process) writeJar(path string) error {
	if p.private(path, false) == nil {
		if old, err := readSmallFile(path, len(Jar)); err == nil && bytes.Equal(old, Jar) {
			return nil
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".agent-*.jar")
	if err != nil {
		return err
	}
	_, err = f.Write(Jar)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = p.own(f.Name())
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// attachSocket connects to the JVM's attach listener, starting it first if
// need be: a JVM that finds .attach_pid<PID> when it receives SIGQUIT opens
// .java_pid<PID> in its temporary directory. The socket is used only when
// it is the JVM's: its user's, closed to others, as the JDK's own attach
// client checks.
func (p *process) attachSocket(timeout time.Duration) (net.Conn, error) {
	sock := filepath.Join(p.root, "tmp", fmt.Sprintf(".java_pid%d", p.nspid))
	dial := func() (net.Conn, error) {
		fi, err := os.Lstat(sock)
		if err != nil {
			return nil, err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || fi.Mode()&os.ModeSocket == 0 || int(st.Uid) != p.uid || fi.Mode().Perm()&0o077 != 0 {
			return nil, fmt.Errorf("process %d: refusing the attach socket %s: it is not the JVM's (a %v of user %d, mode %v)",
				p.pid, sock, fi.Mode().Type(), st.Uid, fi.Mode().Perm())
		}
		return net.Dial("unix", sock)
	}
	c, err := dial()
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ECONNREFUSED) {
		return nil, err
	}
	// A JVM started with -XX:+DisableAttachMechanism would only print a
	// thread dump on SIGQUIT.
	if flag := p.attachDisabledBy(); flag != "" {
		return nil, fmt.Errorf("process %d (%s): %w: it was started with %s", p.pid, p.comm, ErrAttachDisabled, flag)
	}
	trigger, err := p.triggerFile()
	if err != nil {
		return nil, err
	}
	if trigger != "" {
		defer os.Remove(trigger)
	}
	if err := syscall.Kill(p.pid, syscall.SIGQUIT); err != nil {
		return nil, fmt.Errorf("process %d: signalling it: %w", p.pid, err)
	}
	deadline := time.Now().Add(timeout)
	for wait := 20 * time.Millisecond; time.Now().Before(deadline); wait = min(2*wait, 500*time.Millisecond) {
		time.Sleep(wait)
		c, err := dial()
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("process %d (%s): %w: no attach socket %s after %v (started with -XX:+DisableAttachMechanism, or stuck?)",
		p.pid, p.comm, ErrAttachDisabled, sock, timeout)
}

// triggerFile creates .attach_pid<PID> in the JVM's working directory, or
// its /tmp, never through a symbolic link. It returns the file to remove
// afterwards ("" when one was there already).
func (p *process) triggerFile() (string, error) {
	name := fmt.Sprintf(".attach_pid%d", p.nspid)
	var firstErr error
	for _, dir := range []string{fmt.Sprintf("/proc/%d/cwd", p.pid), filepath.Join(p.root, "tmp")} {
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
		if err == nil {
			f.Close()
			return path, nil
		}
		if errors.Is(err, fs.ErrExist) {
			if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode().IsRegular() {
				return "", nil
			}
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return "", fmt.Errorf("process %d: cannot create the attach file: %w", p.pid, firstErr)
}

// attachDisabledBy returns the option that disables attaching in the JVM
// of process pid, "" when none does.
func (p *process) attachDisabledBy() string {
	environ, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.pid))
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
	return disablingOption(environ, cmdline, func(name string) []byte {
		path := filepath.Join(p.root, name)
		if !filepath.IsAbs(name) {
			path = filepath.Join(fmt.Sprintf("/proc/%d/cwd", p.pid), name)
		}
		data, _ := readSmallFile(path, 1<<20)
		return data
	})
}

// disablingOption finds -XX:+DisableAttachMechanism among a JVM's options
// in the order the JVM reads them, the last one winning: JAVA_TOOL_OPTIONS,
// JDK_JAVA_OPTIONS, the command line (with its @argfiles, read by argfile),
// _JAVA_OPTIONS. environ and cmdline are NUL-separated, as /proc has them.
// Options files given with -XX:VMOptionsFile or -XX:Flags are not read:
// for those, attach finds out by waiting for the JVM.
func disablingOption(environ, cmdline []byte, argfile func(name string) []byte) string {
	env := map[string]string{}
	for _, kv := range strings.Split(string(environ), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	words := strings.Fields(env["JAVA_TOOL_OPTIONS"])
	words = append(words, strings.Fields(env["JDK_JAVA_OPTIONS"])...)
	for _, arg := range strings.Split(string(cmdline), "\x00") {
		if name, ok := strings.CutPrefix(arg, "@"); ok && name != "" && !strings.HasPrefix(name, "@") {
			words = append(words, strings.Fields(string(argfile(name)))...)
			continue
		}
		words = append(words, arg)
	}
	words = append(words, strings.Fields(env["_JAVA_OPTIONS"])...)
	flag := ""
	for _, w := range words {
		switch w {
		case "-XX:+DisableAttachMechanism":
			flag = w
		case "-XX:-DisableAttachMechanism":
			flag = ""
		}
	}
	return flag
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

// waitForPort reads the port the agent wrote (atomically) to portFile, its
// token ("token=…") and the notes that follow, one per line.
func waitForPort(portFile string, timeout time.Duration, pid int) (Attachment, error) {
	deadline := time.Now().Add(timeout)
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, 250*time.Millisecond) {
		if data, err := readSmallFile(portFile, 4<<10); err == nil {
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if lines[0] == "failed" {
				// The agent did not start, and says why (an option it refused).
				why := "no reason given"
				if len(lines) > 1 {
					why = textsafe.Inert(strings.TrimPrefix(lines[1], "proftop agent: "))
				}
				return Attachment{}, fmt.Errorf("process %d: %w: %s", pid, ErrAgentFailed, why)
			}
			port, err := strconv.Atoi(strings.TrimSpace(lines[0]))
			if err != nil || port <= 0 || port > 65535 {
				return Attachment{}, fmt.Errorf("process %d: the agent's port file holds %q", pid, data)
			}
			at := Attachment{Port: port}
			for _, l := range lines[1:] {
				if token, ok := strings.CutPrefix(l, "token="); ok {
					at.Token = token
					continue
				}
				at.Notes = append(at.Notes, l)
			}
			return at, nil
		}
		if time.Now().After(deadline) {
			return Attachment{}, fmt.Errorf("process %d: %w: no port from it after %v (see the JVM's standard error)", pid, ErrAgentFailed, timeout)
		}
		time.Sleep(wait)
	}
}
