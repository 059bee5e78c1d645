package agent

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeProcess is a process of this test's user whose root is a temporary
// directory, so that what attach does in "its" /tmp can be checked.
func fakeProcess(t *testing.T) *process {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "tmp"), 0o1777); err != nil {
		t.Fatal(err)
	}
	return &process{pid: os.Getpid(), nspid: 4242, root: root, uid: os.Geteuid(), gid: os.Getegid(), comm: "java"}
}

// The agent's directory is private to the JVM's user. One that someone
// else prepared under its name (open to others, or a symbolic link) is not
// used.
func TestAgentDirIsPrivate(t *testing.T) {
	p := fakeProcess(t)
	dir, err := p.agentDir()
	if err != nil || p.inJVM(dir) != filepath.Join("/tmp", "proftop-"+strconv.Itoa(p.uid)) {
		t.Fatalf("%s, %v", dir, err)
	}
	if err := p.private(dir, true); err != nil {
		t.Fatal(err)
	}
	again, err := p.agentDir()
	if err != nil || again != dir {
		t.Fatalf("the second time: %s, %v", again, err)
	}

	for name, prepare := range map[string]func(path string){
		"open to others": func(path string) { os.Mkdir(path, 0o777); os.Chmod(path, 0o777) },
		"a symbolic link": func(path string) {
			os.Mkdir(path+"-elsewhere", 0o700)
			os.Symlink(path+"-elsewhere", path)
		},
	} {
		p := fakeProcess(t)
		planted := filepath.Join(p.root, "tmp", "proftop-"+strconv.Itoa(p.uid))
		prepare(planted)
		dir, err := p.agentDir()
		if err != nil || dir == planted || !strings.HasPrefix(filepath.Base(dir), "proftop-"+strconv.Itoa(p.uid)+"-") {
			t.Fatalf("%s: used %s, %v", name, dir, err)
		}
		if err := p.private(dir, true); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// A jar already there is reused only when it is the same bytes in a file
// no one but the JVM's user may change; otherwise it is written anew.
func TestJarIsRewrittenUnlessPrivate(t *testing.T) {
	p := fakeProcess(t)
	dir, err := p.agentDir()
	if err != nil {
		t.Fatal(err)
	}
	jar := filepath.Join(dir, "agent.jar")
	for name, prepare := range map[string]func(){
		"absent":         func() { os.Remove(jar) },
		"other bytes":    func() { os.WriteFile(jar, []byte("not the agent"), 0o600) },
		"world-writable": func() { os.WriteFile(jar, Jar, 0o666); os.Chmod(jar, 0o666) },
		"a symlink":      func() { os.Remove(jar); os.Symlink("/etc/hostname", jar) },
	} {
		prepare()
		if err := p.writeJar(jar); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, _ := os.ReadFile(jar)
		if !bytes.Equal(data, Jar) {
			t.Fatalf("%s: the jar holds %d other bytes", name, len(data))
		}
		if err := p.private(jar, false); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	before, _ := os.Stat(jar)
	time.Sleep(10 * time.Millisecond)
	if err := p.writeJar(jar); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(jar); !os.SameFile(before, after) {
		t.Fatal("a private jar with the same bytes was written again")
	}
}

// An attach socket that is not the JVM's (open to everyone here) is
// refused before anything is sent to it.
func TestForeignAttachSocketIsRefused(t *testing.T) {
	p := fakeProcess(t)
	sock := filepath.Join(p.root, "tmp", ".java_pid4242")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	os.Chmod(sock, 0o666)
	_, err = p.attachSocket(time.Second)
	if err == nil || !strings.Contains(err.Error(), "refusing the attach socket") {
		t.Fatalf("%v", err)
	}
	select {
	case <-accepted:
		t.Fatal("connected to the foreign socket")
	case <-time.After(100 * time.Millisecond):
	}
	// The same socket, closed to others, is used.
	os.Chmod(sock, 0o600)
	c, err := p.attachSocket(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func TestDisablingOption(t *testing.T) {
	nul := func(words ...string) []byte { return []byte(strings.Join(words, "\x00") + "\x00") }
	for _, tc := range []struct {
		environ, cmdline []byte
		want             string
	}{
		{nil, nul("java", "-cp", ".", "Main"), ""},
		{nil, nul("java", "-XX:+DisableAttachMechanism", "Main"), "-XX:+DisableAttachMechanism"},
		{nul("JAVA_TOOL_OPTIONS=-Xmx1g -XX:+DisableAttachMechanism"), nul("java", "Main"), "-XX:+DisableAttachMechanism"},
		// The command line is read after JAVA_TOOL_OPTIONS, _JAVA_OPTIONS after both.
		{nul("JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism"), nul("java", "-XX:-DisableAttachMechanism", "Main"), ""},
		{nul("_JAVA_OPTIONS=-XX:+DisableAttachMechanism"), nul("java", "-XX:-DisableAttachMechanism", "Main"), "-XX:+DisableAttachMechanism"},
		{nul("OTHER=-XX:+DisableAttachMechanism"), nul("java", "Main"), ""},
		{nul("JDK_JAVA_OPTIONS=-XX:+DisableAttachMechanism"), nul("java", "Main"), "-XX:+DisableAttachMechanism"},
		{nul("JDK_JAVA_OPTIONS=-XX:+DisableAttachMechanism"), nul("java", "-XX:-DisableAttachMechanism", "Main"), ""},
		{nil, nul("java", "@opts.txt", "Main"), "-XX:+DisableAttachMechanism"},
		{nil, nul("java", "@opts.txt", "-XX:-DisableAttachMechanism", "Main"), ""},
	} {
		argfiles := map[string]string{"opts.txt": "-Xmx1g\n-XX:+DisableAttachMechanism\n"}
		if got := disablingOption(tc.environ, tc.cmdline, func(name string) []byte { return []byte(argfiles[name]) }); got != tc.want {
			t.Errorf("environ %q, cmdline %q: %q, want %q", tc.environ, tc.cmdline, got, tc.want)
		}
	}
}

// What attach reads in the JVM's directories is read only if it is a small
// regular file: never a FIFO (which would block), a device, or a link.
func TestReadSmallFileRefusesOthers(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "port")
	os.WriteFile(regular, []byte("4242\n"), 0o600)
	if data, err := readSmallFile(regular, 16); err != nil || string(data) != "4242\n" {
		t.Fatalf("%q, %v", data, err)
	}
	if _, err := readSmallFile(regular, 2); err == nil {
		t.Fatal("a file over the limit was read")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(regular, link)
	for _, path := range []string{fifo, link, "/dev/zero"} {
		done := make(chan error, 1)
		go func() { _, err := readSmallFile(path, 16); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				t.Fatalf("%s was read", path)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("reading %s blocked", path)
		}
	}
}

// An option the agent refuses is said at once (within the 10 s it waited
// before, on a loaded machine), as the agent words it: it waited ten
// seconds for a port and said none came (the reason was on the
// JVM's standard error, not proftop's). The agent did not start, and an
// attach with good options then starts it.
func TestRefusedOptionIsSaidAtOnce(t *testing.T) {
	j := startWorkloadOn(t, "java", 60, nil)
	for _, c := range []struct{ options, says string }{
		{"bogus=1", `unknown option "bogus" (known: port, portfile, host`},
		{"sample=fast", "sample=fast is not a duration like 20ms or 1s"},
	} {
		start := time.Now()
		_, err := Attach(j.cmd.Process.Pid, AttachOptions{AgentOptions: c.options})
		if took := time.Since(start); err == nil || !errors.Is(err, ErrAgentFailed) || !strings.Contains(err.Error(), c.says) || took > 9*time.Second {
			t.Fatalf("%s: %v after %v, want %q at once", c.options, err, took.Round(time.Millisecond), c.says)
		}
	}
	if _, err := Attach(j.cmd.Process.Pid, AttachOptions{}); err != nil {
		t.Fatalf("good options after refused ones: %v\n%s", err, j.stderr)
	}
	// Running now, it refuses options it cannot read and runs on: said as
	// a note beside its port, not as an agent that could not start.
	at, err := Attach(j.cmd.Process.Pid, AttachOptions{AgentOptions: "bogus=1"})
	if err != nil || at.Port == 0 || len(at.Notes) != 1 || !strings.Contains(at.Notes[0], `already running, with its first options: these were refused: proftop agent: unknown option "bogus"`) {
		t.Fatalf("options refused by the running agent: %+v, %v", at, err)
	}
}
