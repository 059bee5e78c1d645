package agent

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/proftop/proftop/internal/syncbuf"
)

// The agent is checked against ground truth on real third-party software:
// Tomcat 10 serving JSPs that contend, and H2 updating the same rows from
// many threads. Both come from Debian packages, named when missing.
const (
	catalinaHome = "/usr/share/tomcat10"
	h2Jar        = "/usr/share/java/h2.jar"
)

// requireDebianFile fails the test, naming the Debian package that provides
// path, when path is missing: these tests check the agent on real
// software, so skipping them would hide that they did not run.
func requireDebianFile(t testing.TB, path, pkg string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is needed (%v): apt-get install %s (.ci/run installs it)", path, err, pkg)
	}
}

// requireDebianTool is requireDebianFile for a command on PATH.
func requireDebianTool(t testing.TB, tool, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		t.Fatalf("%s is needed: apt-get install %s (.ci/run installs it)", tool, pkg)
	}
	return path
}

// startProcessGroup starts cmd in a process group of its own, and kills
// the whole group when the test ends, so that nothing it started outlives
// the test. done is closed once the process has been waited for; wait
// then holds the result.
func startProcessGroup(t testing.TB, cmd *exec.Cmd) (done <-chan struct{}, wait *error) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	ch := make(chan struct{})
	var err error
	go func() {
		err = cmd.Wait()
		close(ch)
	}()
	t.Cleanup(func() {
		killProcessGroup(cmd.Process.Pid)
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Errorf("process group %d (%s) still there 10s after SIGKILL", cmd.Process.Pid, cmd.Path)
		}
	})
	return ch, &err
}

// killProcessGroup sends SIGKILL to the process group pgid (a process
// started by startProcessGroup leads its own), ignoring a group already
// gone.
func killProcessGroup(pgid int) {
	syscall.Kill(-pgid, syscall.SIGKILL)
}

// tomcat is a running Tomcat 10 with a CATALINA_BASE of its own in a
// temporary directory, serving testdata/tomcat/webapp as its root
// application: /index.jsp answers at once, /contend.jsp holds the
// application object's monitor for ~2 ms, /rlock.jsp a ReentrantLock.
type tomcat struct {
	PID    int    // the JVM's
	Port   int    // HTTP, on 127.0.0.1
	Base   string // CATALINA_BASE
	Stdout *syncbuf.Buffer
	Stderr *syncbuf.Buffer // Tomcat's log, one line a record
	cmd    *exec.Cmd
	done   <-chan struct{}
	err    *error
}

// URL is the address of path ("/contend.jsp") on this Tomcat.
func (tc *tomcat) URL(path string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", tc.Port, path)
}

// startedConnector is the line Tomcat logs once its HTTP connector
// listens; with port="0" the port it got ends the connector's name.
var startedConnector = regexp.MustCompile(`Starting ProtocolHandler \["http-nio-127\.0\.0\.1-auto-\d+-(\d+)"\]`)

// startTomcat starts Tomcat in the foreground (Bootstrap start, the JVM
// catalina.sh run would exec) with jvmArgs after its own options, so that
// they win and may add -javaagent:… or -XX:StartFlightRecording=…. It
// returns once both contending JSPs answered: Jasper compiles a JSP on its
// first request, which takes a second or more on a busy machine and must
// not count as contention. The process group is killed when the test ends.
func startTomcat(t testing.TB, jvmArgs ...string) *tomcat {
	t.Helper()
	requireJDK(t)
	requireDebianFile(t, filepath.Join(catalinaHome, "bin", "bootstrap.jar"), "tomcat10")
	requireDebianFile(t, filepath.Join(catalinaHome, "lib", "jasper.jar"), "tomcat10")
	base := t.TempDir()
	for _, dir := range []string{"logs", "temp", "work", "webapps/ROOT"} {
		if err := os.MkdirAll(filepath.Join(base, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyTestdata(t, "testdata/tomcat/conf", filepath.Join(base, "conf"))
	copyTestdata(t, "testdata/tomcat/webapp", filepath.Join(base, "webapps", "ROOT"))

	args := []string{
		"-Dcatalina.home=" + catalinaHome,
		"-Dcatalina.base=" + base,
		"-Djava.io.tmpdir=" + filepath.Join(base, "temp"),
		"-Djava.util.logging.config.file=" + filepath.Join(base, "conf", "logging.properties"),
		"-Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager",
		"-Djdk.tls.ephemeralDHKeySize=2048",
		"-Dorg.apache.catalina.security.SecurityListener.UMASK=0027",
		// catalina.sh's: without them Tomcat warns at every stop.
		"--add-opens=java.base/java.lang=ALL-UNNAMED",
		"--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
		"--add-opens=java.base/java.io=ALL-UNNAMED",
		"--add-opens=java.base/java.util=ALL-UNNAMED",
		"--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
		"--add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED",
	}
	args = append(args, jvmArgs...)
	args = append(args, "-cp", filepath.Join(catalinaHome, "bin", "bootstrap.jar")+":"+filepath.Join(catalinaHome, "bin", "tomcat-juli.jar"),
		"org.apache.catalina.startup.Bootstrap", "start")
	cmd := exec.Command("java", args...)
	cmd.Dir = base
	tc := &tomcat{Base: base, Stdout: &syncbuf.Buffer{}, Stderr: &syncbuf.Buffer{}, cmd: cmd}
	cmd.Stdout, cmd.Stderr = tc.Stdout, tc.Stderr
	tc.done, tc.err = startProcessGroup(t, cmd)
	tc.PID = cmd.Process.Pid

	deadline := time.Now().Add(60 * time.Second)
	for tc.Port == 0 {
		if m := startedConnector.FindStringSubmatch(tc.Stderr.String()); m != nil {
			tc.Port, _ = strconv.Atoi(m[1])
			break
		}
		tc.alive(t, deadline, "opened its HTTP connector")
		time.Sleep(50 * time.Millisecond)
	}
	for _, path := range []string{"/index.jsp", "/contend.jsp", "/rlock.jsp"} {
		tc.get(t, path, deadline)
	}
	return tc
}

// alive fails the test when Tomcat has ended or deadline has passed,
// saying what it was waiting for and what Tomcat logged.
func (tc *tomcat) alive(t testing.TB, deadline time.Time, what string) {
	t.Helper()
	select {
	case <-tc.done:
		t.Fatalf("Tomcat ended (%v) before it %s:\n%s%s", *tc.err, what, tc.Stdout, tc.Stderr)
	default:
	}
	if time.Now().After(deadline) {
		t.Fatalf("Tomcat had not %s by %v:\n%s%s", what, deadline.Format(time.TimeOnly), tc.Stdout, tc.Stderr)
	}
}

// get requests path until it answers 200 or deadline passes: the first
// request of a JSP waits for its compilation.
func (tc *tomcat) get(t testing.TB, path string, deadline time.Time) {
	t.Helper()
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var last string
	for {
		resp, err := client.Get(tc.URL(path))
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = fmt.Sprintf("%s: %s", resp.Status, body)
		} else {
			last = err.Error()
		}
		tc.alive(t, deadline, fmt.Sprintf("answered %s (last: %s)", path, last))
		time.Sleep(100 * time.Millisecond)
	}
}

// stop ends Tomcat as a service manager would, with SIGTERM, and waits up
// to within for it to exit: the JVM's shutdown then runs, which writes a
// recording started with dumponexit=true. Tomcat takes from 0.2 to 2
// seconds to stop; the cleanup's SIGKILL does not wait for that.
func (tc *tomcat) stop(t testing.TB, within time.Duration) {
	t.Helper()
	syscall.Kill(tc.PID, syscall.SIGTERM)
	select {
	case <-tc.done:
	case <-time.After(within):
		t.Fatalf("Tomcat did not stop within %v of SIGTERM:\n%s", within, tc.Stderr)
	}
}

// copyTestdata copies the regular files of src into dst, created if needed.
func copyTestdata(t testing.TB, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// abResult is what ApacheBench measured.
type abResult struct {
	Complete int     // requests answered
	Failed   int     // requests that failed (connect, receive, length, exceptions)
	Non2xx   int     // responses other than 2xx
	RPS      float64 // requests per second, mean
	Output   string  // ab's report
}

var (
	abComplete = regexp.MustCompile(`(?m)^Complete requests:\s+(\d+)`)
	abFailed   = regexp.MustCompile(`(?m)^Failed requests:\s+(\d+)`)
	abNon2xx   = regexp.MustCompile(`(?m)^Non-2xx responses:\s+(\d+)`)
	abRPS      = regexp.MustCompile(`(?m)^Requests per second:\s+([0-9.]+)`)
)

// parseAB reads ab's report; a report without a request rate is an error
// (ab stopped before measuring, or could not connect).
func parseAB(out string) (abResult, error) {
	r := abResult{Output: out}
	m := abRPS.FindStringSubmatch(out)
	if m == nil {
		return r, errors.New("no \"Requests per second\" in ab's output")
	}
	r.RPS, _ = strconv.ParseFloat(m[1], 64)
	for re, n := range map[*regexp.Regexp]*int{abComplete: &r.Complete, abFailed: &r.Failed, abNon2xx: &r.Non2xx} {
		if m := re.FindStringSubmatch(out); m != nil {
			*n, _ = strconv.Atoi(m[1])
		}
	}
	return r, nil
}

// runAB loads url with concurrency clients for d (whole seconds, at least
// one) and returns what ab measured.
func runAB(t testing.TB, url string, concurrency int, d time.Duration) abResult {
	t.Helper()
	return startAB(t, url, concurrency, d).Wait()
}

// abRun is ab loading a URL in the background.
type abRun struct {
	t      testing.TB
	url    string
	cmd    *exec.Cmd
	out    *syncbuf.Buffer
	done   <-chan struct{}
	wait   *error
	once   sync.Once
	result abResult
}

// startAB starts loading url with concurrency clients for d (whole
// seconds, at least one) and returns at once: Wait waits for ab to finish,
// Stop stops it now with SIGINT (ab then reports what it measured so far);
// both fail the test when ab measured nothing.
func startAB(t testing.TB, url string, concurrency int, d time.Duration) *abRun {
	t.Helper()
	ab := requireDebianTool(t, "ab", "apache2-utils")
	seconds := max(1, int((d+time.Second-1)/time.Second))
	// -t implies -n 50000; the -n after it lifts that limit so that time
	// alone ends the run. -r: a failed receive is counted, not fatal.
	cmd := exec.Command(ab, "-q", "-r", "-c", strconv.Itoa(concurrency), "-t", strconv.Itoa(seconds), "-n", "100000000", url)
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	done, wait := startProcessGroup(t, cmd)
	return &abRun{t: t, url: url, cmd: cmd, out: out, done: done, wait: wait}
}

// Wait waits for ab to end by itself.
func (r *abRun) Wait() abResult { return r.finish(false) }

// Stop stops ab now.
func (r *abRun) Stop() abResult { return r.finish(true) }

func (r *abRun) finish(stop bool) abResult {
	r.t.Helper()
	r.once.Do(func() {
		if !stop {
			<-r.done
		} else {
			syscall.Kill(-r.cmd.Process.Pid, syscall.SIGINT)
			select {
			case <-r.done:
			case <-time.After(10 * time.Second):
				r.t.Fatalf("ab did not stop within 10s of SIGINT:\n%s", r.out)
			}
		}
		var err error
		r.result, err = parseAB(r.out.String())
		if err != nil {
			r.t.Fatalf("ab %s: %v, %v:\n%s", r.url, *r.wait, err, r.out)
		}
	})
	return r.result
}

var (
	h2Once sync.Once
	h2Dir  string
	h2Err  error
)

// h2Classes compiles testdata/h2/H2Load.java against Debian's H2 and
// returns the directory of its classes. javac takes seconds on a busy
// machine, so the classes are kept in the system's temporary directory
// under a name that a hash of the source and of the jar gives, and later
// runs reuse them; they are renamed into place whole, so a directory of
// that name is always complete.
func h2Classes(t testing.TB) string {
	t.Helper()
	requireJDK(t)
	requireDebianFile(t, h2Jar, "libh2-java")
	h2Once.Do(func() {
		src, err := os.ReadFile("testdata/h2/H2Load.java")
		jar, jarErr := os.Stat(h2Jar)
		if err = errors.Join(err, jarErr); err != nil {
			h2Err = err
			return
		}
		sum := sha256.Sum256(fmt.Appendf(src, "\n%s %d %d", h2Jar, jar.Size(), jar.ModTime().UnixNano()))
		h2Dir = filepath.Join(os.TempDir(), fmt.Sprintf("proftop-h2load-%x", sum[:8]))
		if _, err := os.Stat(filepath.Join(h2Dir, "H2Load.class")); err == nil {
			return
		}
		tmp, err := os.MkdirTemp("", "proftop-h2load-build")
		if err != nil {
			h2Err = err
			return
		}
		defer os.RemoveAll(tmp)
		out, err := exec.Command("javac", "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC",
			"--release", "17", "-cp", h2Jar, "-d", tmp, "testdata/h2/H2Load.java").CombinedOutput()
		if err != nil {
			h2Err = fmt.Errorf("javac H2Load.java: %v\n%s", err, out)
			return
		}
		// Another test binary may have put it in place meanwhile: then its
		// copy, as complete as this one, stays.
		if err := os.Rename(tmp, h2Dir); err != nil {
			if _, statErr := os.Stat(filepath.Join(h2Dir, "H2Load.class")); statErr != nil {
				h2Err = err
			}
		}
	})
	if h2Err != nil {
		t.Fatal(h2Err)
	}
	return h2Dir
}

// startH2Load runs testdata/h2/H2Load.java for seconds (or until its
// standard input is closed: jvm.exits), with jvmArgs before the class
// path. It returns once every thread of the workload runs; its process
// group is killed when the test ends.
func startH2Load(t testing.TB, seconds int, jvmArgs ...string) *jvm {
	t.Helper()
	classes := h2Classes(t)
	args := append(append([]string{}, jvmArgs...), "-cp", h2Jar+":"+classes, "H2Load", strconv.Itoa(seconds))
	cmd := exec.Command("java", args...)
	j := &jvm{cmd: cmd, done: make(chan error, 1), stderr: &syncbuf.Buffer{}}
	cmd.Stderr = j.stderr
	j.stdin, _ = cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	t.Cleanup(func() {
		killProcessGroup(cmd.Process.Pid)
		select {
		case <-reaped:
		case <-time.After(10 * time.Second):
			t.Errorf("H2Load (pid %d) still there 10s after SIGKILL", cmd.Process.Pid)
		}
	})
	started := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "h2load started" {
				close(started)
			}
		}
		err := cmd.Wait()
		close(reaped)
		j.done <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case <-started:
	case <-reaped:
		t.Fatalf("H2Load ended before it started:\n%s", j.stderr)
	case <-ctx.Done():
		t.Fatalf("H2Load did not start within 30s:\n%s", j.stderr)
	}
	return j
}

// ab's report read: a run of contend.jsp, and runs that measured nothing.
func TestTomcatParseAB(t *testing.T) {
	data, err := os.ReadFile("testdata/truth/ab-contend.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseAB(string(data))
	if err != nil {
		t.Fatal(err)
	}
	got.Output = ""
	if want := (abResult{Complete: 571, RPS: 285.29}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, out := range []string{
		"",
		"Benchmarking 127.0.0.1 (be patient)\napr_socket_connect(): Connection refused (111)\n",
	} {
		if r, err := parseAB(out); err == nil {
			t.Errorf("%q read as %+v", out, r)
		}
	}
}
