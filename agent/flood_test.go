package agent

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/protocol"
)

// A flood by another user of the machine, as the audit that found the
// owner locked out for 85 s made it: ten connections at a time sending a
// wrong token and connecting again as soon as they are answered (0.2 s
// after a BUSY), and ten more that connect and say nothing. The JVM's
// user keeps places of its own, and gets in at once.

// floodEnv, set in a copy of this test binary run as another user, makes
// TestFlooder flood the agent at that address.
const floodEnv = "PROFTOP_TEST_FLOOD_ADDR"

// floodSummary is what TestFlooder prints when its standard input closes.
var floodSummary = regexp.MustCompile(`flood: (\d+) connections over (\d+) ms, (\d+) UNAUTHORIZED, (\d+) BUSY, (\d+) closed unanswered`)

// TestFlooder is the attacker of TestWrongTokenFloodFromAnotherUserLeavesTheOwnerIn,
// in a process of its own; skipped unless floodEnv names the agent.
func TestFlooder(t *testing.T) {
	addr := os.Getenv(floodEnv)
	if addr == "" {
		t.Skip("the attacker of TestWrongTokenFloodFromAnotherUserLeavesTheOwnerIn, run as another user")
	}
	var conns, unauthorized, busy, unanswered atomic.Int64
	var stopped atomic.Bool
	go func() {
		io.Copy(io.Discard, os.Stdin) // until the test closes it
		stopped.Store(true)
	}()
	payload, _ := protocol.EncodeMessage("proftop", "agentController", 1, &protocol.Authenticate{Token: "guess"})
	guess := func() {
		for !stopped.Load() {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			conns.Add(1)
			protocol.NewFrameWriter(c, 0).WriteFrame(false, payload)
			c.SetReadDeadline(time.Now().Add(15 * time.Second))
			f, err := protocol.NewFrameReader(c, 0).Next()
			c.Close()
			if err != nil {
				unanswered.Add(1)
				continue
			}
			m, _ := protocol.ParseMessage(f.Payload)
			switch e := m.AsError(); {
			case e != nil && e.Code == protocol.CodeUnauthorized:
				unauthorized.Add(1)
			case e != nil && e.Code == protocol.CodeBusy:
				busy.Add(1)
				time.Sleep(200 * time.Millisecond)
			}
		}
	}
	silent := func() {
		for !stopped.Load() {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			conns.Add(1)
			// Until the agent closes it (a newcomer of its own takes its
			// place, or the deadline to authenticate), or the flood stops.
			for !stopped.Load() {
				c.SetReadDeadline(time.Now().Add(time.Second))
				if _, err := c.Read(make([]byte, 4096)); err != nil {
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						continue
					}
					break
				}
			}
			c.Close()
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(2)
		go func() { defer wg.Done(); guess() }()
		go func() { defer wg.Done(); silent() }()
	}
	wg.Wait()
	fmt.Printf("flood: %d connections over %d ms, %d UNAUTHORIZED, %d BUSY, %d closed unanswered\n",
		conns.Load(), time.Since(start).Milliseconds(), unauthorized.Load(), busy.Load(), unanswered.Load())
}

// The JVM's user gets in at once while user nobody floods the agent: ten
// authentications in a row, each admitted (never BUSY) within a few
// seconds at the very most (milliseconds, on a quiet machine), then
// proftop watches; nobody's guesses stay throttled to five a second.
func TestWrongTokenFloodFromAnotherUserLeavesTheOwnerIn(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("flooding as another user (nobody) needs root")
	}
	j, port := startWithAgent(t, 300, false, "")
	// The attacker: this test binary, copied where user nobody may run it.
	dir, err := os.MkdirTemp("", "proftop-flood-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "flooder")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	flood := exec.Command(bin, "-test.run=^TestFlooder$", "-test.v")
	flood.Dir = dir
	flood.Env = append(os.Environ(), fmt.Sprintf("%s=127.0.0.1:%d", floodEnv, port))
	flood.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var out bytes.Buffer
	flood.Stdout, flood.Stderr = &out, &out
	stop, _ := flood.StdinPipe()
	if err := flood.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flood.Process.Kill(); flood.Wait() })
	time.Sleep(3 * time.Second) // nobody's places fill, its guesses queue

	token, _ := client.LocalToken(port)
	const tries, bound = 10, 5 * time.Second
	var slowest, total time.Duration
	for i := range tries {
		start := time.Now()
		c := dialUnauthenticated(t, "127.0.0.1", port)
		m := c.command(t, uint64(i+1), &protocol.Authenticate{Token: token})
		took := time.Since(start)
		c.Close()
		if m.Name != "authenticated" {
			t.Fatalf("the owner, try %d, after %v: %s %s\nthe flood so far: %s", i+1, took, m.Name, m.Body, out.String())
		}
		slowest, total = max(slowest, took), total+took
		time.Sleep(300 * time.Millisecond)
	}
	start := time.Now()
	w, _, cancel := watch(t, port, client.FormatAuto)
	await(t, w, expectations(t, false)[:1], 60*time.Second)
	cancel()
	watched := time.Since(start)

	stop.Close()
	if err := flood.Wait(); err != nil {
		t.Fatalf("the flooder: %v\n%s", err, out.String())
	}
	m := floodSummary.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("the flooder said: %s", out.String())
	}
	n := func(i int) int64 { v, _ := strconv.ParseInt(m[i], 10, 64); return v }
	conns, ms, unauthorized, busy := n(1), n(2), n(3), n(4)
	rate := float64(unauthorized) / (float64(ms) / 1000)
	t.Logf("%s; the owner authenticated %d times in a row within %v (%v on average), and saw the JVM's threads %v after connecting",
		m[0], tries, slowest.Round(time.Millisecond), (total / tries).Round(time.Millisecond), watched.Round(100*time.Millisecond))
	if slowest > bound {
		t.Fatalf("the owner waited %v, over %v", slowest, bound)
	}
	if conns < 100 || unauthorized+busy < 50 {
		t.Fatalf("no flood to speak of: %s", m[0])
	}
	if rate > 6 {
		t.Fatalf("nobody's wrong tokens answered %.1f a second", rate)
	}
	j.exits(t, 20*time.Second)
}
