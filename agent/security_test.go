package agent

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/internal/syncbuf"
	"github.com/proftop/proftop/protocol"
)

// The agent's defences, tried as another user of the machine would: the
// token, the deadline to authenticate, the throttle on wrong tokens, the
// places of connections waiting to authenticate, and the application's
// heap against a client that stops reading.

// dialSmallWindow connects with a receive buffer of 4 KiB, set before the
// connection so that the window the agent sees is small: a client that
// stops reading stops the agent's writes almost at once.
func dialSmallWindow(t *testing.T, port int) *rawConn {
	t.Helper()
	d := net.Dialer{Control: func(network, address string, c syscall.RawConn) error {
		var err error
		c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return err
	}}
	c, err := d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	raw := &rawConn{Conn: c, r: protocol.NewFrameReader(c, 0), w: protocol.NewFrameWriter(c, 0)}
	token, _ := client.LocalToken(port)
	if m := raw.command(t, 1000, &protocol.Authenticate{Token: token}); m.Name != "authenticated" {
		t.Fatalf("authenticate: %s %s", m.Name, m.Body)
	}
	return raw
}

// startMonitoringUnread asks for the trace and reads nothing of it.
func (c *rawConn) startMonitoringUnread(t *testing.T) {
	t.Helper()
	c.command(t, 1, &protocol.Attach{AgentID: "1"})
	c.command(t, 2, &protocol.SetOutputFormat{Format: "binary"})
	payload, _ := protocol.EncodeMessage("proftop", "agent:1", 3, &protocol.StartMonitoring{})
	if err := c.w.WriteFrame(false, payload); err != nil {
		t.Fatal(err)
	}
}

// The proof that a client cannot take the application's memory: an
// application in a 64 MiB heap that keeps 32 MiB alive and allocates
// steadily, with 200 threads whose stacks the agent reports ten times a
// second (poll=100ms: megabytes of trace a second), watched by a client
// that starts monitoring and reads nothing for 60 s. The agent queues at
// most 2 MiB (1/32 of the heap), drops the client, and the application
// finishes its work. (The agent before this bound queued up to 64 MiB:
// the application died of OutOfMemoryError.)
func TestStalledClientLeavesTheApplicationItsHeap(t *testing.T) {
	_, jar := workload(t)
	classes := t.TempDir()
	if out, err := exec.Command("javac", "--release", "17", "-d", classes, "testdata/Allocator.java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	portFile := filepath.Join(t.TempDir(), "port")
	cmd := exec.Command("java", "-Xmx64m", fmt.Sprintf("-javaagent:%s=port=0,portfile=%s,poll=100ms", jar, portFile),
		"-cp", classes, "Allocator", "60", "32", "200", "50")
	var stdout, stderr syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	at, err := waitForPort(portFile, 20*time.Second, cmd.Process.Pid)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	c := dialSmallWindow(t, at.Port)
	c.startMonitoringUnread(t)
	select {
	case err = <-exited:
	case <-time.After(5 * time.Minute):
		t.Fatalf("the application did not finish its work\n%s", stderr.String())
	}
	if err != nil || strings.Contains(stderr.String(), "OutOfMemoryError") || !strings.Contains(stdout.String(), "done:") {
		t.Fatalf("the application: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "the client fell more than 2 MiB behind the trace") {
		t.Fatalf("the stalled client was not dropped:\n%s", stderr.String())
	}
	t.Logf("%s", strings.TrimSpace(stdout.String()))
}

// A client that falls behind is dropped, and told why: reading again, it
// finds the frames written before and then the reason, an error with
// ctxt 0. The place is free again for the next client.
func TestClientThatFellBehindIsToldWhy(t *testing.T) {
	j, port := startWithAgent(t, 120, false, ",backlog=64k,poll=100ms")
	c := dialSmallWindow(t, port)
	c.startMonitoringUnread(t)
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(j.stderr.String(), "fell more than 64 KiB behind") {
		if time.Now().After(deadline) {
			t.Fatalf("not dropped:\n%s", j.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var last protocol.Message
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		f, err := c.r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading what was sent: %v", err)
		}
		if !f.Data {
			last, _ = protocol.ParseMessage(f.Payload)
		}
	}
	e := last.AsError()
	if last.Ctxt != 0 || e == nil || e.Code != protocol.CodeTooSlow || !strings.Contains(e.Message, "it was dropped; the application runs on") {
		t.Fatalf("the last control frame: ctxt %d %s %s", last.Ctxt, last.Name, last.Body)
	}
	t.Logf("told: %s", e)
	c.Close()
	// The next connection of the same user is told too (a client that
	// reads again too late never sees the reason above), once.
	token, _ := client.LocalToken(port)
	told := authenticateOnceFree(t, port, token)
	if d := told.LastDrop; d == nil || d.Code != protocol.CodeTooSlow || d.MsAgo < 0 || d.MsAgo > 120_000 ||
		!strings.Contains(d.Message, "fell more than 64 KiB behind") {
		t.Fatalf("the next connection was told: %+v", told.LastDrop)
	}
	if again := authenticateOnceFree(t, port, token); again.LastDrop != nil {
		t.Fatalf("told twice: %+v", again.LastDrop)
	}
	j.exits(t, 20*time.Second)
}

// authenticateOnceFree authenticates once the agent's place is free again
// (a session that just ended frees it within moments), and disconnects.
func authenticateOnceFree(t *testing.T, port int, token string) protocol.Authenticated {
	t.Helper()
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		c := dialUnauthenticated(t, "127.0.0.1", port)
		m := c.command(t, 1, &protocol.Authenticate{Token: token})
		c.Close()
		if m.Name == "authenticated" {
			var in protocol.Authenticated
			if err := m.Decode(&in); err != nil {
				t.Fatal(err)
			}
			return in
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("the place is still taken: %s %s", m.Name, m.Body)
		}
	}
}

// The deadline to authenticate covers the whole exchange: a peer sending
// its first frame a byte every two seconds (it would take minutes) is
// cut off at 10 s.
func TestSlowSenderIsCutOffAtTheDeadline(t *testing.T) {
	j, port := startWithAgent(t, 120, false, "")
	c := dialUnauthenticated(t, "127.0.0.1", port)
	frame, _ := protocol.EncodeMessage("proftop", "agentController", 1, &protocol.Authenticate{Token: "slow"})
	frame = append(binary.BigEndian.AppendUint32([]byte("PTAC\x00\x00\x00\x00"), uint32(len(frame))), frame...)
	start := time.Now()
	closed := make(chan time.Duration, 1)
	go func() {
		io.Copy(io.Discard, c)
		closed <- time.Since(start)
	}()
	var took time.Duration
loop:
	for _, b := range frame {
		c.Write([]byte{b})
		select {
		case took = <-closed:
			break loop
		case <-time.After(2 * time.Second):
		}
	}
	if took == 0 {
		t.Fatalf("still connected after sending %d bytes over %v", len(frame), time.Since(start))
	}
	t.Logf("cut off after %v", took.Round(100*time.Millisecond))
	if took > 30*time.Second {
		t.Fatalf("cut off after %v", took)
	}
	j.exits(t, 20*time.Second)
}

// slowLoris opens a connection that sends its first frame a byte every
// two seconds until stop is closed.
func slowLoris(t *testing.T, port int, stop <-chan struct{}, wg *sync.WaitGroup) {
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Error(err)
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer c.Close()
		for _, b := range []byte("PTAC\x00\x00\x00\x00\x00\x00\x01\x00") {
			if _, err := c.Write([]byte{b}); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Second):
			}
		}
	}()
}

// Connections that do not authenticate cannot lock the owner out: while
// every waiting place is taken by connections younger than a second, a
// newcomer is told at once why it is refused; then the owner's proftop
// takes the place of a slow one, and watches.
func TestPendingConnectionsCannotLockTheOwnerOut(t *testing.T) {
	j, port := startWithAgent(t, 120, false, "")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() { close(stop); wg.Wait() }()
	first := time.Now()
	for range 8 {
		slowLoris(t, port, stop, &wg)
	}
	late := dialUnauthenticated(t, "127.0.0.1", port)
	late.SetReadDeadline(time.Now().Add(10 * time.Second))
	f, err := late.r.Next()
	if quick := time.Since(first) < 500*time.Millisecond; quick {
		m, _ := protocol.ParseMessage(f.Payload)
		if e := m.AsError(); err != nil || m.Ctxt != 0 || e == nil || e.Code != protocol.CodeBusy || !strings.Contains(e.Message, "waiting to authenticate") {
			t.Fatalf("a ninth connection: %v %s %s", err, m.Name, m.Body)
		}
	} else {
		t.Logf("the connections took %v to open: the refusal is not checked", time.Since(first))
	}
	// More slow connections keep coming; the owner gets in all the same.
	for range 4 {
		slowLoris(t, port, stop, &wg)
	}
	time.Sleep(1500 * time.Millisecond)
	w, _, cancel := watch(t, port, client.FormatAuto)
	await(t, w, expectations(t, false)[:1], 30*time.Second)
	cancel()
	j.exits(t, 20*time.Second)
}

// Wrong tokens are checked one at a time, each holding the next back for
// 200 ms: four guessers as fast as they can get a handful of answers a
// second, where there were about 120, and the owner, among them, gets in.
func TestWrongTokensAreThrottled(t *testing.T) {
	j, port := startWithAgent(t, 120, false, "")
	var answers atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	guess := func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				continue
			}
			payload, _ := protocol.EncodeMessage("proftop", "agentController", 1, &protocol.Authenticate{Token: "guess"})
			protocol.NewFrameWriter(c, 0).WriteFrame(false, payload)
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if f, err := protocol.NewFrameReader(c, 0).Next(); err == nil {
				if m, _ := protocol.ParseMessage(f.Payload); m.AsError() != nil && m.AsError().Code == protocol.CodeUnauthorized {
					answers.Add(1)
				}
			}
			c.Close()
		}
	}
	start := time.Now()
	for range 4 {
		wg.Add(1)
		go guess()
	}
	s := client.NewSession(client.Config{Host: "127.0.0.1", Port: port, Reconnect: true, ReconnectMin: 100 * time.Millisecond, ReconnectMax: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		for b := range s.Batches() {
			if len(b.Events()) > 0 {
				cancel()
			}
			s.Recycle(b)
		}
	}()
	s.Run(ctx)
	in := time.Since(start)
	time.Sleep(3*time.Second - min(in, 3*time.Second))
	close(stop)
	wg.Wait()
	span := time.Since(start)
	rate := float64(answers.Load()) / span.Seconds()
	t.Logf("%d wrong tokens answered in %v (%.1f a second); the owner streamed after %v", answers.Load(), span.Round(time.Millisecond), rate, in.Round(time.Millisecond))
	if s.Status().Streams == 0 {
		t.Fatalf("the owner never got in: %+v", s.Status())
	}
	if rate > 6 {
		t.Fatalf("%.1f wrong tokens a second", rate)
	}
	j.exits(t, 20*time.Second)
}

// The token goes where only the JVM's user reads it, and nowhere else:
// not on the command line, not in the JVM's output.
func TestTokenIsHandedToTheOwnerOnly(t *testing.T) {
	j, port := startWithAgent(t, 120, false, "")
	token, path := client.LocalToken(port)
	if len(token) != 64 {
		t.Fatalf("token %q from %q", token, path)
	}
	for _, p := range []string{path, filepath.Dir(path)} {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Fatalf("%s: %v, %v", p, fi.Mode(), err)
		}
	}
	if strings.Contains(j.stderr.String(), token) {
		t.Fatalf("the token is in the JVM's output: %s", j.stderr)
	}
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", j.cmd.Process.Pid))
	if strings.Contains(string(cmdline), token) {
		t.Fatal("the token is on the command line")
	}
	j.exits(t, 20*time.Second)
	// The JVM gone, so is the file.
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s after the JVM exited: %v", path, err)
	}
}

// What held before the agent required a token still holds with it: a
// client killed mid-stream, then a thousand connections at once, random
// bytes, commands made to make a regular expression work hard, none of
// them authenticated; then the owner's proftop gets in, and the
// application runs on.
func TestNoiseDoesNotHurtTheAgent(t *testing.T) {
	// Ten minutes at most (it ends when told): the thousand connections
	// and the noise take minutes on a loaded machine, and the owner must
	// still find the JVM running.
	j, port := startWithAgent(t, 600, false, "")
	// First a client killed in the middle of the stream: its connection
	// reset, as kill -9 leaves it; its session ends while the noise comes.
	killed := dialRaw(t, port)
	killed.startMonitoringUnread(t)
	killed.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.ReadAtLeast(killed.Conn, make([]byte, 4096), 4096); err != nil {
		t.Fatalf("no trace before the kill: %v", err)
	}
	killed.Conn.(*net.TCPConn).SetLinger(0)
	killed.Close()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	var conns []net.Conn
	for range 1000 {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			break // the listen queue is full: the agent is busy refusing
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Close()
	}
	noise := [][]byte{
		[]byte("\x00\xff random \x1b[2J bytes that are no frame at all"),
		append([]byte("PTAC\x00\x00\x00\x00\x00\x00\x0f\xa0"), []byte("<Cmd "+strings.Repeat(`a="`, 1333))...),
		append([]byte("PTAC\x00\x00\x00\x00\x00\x00\x0f\xa0<Cmd>"), []byte(strings.Repeat("<x", 1998))...),
	}
	for _, n := range noise {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write(n)
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		io.Copy(io.Discard, c) // answered or closed, within the deadline
		c.Close()
	}
	start := time.Now()
	w, s, cancel := watchWith(t, client.Config{Host: "127.0.0.1", Port: port, Reconnect: true,
		ReconnectMin: 200 * time.Millisecond, ReconnectMax: 2 * time.Second})
	// The killed client's session ends once JFR, which it had started, can
	// be stopped: seconds on a loaded machine, and proftop tries again
	// (BUSY until then).
	await(t, w, expectations(t, false)[:1], 3*time.Minute)
	t.Logf("%d connections opened at once; then the owner's proftop saw the JVM's threads after %v (%d attempts before)",
		len(conns), time.Since(start).Round(100*time.Millisecond), s.Status().Attempt)
	cancel()
	j.exits(t, 20*time.Second)
}

// Anyone may make /tmp/proftop-UID before the JVM's user does: the agent
// then hands its token over in a directory of its user's own beside it,
// proftop-UID-RANDOM (where proftop looks too), says which name was taken,
// and starts. Run against a root of its own instead of /tmp.
func TestSquattedTokenDirectoryDoesNotStopTheAgent(t *testing.T) {
	classpath := checkClasspath(t, "HandoverCheck")
	uid := os.Geteuid()
	name := "proftop-" + strconv.Itoa(uid)
	handover := func(root string) (dir, stderr string) {
		var out, errs bytes.Buffer
		cmd := exec.Command("java", "-cp", classpath, "io.proftop.agent.HandoverCheck", root, strconv.Itoa(uid))
		cmd.Stdout, cmd.Stderr = &out, &errs
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v\n%s%s", err, out.String(), errs.String())
		}
		d, ok := strings.CutPrefix(strings.TrimSpace(out.String()), "dir: ")
		if !ok {
			t.Fatalf("%s%s", out.String(), errs.String())
		}
		return d, errs.String()
	}
	for _, tc := range []struct {
		name  string
		squat func(path string) error
		says  string
	}{
		{"nobody did", nil, ""},
		{"another user's directory", func(path string) error {
			if uid != 0 {
				t.Skip("giving a directory to another user needs root")
			}
			if err := os.Mkdir(path, 0o700); err != nil {
				return err
			}
			return os.Chown(path, 65534, 65534)
		}, "belongs to user 65534"},
		{"a directory open to all", func(path string) error {
			if err := os.Mkdir(path, 0o777); err != nil {
				return err
			}
			return os.Chmod(path, 0o777)
		}, "is open to other users (rwxrwxrwx)"},
		{"a symbolic link", func(path string) error { return os.Symlink(t.TempDir(), path) }, "is a symbolic link"},
		{"a file", func(path string) error { return os.WriteFile(path, nil, 0o600) }, "is not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			squatted := filepath.Join(root, name)
			if tc.squat != nil {
				if err := tc.squat(squatted); err != nil {
					t.Fatal(err)
				}
			}
			dir, stderr := handover(root)
			if tc.squat == nil {
				if dir != squatted || stderr != "" {
					t.Fatalf("%s\n%s", dir, stderr)
				}
				return
			}
			if !strings.HasPrefix(dir, squatted+"-") || !strings.Contains(stderr, squatted+" "+tc.says) ||
				!strings.Contains(stderr, "the token goes to "+dir+" instead") {
				t.Fatalf("%s\n%s", dir, stderr)
			}
			fi, err := os.Lstat(dir)
			if st, ok := fi.Sys().(*syscall.Stat_t); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 || !ok || int(st.Uid) != uid {
				t.Fatalf("%s: %v %v", dir, fi.Mode(), err)
			}
			// Started again, the agent takes the same directory, not one more.
			if again, _ := handover(root); again != dir {
				t.Fatalf("again: %s, first %s", again, dir)
			}
			t.Logf("%s", strings.TrimSpace(stderr))
		})
	}
}
