package agent

import (
	"os/exec"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/decode"
)

// A JFR allocation sample weighs what its thread allocated since the
// thread's previous sample, and a thread that never had one counts from
// its start: attached to a JVM that had allocated 1.2 GB/s for 12 s, the
// first second read 14.7 GB. A thread alive when the agent's recording
// began now has its first sample left out. The JVM here allocates 256 MiB
// a second for 8 s before the agent is attached, then for 6 s watched.
func TestAllocationsOfAJVMAttachedLate(t *testing.T) {
	const perSecond = 256 << 20
	requireJDK(t)
	classes := t.TempDir()
	if out, err := exec.Command("javac", "--release", "17", "-d", classes, "testdata/SteadyAllocator.java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	j := startJava(t, "java", "-Xmx128m", "-cp", classes, "SteadyAllocator", "256")
	time.Sleep(8 * time.Second) // 2 GiB allocated before
	at, err := Attach(j.cmd.Process.Pid, AttachOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, j.stderr)
	}
	w, _, cancel := watch(t, at.Port, client.FormatAuto)
	defer cancel()
	from := time.Now()
	time.Sleep(6 * time.Second)
	span := time.Since(from)
	var bytes int64
	w.find(func(ev decode.Event) bool {
		if a, ok := ev.(*decode.Allocation); ok && a.Class == "byte[]" {
			bytes += a.Bytes
		}
		return false
	})
	ratio := float64(bytes) / (perSecond * span.Seconds())
	t.Logf("byte[] reported over %v watched: %.0f MiB, %.2f× what the JVM allocates in that time", span.Round(time.Millisecond), float64(bytes)/(1<<20), ratio)
	// Sampled estimates, reported a second late: within a wide margin of
	// the rate, far below the 2 GiB the first sample carried.
	if ratio > 1.6 || ratio < 0.2 {
		t.Errorf("byte[]: %.0f MiB reported over %v, %.2f× the %d MiB a second allocated", float64(bytes)/(1<<20), span.Round(time.Millisecond), ratio, perSecond>>20)
	}
}
