package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkReplayOfARealJVM records a real JVM's stream and measures what
// replaying it costs against decoding it: H2 (Debian's libh2-java) under
// agent/testdata/h2/H2Load.java, watched for 30 s by `proftop attach PID
// --record`, then `proftop replay --batch FILE` and `proftop decode
// --stats FILE`, each the real binary in its own process, timed by the
// CPU time the kernel counts for it (user and system). Reported: the CPU
// milliseconds of each and their ratio (target: a replay within 2× its
// decoding), and the file's size and events. Needs java, javac and
// libh2-java; skipped without them.
func BenchmarkReplayOfARealJVM(b *testing.B) {
	const h2Jar = "/usr/share/java/h2.jar"
	for _, need := range []string{"java", "javac"} {
		if _, err := exec.LookPath(need); err != nil {
			b.Skipf("%s is needed (apt-get install openjdk-17-jdk-headless)", need)
		}
	}
	if _, err := os.Stat(h2Jar); err != nil {
		b.Skip("H2 is needed: apt-get install libh2-java")
	}
	dir := b.TempDir()
	if out, err := exec.Command("javac", "--release", "17", "-cp", h2Jar, "-d", dir, "agent/testdata/h2/H2Load.java").CombinedOutput(); err != nil {
		b.Fatalf("javac: %v\n%s", err, out)
	}
	h2 := exec.Command("java", "-cp", h2Jar+":"+dir, "H2Load", "300")
	stdin, _ := h2.StdinPipe() // H2Load stops when its standard input closes
	stdout, _ := h2.StdoutPipe()
	if err := h2.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); h2.Process.Kill(); h2.Wait() }()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); !strings.Contains(line, "h2load started") {
		b.Fatalf("H2Load says %q", line)
	}
	trace := filepath.Join(dir, "h2.trcbin")
	if out, err := exec.Command(proftopBin, "attach", strconv.Itoa(h2.Process.Pid), "--batch", "-n", "30", "--record", trace).CombinedOutput(); err != nil {
		b.Fatalf("attach: %v\n%s", err, out)
	}
	stdin.Close()
	h2.Process.Kill()
	fi, err := os.Stat(trace)
	if err != nil {
		b.Fatal(err)
	}
	cpuOf := func(args ...string) time.Duration {
		cmd := exec.Command(proftopBin, args...)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("proftop %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "decode" {
			for _, line := range strings.Split(string(out), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "events" {
					n, _ := strconv.ParseFloat(f[1], 64)
					b.ReportMetric(n, "events")
				}
			}
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var decodeCPU, replayCPU time.Duration
	for b.Loop() {
		decodeCPU += cpuOf("decode", "--stats", trace)
		replayCPU += cpuOf("replay", "--batch", trace)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(decodeCPU), "decode-cpu-ms")
	b.ReportMetric(ms(replayCPU), "replay-cpu-ms")
	b.ReportMetric(float64(replayCPU)/float64(decodeCPU), "replay/decode")
	b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
}
