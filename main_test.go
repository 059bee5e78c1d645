package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proftop/proftop/bundle"
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
	if code != 1 || out != "" || !strings.Contains(errs, "offset 12: message #1, id 1041 (custom): field size: message size below its 6-byte header") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errs)
	}
	_, errs, code = run(t, nil, "decode", "/no/such/file.trcbin")
	if code != 1 || !strings.Contains(errs, "/no/such/file.trcbin") {
		t.Fatalf("exit %d: %q", code, errs)
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startSimulator runs `proftop simulate` as its own process and waits until it listens.
func startSimulator(t testing.TB, args ...string) int {
	port, _ := startSimulatorProcess(t, args...)
	return port
}

func startSimulatorProcess(t testing.TB, args ...string) (int, *os.Process) {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(proftopBin, append([]string{"simulate", "-q", "--listen", fmt.Sprintf("127.0.0.1:%d", port)}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return port, cmd.Process
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the simulator did not start listening")
	return 0, nil
}

func TestBatchAgainstTheSimulator(t *testing.T) {
	port := startSimulator(t)
	out, errs, code := run(t, nil, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--batch", "-n", "2", "--json", "--refresh", "500ms")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, %d lines\n%s\n%s", code, len(lines), out, errs)
	}
	var last struct {
		State       string
		Format      string
		Negotiation string
		Events      int64
	}
	if err := json.Unmarshal([]byte(lines[1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.State != "streaming" || last.Format != "binary" || last.Negotiation != "negotiated" || last.Events == 0 {
		t.Fatalf("%+v", last)
	}
}

func TestWrongPortGivesAClearMessage(t *testing.T) {
	out, errs, code := run(t, nil, "--host", "127.0.0.1", "--port", strconv.Itoa(freePort(t)), "--batch", "-n", "1", "--reconnect=false")
	if code != 1 || !strings.Contains(errs, "connection refused by 127.0.0.1:") || strings.Contains(errs, "goroutine") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// A proftop killed while recording leaves a file that decodes up to its
// last complete message.
func TestRecordingSurvivesKill(t *testing.T) {
	port := startSimulator(t, "--rate", "200000")
	dir := t.TempDir()
	cmd := exec.Command(proftopBin, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--batch", "--record", filepath.Join(dir, "kill"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kill.trcbin")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if st, err := os.Stat(path); err == nil && st.Size() > 1<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("nothing recorded")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	out, errs, code := run(t, nil, "decode", path, "--stats")
	events := 0
	fmt.Sscanf(out[strings.Index(out, "events"):], "events %d", &events)
	// The file ends wherever the kill struck: cleanly, or inside a message.
	if events < 5000 || (code != 0 && !strings.Contains(errs, "stream ends inside a message")) {
		t.Fatalf("exit %d, %d events\n%s\n%s", code, events, out, errs)
	}
	t.Logf("%d events decoded from the recording of a killed proftop (%s)", events, strings.TrimSpace(errs))
}

// Arguments no command takes are refused with what was wrong, exit 1:
// a completion for a shell that does not exist, a negative count.
func TestNonsenseArgumentsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"completion", "bogus"}, `unknown command "bogus" for "completion"`},
		{[]string{"completion", "bas"}, "did you mean bash?"},
		{[]string{"demo", "--batch", "-n", "-1"}, "--iterations (-n) is a number of snapshots, 0 or more"},
		{[]string{"demo", "--batch", "--top", "-3"}, "--top is a number of rows"},
		{[]string{"attach", "1", "--port", "1", "--batch"}, "--port does not apply to proftop attach: proftop connects to the agent it loads"},
		{[]string{"atach", "4242"}, "did you mean attach?"},
		// A flag of proftop's that means nothing to the command is refused, with why.
		{[]string{"replay", "x.trcbin", "--host", "prod-1", "--batch"}, "--host does not apply to proftop replay: replay reads a file"},
		{[]string{"demo", "--port", "7", "--batch"}, "--port does not apply to proftop demo: demo watches the simulated profiler it starts"},
		{[]string{"rbkit", "--probe", "jfr:x", "--batch"}, "--probe does not apply to proftop rbkit: rbkit speaks its own protocol"},
		{[]string{"rbkit", "--host", "127.0.0.1:6555", "--batch"}, `--host "127.0.0.1:6555" names port 6555: rbkit's ports are --pub-port (data) and --req-port (commands)`},
		{[]string{"rbkit", "--host", "a,b", "--batch"}, `--host "a,b": rbkit watches one Ruby process, on one host`},
		{[]string{"demo", "--rbkit", "--telemetry", "jmx:x:y", "--batch"}, "--telemetry does not apply to proftop demo --rbkit"},
		{[]string{"completion", "bash", "--refresh", "1s"}, "--refresh does not apply to proftop completion bash (see proftop completion bash --help)"},
		// A missing argument is named, with what it is.
		{[]string{"replay"}, "replay needs FILE, the trace or bundle to replay"},
		{[]string{"attach"}, "attach needs PID, the process id of the JVM"},
		{[]string{"decode"}, "decode needs FILE, the trace to decode"},
		{[]string{"export", "--format", "pprof"}, "export needs SOURCE"},
	} {
		out, errs, code := run(t, nil, tc.args...)
		if code != 1 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %.80q; want exit 1 saying %q", tc.args, code, errs, out, tc.want)
		}
	}
	if out, _, code := run(t, nil, "completion", "bash"); code != 0 || !strings.Contains(out, "bash completion") {
		t.Errorf("completion bash: exit %d, %.80q", code, out)
	}
}

// A command's help lists, under their headings, the flags of proftop's it
// takes, and none it would refuse: decode takes none, replay no
// connection's. proftop's own help files every flag under a heading.
func TestHelpListsTheFlagsThatApply(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		has, lacks []string
	}{
		{[]string{"--help"}, []string{"\n  Connection:\n", "\n  Display:\n", "\n  Batch output:\n", "\n  Limits:\n", "--host string", "--pub-port", "--window", "--config"}, []string{"Global Flags"}},
		{[]string{"replay", "--help"}, []string{"--follow", "proftop's flags that apply here:", "\n  Display:\n", "--window duration", "--batch", "--max-methods", "do not: replay reads a file"}, []string{"--host", "--port", "--token", "--reconnect", "--probe", "Connection:", "Global Flags"}},
		{[]string{"help", "attach"}, []string{"--agent-options", "--token", "--reconnect", "--probe"}, []string{"--host ", "--hosts", "--port", "--pub-port"}},
		{[]string{"rbkit", "--help"}, []string{"--host string", "host of the Ruby process", "--pub-port", "--record"}, []string{"--hosts", "--port int", "--token", "--probe", "agent controller", "fleet"}},
		{[]string{"config", "--help"}, []string{"--host string", "--window", "--tree-nodes"}, []string{"do not:"}},
		{[]string{"decode", "--help"}, []string{"--stats", "--max-message-size"}, []string{"--batch", "--window", "--config", "apply here", "Global Flags"}},
		{[]string{"simulate", "--help"}, []string{"--listen"}, []string{"--refresh", "--window", "--max-methods", "apply here"}},
	} {
		out, errs, code := run(t, nil, tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		for _, want := range tc.has {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %q in\n%s", tc.args, want, out)
			}
		}
		for _, unwanted := range tc.lacks {
			if strings.Contains(out, unwanted) {
				t.Errorf("%v: %q in\n%s", tc.args, unwanted, out)
			}
		}
	}
	// Every flag of proftop's is under a heading: none is left to "Other"
	// but cobra's own.
	out, _, _ := run(t, nil, "--help")
	other := out[strings.Index(out, "\n  Other:\n"):]
	if n := strings.Count(other, "\n    "); n != 2 || !strings.Contains(other, "--help") || !strings.Contains(other, "--version") {
		t.Errorf("flags under no heading:\n%s", other)
	}
}

// A setting given by the environment or a config file holds for every
// command, and is not refused where it means nothing (only a flag given
// there is): a config file naming the host still replays a file.
func TestSettingsThatDoNotApplyAreNotRefused(t *testing.T) {
	cmd := exec.Command(proftopBin, "replay", "testdata/sample.trcbin", "--batch")
	cmd.Env = append(os.Environ(), "PROFTOP_HOST=prod-1", "PROFTOP_PORT=7")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "THREADS") || strings.Contains(string(out), "warning") {
		t.Fatalf("%v:\n%s", err, out)
	}
}

// A PROFTOP_ variable with a typo in its name is not ignored in silence:
// a warning names it and the setting it was likely meant to be, and the
// command still runs.
func TestATypoInAnEnvironmentVariableIsSaid(t *testing.T) {
	cmd := exec.Command(proftopBin, "replay", "testdata/sample.trcbin", "--batch")
	cmd.Env = append(os.Environ(), "PROFTOP_REFERSH=2s")
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "THREADS") {
		t.Fatalf("%v:\n%s%s", err, out.String(), errs.String())
	}
	want := "proftop: warning: PROFTOP_REFERSH names no proftop setting; it is ignored (did you mean PROFTOP_REFRESH?)\n"
	if errs.String() != want {
		t.Fatalf("stderr %q, want %q", errs.String(), want)
	}
}

// replay refuses a file that is not a trace before showing anything, with
// the interface as in batch mode, and exits 1.
func TestReplayRefusesWhatIsNotATrace(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"notes.txt":  "hello, this is not a trace\n",
		"data.json":  `{"threads": []}`,
		"empty.trc":  "",
		"random.bin": "\x00\x01\x02\x03\xff\xfe",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"replay", path, "--batch"}, {"replay", path}} {
			out, errs, code := run(t, nil, args...)
			if code != 1 || out != "" || !strings.Contains(errs, path) || !strings.Contains(errs, "not a trace") {
				t.Errorf("%v: exit %d\nstdout %.200q\nstderr %q", args, code, out, errs)
			}
		}
	}
}

// --batch exits with status 1, saying why, when it never received
// anything, reconnecting or not.
func TestBatchExitsWith1WhenItNeverConnects(t *testing.T) {
	port := strconv.Itoa(freePort(t))
	out, errs, code := run(t, nil, "--host", "127.0.0.1", "--port", port, "--batch", "-n", "1", "--refresh", "500ms")
	if code != 1 || !strings.Contains(errs, "gave up after 1 snapshot without") || !strings.Contains(errs, "connection refused by 127.0.0.1:"+port) ||
		strings.Contains(errs, "goroutine") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// The snapshot asked for was printed, saying what the connection is doing.
	if !strings.Contains(out, "127.0.0.1:"+port) {
		t.Fatalf("no snapshot:\n%s", out)
	}
}

// proftop config shows that a token is set, never the token, wherever
// it came from.
func TestConfigMasksTheToken(t *testing.T) {
	const secret = "s3cr3t-t0ken-never-shown"
	masked := fmt.Sprintf("set: %d characters, not shown", len(secret))
	for _, tc := range []struct {
		env        []string
		args       []string
		from, want string
	}{
		{[]string{"PROFTOP_TOKEN=" + secret}, []string{"config"}, "env PROFTOP_TOKEN", masked},
		{nil, []string{"config", "--token", secret}, "flag --token", masked},
		// None set: shown as empty, not as a secret of two characters.
		{[]string{"PROFTOP_TOKEN="}, []string{"config"}, "default", ` "" `},
	} {
		cmd := exec.Command(proftopBin, tc.args...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
		cmd.Env = append(cmd.Env, tc.env...)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(out), secret) {
			t.Fatalf("%v %v: %v\n%s", tc.env, tc.args, err, out)
		}
		var line string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "token ") {
				line = l
			}
		}
		if !strings.Contains(line, tc.want) || !strings.Contains(line, tc.from) {
			t.Fatalf("%v %v: token line %q", tc.env, tc.args, line)
		}
	}
}

// agent-jar DIR writes the agent into the directory under its own name:
// a jar whose manifest names the agent's entry points.
func TestAgentJarIntoADirectory(t *testing.T) {
	dir := t.TempDir()
	out, errs, code := run(t, nil, "agent-jar", dir)
	jar := filepath.Join(dir, "proftop-agent.jar")
	if code != 0 || !strings.Contains(out, jar) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	zr, err := zip.OpenReader(jar)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := zr.Open("META-INF/MANIFEST.MF")
	if err != nil {
		t.Fatal(err)
	}
	manifest, _ := io.ReadAll(f)
	if !strings.Contains(string(manifest), "Premain-Class:") || !strings.Contains(string(manifest), "Agent-Class:") {
		t.Fatalf("manifest:\n%s", manifest)
	}
}

// A go build binary, without the release's ldflags, names the commit it
// was built from (and whether the tree had changes); a tagged module
// installed with go install, its version. The release's ldflags win.
func TestVersionFromBuildInfo(t *testing.T) {
	vcs := func(settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	tagged := vcs()
	tagged.Main.Version = "v1.4.0"
	pseudo := vcs("vcs.revision", "ed550ea3e3f7aa11")
	pseudo.Main.Version = "v0.0.0-20261123053930-ed550ea3e3f7"
	for _, tc := range []struct {
		v, c, d string
		info    *debug.BuildInfo
		want    string
	}{
		{"dev", "none", "unknown", vcs("vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-11-20T10:00:00Z", "vcs.modified", "false"),
			"proftop dev (commit 0123456789ab, built 2026-11-20T10:00:00Z)"},
		{"dev", "none", "unknown", vcs("vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-11-20T10:00:00Z", "vcs.modified", "true"),
			"proftop dev (commit 0123456789ab+changes, built 2026-11-20T10:00:00Z)"},
		{"dev", "none", "unknown", tagged, "proftop v1.4.0 (commit none, built unknown)"},
		{"dev", "none", "unknown", pseudo, "proftop dev (commit ed550ea3e3f7, built unknown)"},
		{"dev", "none", "unknown", nil, "proftop dev (commit none, built unknown)"},
		{"1.2.3", "abc123", "2026-01-02", vcs("vcs.revision", "0123456789abcdef"), "proftop 1.2.3 (commit abc123, built 2026-01-02)"},
	} {
		if got := versionOf(tc.v, tc.c, tc.d, tc.info); got != tc.want {
			t.Errorf("%s %s %s: %q, want %q", tc.v, tc.c, tc.d, got, tc.want)
		}
	}
}

// A recording whose writer was killed ends inside a message: export
// writes the call tree of what came before, says where the trace ended,
// and exits 1 so that a script knows the profile is of part of it.
func TestExportATruncatedRecording(t *testing.T) {
	whole, err := os.ReadFile("testdata/sample.trcbin")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "killed.trcbin")
	if err := os.WriteFile(cut, whole[:len(whole)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	full, part := filepath.Join(dir, "full.collapsed"), filepath.Join(dir, "part.collapsed")
	if _, errs, code := run(t, nil, "export", "testdata/sample.trcbin", "--format", "collapsed", "-o", full); code != 0 {
		t.Fatalf("the whole trace: exit %d\n%s", code, errs)
	}
	_, errs, code := run(t, nil, "export", cut, "--format", "collapsed", "-o", part)
	if code != 1 || !strings.Contains(errs, "stream ends inside a message") || !strings.Contains(errs, "the profile written holds the trace up to there") {
		t.Fatalf("the trace cut short: exit %d\n%s", code, errs)
	}
	a, _ := os.ReadFile(full)
	b, err := os.ReadFile(part)
	if err != nil || len(b) == 0 {
		t.Fatalf("the profile of the trace cut short: %d bytes (%v)", len(b), err)
	}
	// Every stack of the part is one of the whole's, weighing no more.
	stacks := func(text []byte) map[string]int64 {
		out := map[string]int64{}
		for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
			i := strings.LastIndexByte(line, ' ')
			n, err := strconv.ParseInt(line[i+1:], 10, 64)
			if i < 0 || err != nil {
				t.Fatalf("not a collapsed stack: %q", line)
			}
			out[line[:i]] = n
		}
		return out
	}
	all := stacks(a)
	for stack, n := range stacks(b) {
		if m, ok := all[stack]; !ok || n > m {
			t.Errorf("the part's %q weighs %d; the whole's %d (there: %v)", stack, n, m, ok)
		}
	}
}

// Errors joined (a fleet's, one a JVM) are said one a line, the lines
// after the first indented, each as inert as the screen shows it: no
// escaped newline ("\x0a"), no raw control character from a peer.
func TestErrorTextSaysJoinedErrorsOneALine(t *testing.T) {
	err := errors.Join(errors.New(`a: cannot resolve host "a"`), errors.New("b: the agent said \x1b[2Jhello"))
	got := errorText(err)
	if !strings.HasPrefix(got, `a: cannot resolve host "a"`+"\n  b: the agent said ") || strings.Contains(got, "\x1b") || strings.Contains(got, `\x0a`) {
		t.Fatalf("%q", got)
	}
	// A peer's newline inside one error begins no line of its own.
	if got := errorText(errors.New("c: the agent said x\nproftop: all fine")); got != `c: the agent said x\x0aproftop: all fine` {
		t.Fatalf("%q", got)
	}
}

// A speed below 0 (or no number) is refused: it played as fast as possible
// without a word.
func TestReplayRefusesABadSpeed(t *testing.T) {
	for _, speed := range []string{"-2", "NaN", "Inf"} {
		_, errs, code := run(t, nil, "replay", "testdata/sample.trcbin", "--speed", speed, "--batch", "-n", "1")
		if code != 1 || !strings.Contains(errs, "--speed") || !strings.Contains(errs, "0 or more") {
			t.Errorf("--speed %s: exit %d, %q", speed, code, errs)
		}
	}
}

// A batch run that never received anything writes no bundle: one of
// nothing (0 pictures, 12 bytes of raw stream) read as a quiet JVM's.
func TestNoBundleOfNothing(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // refused from now on
	path := filepath.Join(t.TempDir(), "b.tar.gz")
	_, errs, code := run(t, nil, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--batch", "-n", "2", "--refresh", "200ms", "--bundle", path)
	if _, statErr := os.Stat(path); code != 1 || !strings.Contains(errs, "no bundle written: nothing was received") || statErr == nil {
		t.Fatalf("exit %d, bundle %v:\n%s", code, statErr, errs)
	}
}

// A bundle written without its raw stream (--stream-ring 0) reopens with
// its history, and says why nothing plays; standard input is replayed
// as a file is, read once.
func TestReplayOfABundleWithoutItsStreamAndOfStandardInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.tar.gz")
	if _, errs, code := run(t, nil, "replay", "--batch", "-n", "1", "--stream-ring", "0", "--bundle", path, "testdata/sample.trcbin"); code != 0 {
		t.Fatalf("writing the bundle: exit %d\n%s", code, errs)
	}
	out, errs, code := run(t, nil, "replay", "--batch", path)
	if code != 0 || !strings.Contains(out, "the bundle holds no raw stream") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errs)
	}
	history, errs, code := run(t, nil, "replay", "--batch", "--json", "--history", path)
	if code != 0 || strings.Count(history, "\n") != 1 || !strings.Contains(history, `"picture"`) {
		t.Fatalf("its history: exit %d:\n%s\n%s", code, history, errs)
	}
	trace, err := os.ReadFile("testdata/sample.trcbin")
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code = run(t, trace, "replay", "--batch", "-")
	if code != 0 || !strings.Contains(out, "standard input") || !strings.Contains(out, "events 400") {
		t.Fatalf("standard input: exit %d:\n%s\n%s", code, out, errs)
	}
}

// A batch run says where it recorded: the file is named by the format
// received, not always as given (--record x.trcxml of a binary stream).
func TestBatchRecordingSaysWhereItWent(t *testing.T) {
	port := startSimulator(t)
	given := filepath.Join(t.TempDir(), "x.trcxml")
	_, errs, code := run(t, nil, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--batch", "-n", "1", "--format", "binary", "--record", given)
	written := strings.TrimSuffix(given, ".trcxml") + ".trcbin"
	if _, err := os.Stat(written); code != 0 || err != nil || !strings.Contains(errs, "proftop: recorded to "+written) {
		t.Fatalf("exit %d, %v:\n%s", code, err, errs)
	}
}

// A batch run that writes a bundle takes its history's last picture at
// its end, as one that prints its history does: stopped between two
// refreshes, the bundle's history ended a refresh before its picture.
func TestBatchBundleHistoryEndsAtTheEnd(t *testing.T) {
	port := startSimulator(t)
	path := filepath.Join(t.TempDir(), "b.tar.gz")
	cmd := exec.Command(proftopBin, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--batch", "--refresh", "4s", "--bundle", path)
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(6 * time.Second) // a picture at 4 s, the run stopped at 6
	stopped := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	b, err := bundle.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Pictures) == 0 {
		t.Fatal("no picture in the bundle")
	}
	if last := b.Pictures[len(b.Pictures)-1].At; stopped.Sub(last) > time.Second {
		t.Fatalf("the history's last picture at %s, %v before the run stopped", last.Format("15:04:05.000"), stopped.Sub(last))
	}
}
