package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proftop/proftop/client"
	"github.com/proftop/proftop/state"
)

// Virtual threads, on the newest JDK present: the agent's picture of a
// workload of virtual threads (hundreds blocked on one monitor and parked
// on one ReentrantLock, fifty on another that a virtual thread holds,
// thousands parked on a latch, one pinned to its carrier again and again,
// two deadlocked on monitors and two on ReentrantLocks) against the JDK's
// own thread dump (jcmd PID Thread.dump_to_file -format=json) taken at
// the same moment. The workload holds still, so that both see the same.

// virtualWorkload compiles testdata/VirtualWorkload.java with the JDK's
// javac and starts it with the agent, for seconds at most; extra goes to
// the workload.
func virtualWorkload(t testing.TB, j jdk, seconds int, jvmArgs []string, extra ...string) (*jvm, int) {
	t.Helper()
	classes := t.TempDir()
	if out, err := exec.Command(j.tool("javac"), "-d", classes, "testdata/VirtualWorkload.java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	_, jar := workload(t)
	portFile := filepath.Join(t.TempDir(), "port")
	args := append(jvmArgs, fmt.Sprintf("-javaagent:%s=port=0,portfile=%s", jar, portFile), "-cp", classes, "VirtualWorkload", strconv.Itoa(seconds))
	vm := startJava(t, j.tool("java"), append(args, extra...)...)
	at, err := waitForPort(portFile, 20*time.Second, vm.cmd.Process.Pid)
	if err != nil {
		t.Fatalf("%v\n%s", err, vm.stderr)
	}
	return vm, at.Port
}

// dumpedThread is one thread of the JDK's JSON thread dump.
type dumpedThread struct {
	TID         string `json:"tid"`
	Time        string `json:"time"`
	Virtual     bool   `json:"virtual"`
	Name        string `json:"name"`
	State       string `json:"state"`
	ParkBlocker *struct {
		Object string `json:"object"`
	} `json:"parkBlocker"`
	BlockedOn     string   `json:"blockedOn"`
	WaitingOn     string   `json:"waitingOn"`
	Carrier       string   `json:"carrier"`
	Stack         []string `json:"stack"`
	MonitorsOwned []struct {
		Locks []*string `json:"locks"`
	} `json:"monitorsOwned"`
	container string
}

// jsonThreadDump runs jcmd Thread.dump_to_file -format=json and reads it.
func jsonThreadDump(t testing.TB, j jdk, pid int) (threads []dumpedThread, at time.Time) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "threads.json")
	before := time.Now()
	jcmdOn(t, j, pid, "Thread.dump_to_file", "-format=json", file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ThreadDump struct {
			Time       time.Time `json:"time"`
			Containers []struct {
				Container string         `json:"container"`
				Threads   []dumpedThread `json:"threads"`
			} `json:"threadContainers"`
		} `json:"threadDump"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the thread dump: %v", err)
	}
	for _, c := range doc.ThreadDump.Containers {
		for _, th := range c.Threads {
			th.container = c.Container
			threads = append(threads, th)
		}
	}
	if doc.ThreadDump.Time.IsZero() {
		return threads, before
	}
	return threads, doc.ThreadDump.Time
}

// jcmdOn runs the JDK's jcmd against pid, retrying while the attach
// mechanism is slow to answer on a busy machine.
func jcmdOn(t testing.TB, j jdk, pid int, args ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := exec.Command(j.tool("jcmd"), append([]string{strconv.Itoa(pid)}, args...)...).CombinedOutput()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("jcmd %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// lockOf is a dump's lock name ("java.lang.Object@1b6d3586") as the
// agent's id: the identity hash.
func lockOf(name string) int64 {
	at := strings.LastIndexByte(name, '@')
	if at < 0 {
		return 0
	}
	v, err := strconv.ParseInt(name[at+1:], 16, 64)
	if err != nil {
		return 0
	}
	return v
}

// frameMethod is a dump's frame's method, without module or loader.
func frameMethod(f string) string {
	if p := strings.IndexByte(f, '('); p >= 0 {
		f = f[:p]
	}
	return f[strings.LastIndexByte(f, '/')+1:]
}

// dumpSite is the method a thread of the dump is in: its first frame
// outside the JDK, as the agent groups them.
func dumpSite(th *dumpedThread) string {
	for _, f := range th.Stack {
		m := frameMethod(f)
		if !strings.HasPrefix(m, "java.") && !strings.HasPrefix(m, "jdk.") && !strings.HasPrefix(m, "sun.") && !strings.HasPrefix(m, "com.sun.") {
			return m
		}
	}
	if len(th.Stack) > 0 {
		return frameMethod(th.Stack[0])
	}
	return ""
}

// dumpLabel is a thread of the dump's state as proftop labels a row of
// virtual threads.
func dumpLabel(th *dumpedThread) string {
	switch {
	case th.Carrier != "" && th.State != "RUNNABLE":
		return "pinned"
	case th.State == "RUNNABLE" && th.Carrier == "":
		return "ready"
	case th.State == "RUNNABLE":
		return "running"
	case th.State == "BLOCKED":
		return "blocked"
	case th.WaitingOn != "":
		return map[string]string{"WAITING": "waiting", "TIMED_WAITING": "timed-waiting"}[th.State]
	}
	for _, f := range th.Stack[:min(len(th.Stack), 8)] {
		m := frameMethod(f)
		if m == "java.lang.VirtualThread.sleepNanos" || strings.HasPrefix(m, "java.lang.Thread.sleep") {
			return "sleeping"
		}
	}
	return "parked"
}

func TestVirtualThreadsMatchTheThreadDump(t *testing.T) {
	j, ok := newestJDK(t, 24)
	if !ok {
		// Before JDK 24 a virtual thread blocked on a monitor holds its
		// carrier: the workload would stall its own scheduler.
		t.Skipf("no JDK 24 or later here (the newest is %s): virtual threads are tested on JDK 24 and later", installedJDKs(t)[len(installedJDKs(t))-1].version)
	}
	t.Logf("on %s", j.version)
	vm, port := virtualWorkload(t, j, 300, nil, "churn")
	w, _, cancel := watch(t, port, client.FormatAuto)
	defer cancel()

	snap := func() *state.Snapshot { return w.agg.Snapshot(time.Now(), state.Query{CallersOf: -1}) }
	// Wait until a listing shows the workload in place.
	settled := func(s *state.Snapshot) bool {
		return s.Virtual != nil && s.Virtual.Count >= 2650 && len(s.Deadlocks) > 1 && len(s.VirtualPinning) > 0
	}
	deadline := time.Now().Add(90 * time.Second)
	for s := snap(); !settled(s); s = snap() {
		if time.Now().After(deadline) {
			t.Fatalf("no listing showed the workload within 90 s: %+v, %d deadlocks, %d pinning sites\n%s", s.Virtual, len(s.Deadlocks),
				len(s.VirtualPinning), vm.stderr)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// The next listing, and the JDK's dump as soon as it arrives.
	previous := snap().Virtual.ListedAt
	var s *state.Snapshot
	for s = snap(); !s.Virtual.ListedAt.After(previous); s = snap() {
		if time.Now().After(deadline.Add(60 * time.Second)) {
			t.Fatalf("no listing after the one at %v", previous)
		}
		time.Sleep(20 * time.Millisecond)
	}
	dump, dumpedAt := jsonThreadDump(t, j, vm.cmd.Process.Pid)
	t.Logf("listing at %s, the JDK's dump at %s; %d virtual threads, %d listed one by one, listing cost %v, every %v",
		s.Virtual.ListedAt.Format("15:04:05.000"), dumpedAt.Format("15:04:05.000"), s.Virtual.Count, s.Virtual.Listed,
		s.Virtual.ListingCost, s.Virtual.ListingPeriod)

	byName := map[string]*dumpedThread{}
	virtual := map[int64]bool{}
	dumpRows := map[[2]string]int64{}
	waitersOf := map[int64]int64{}
	ownerOf := map[int64]string{}
	for i := range dump {
		th := &dump[i]
		byName[th.Name] = th
		for _, m := range th.MonitorsOwned {
			for _, l := range m.Locks {
				if l != nil && *l != th.WaitingOn {
					ownerOf[lockOf(*l)] = th.TID
				}
			}
		}
		if !th.Virtual {
			continue
		}
		id, _ := strconv.ParseInt(th.TID, 10, 64)
		virtual[id] = true
		dumpRows[[2]string{dumpLabel(th), dumpSite(th)}]++
		switch {
		case th.BlockedOn != "":
			waitersOf[lockOf(th.BlockedOn)]++
		case th.WaitingOn != "":
			waitersOf[lockOf(th.WaitingOn)]++
		case th.ParkBlocker != nil:
			waitersOf[lockOf(th.ParkBlocker.Object)]++
		}
	}
	proftopRows := map[[2]string]int64{}
	for _, g := range s.VirtualGroups {
		proftopRows[[2]string{state.VirtualStateLabel(&g), g.Site}] += g.Count
	}

	// The threads that hold still, row by row, as many in each.
	rows := []struct {
		label, site string
		want        int64
	}{
		{"blocked", "VirtualWorkload.monitorWaiter", 300},
		{"parked", "VirtualWorkload.lockWaiter", 300},
		{"parked", "VirtualWorkload.vlockWaiter", 50},
		{"parked", "VirtualWorkload.jucDeadlock", 2},
		{"parked", "VirtualWorkload$OrderService.await", 2000},
		{"blocked", "VirtualWorkload.deadlock", 2},
		{"pinned", "VirtualWorkload.sleep", 1}, // in the class loader, which sleeps
	}
	for _, r := range rows {
		k := [2]string{r.label, r.site}
		t.Logf("%-8s %-36s dump %4d, proftop %4d", r.label, r.site, dumpRows[k], proftopRows[k])
		if dumpRows[k] != r.want {
			t.Errorf("%s in %s: the JDK's dump has %d, the workload made %d", r.label, r.site, dumpRows[k], r.want)
		}
		if proftopRows[k] != dumpRows[k] {
			t.Errorf("%s in %s: proftop shows %d, the JDK's dump %d", r.label, r.site, proftopRows[k], dumpRows[k])
		}
	}

	// Each lock: its virtual waiters, counted whether listed or not, and its owner.
	monitorLock := lockOf(byName["monitor-waiter-0"].BlockedOn)
	reentrant := lockOf(byName["lock-waiter-0"].ParkBlocker.Object)
	vreentrant := lockOf(byName["vlock-waiter-0"].ParkBlocker.Object)
	latch := int64(0)
	for _, th := range dump {
		if dumpSite(&th) == "VirtualWorkload$OrderService.await" && th.ParkBlocker != nil {
			latch = lockOf(th.ParkBlocker.Object)
			break
		}
	}
	monitors := map[int64]*state.Monitor{}
	for i := range s.Monitors {
		m := &s.Monitors[i]
		monitors[m.Object] = m
		if m.Class == "java.lang.VirtualThread" {
			t.Errorf("a virtual thread taken for a lock: %s", state.MonitorName(m))
		}
	}
	for _, lock := range []int64{monitorLock, reentrant, vreentrant, latch} {
		m := monitors[lock]
		if m == nil {
			t.Errorf("no monitor %x in proftop's picture (the dump has %d virtual threads on it)", lock, waitersOf[lock])
			continue
		}
		t.Logf("%-60s virtual waiters: dump %4d, proftop %4d (%d listed); owner %s", state.MonitorName(m), waitersOf[lock],
			m.VirtualWaiters, len(m.Waiters), m.OwnerName)
		if m.VirtualWaiters != waitersOf[lock] {
			t.Errorf("%s: proftop counts %d virtual waiters, the JDK's dump %d", state.MonitorName(m), m.VirtualWaiters, waitersOf[lock])
		}
	}
	ownerID, _ := strconv.ParseInt(ownerOf[monitorLock], 10, 64)
	if m := monitors[monitorLock]; m != nil && (m.Owner != ownerID || !m.OwnerVirtual || m.OwnerName != "monitor-owner" || blocked(m) != 300) {
		t.Errorf("the monitor: owner %d %q (virtual %v), %d blocked; the dump says its owner is %d (monitor-owner)", m.Owner, m.OwnerName,
			m.OwnerVirtual, blocked(m), ownerID)
	}
	// The dump does not say who holds the ReentrantLock; the platform
	// thread parked behind it tells proftop: the platform lock-owner.
	var lockOwner *state.Thread
	for i := range s.Threads {
		if s.Threads[i].Name == "lock-owner" {
			lockOwner = &s.Threads[i]
		}
	}
	if m := monitors[reentrant]; m != nil && (lockOwner == nil || m.Owner != lockOwner.ID || m.OwnerVirtual || blocked(m) != 301) {
		t.Errorf("the ReentrantLock: owner %d %q, %d contending; want lock-owner, 301 contending (300 virtual, 1 platform)", m.Owner,
			m.OwnerName, blocked(m))
	}
	// Nor who holds the other, and no platform thread waits for it: the
	// agent finds its owner in the lock itself, the virtual vlock-owner.
	if m := monitors[vreentrant]; m != nil && (m.OwnerName != "vlock-owner" || !m.OwnerVirtual || blocked(m) != 50) {
		t.Errorf("the ReentrantLock a virtual thread holds: owner %d %q (virtual %v), %d contending; want vlock-owner, 50 contending",
			m.Owner, m.OwnerName, m.OwnerVirtual, blocked(m))
	}
	if m := monitors[latch]; m != nil && (m.VirtualUnlistedWaiting+int64(len(m.Waiters)) != 2000 || blocked(m) != 0) {
		t.Errorf("the latch: %d waiting, %d blocked", m.VirtualUnlistedWaiting+int64(len(m.Waiters)), blocked(m))
	}

	// The deadlock, as the dump's locks and owners make it, and as proftop found it.
	a, b := byName["deadlock-a"], byName["deadlock-b"]
	if ownerOf[lockOf(a.BlockedOn)] != b.TID || ownerOf[lockOf(b.BlockedOn)] != a.TID {
		t.Fatalf("the dump shows no deadlock: %+v %+v", a, b)
	}
	// And the one through ReentrantLocks, whose owners only the locks know.
	ja, jb := byName["jucdead-a"], byName["jucdead-b"]
	if ja.ParkBlocker == nil || jb.ParkBlocker == nil || ja.ParkBlocker.Object == jb.ParkBlocker.Object {
		t.Fatalf("the dump shows jucdead-a and jucdead-b parked otherwise: %+v %+v", ja, jb)
	}
	for _, names := range []string{"deadlock-a,deadlock-b", "jucdead-a,jucdead-b"} {
		found := false
		for _, d := range s.Deadlocks {
			if strings.Join(d.Names, ",") == names && len(d.Virtual) == 2 && d.Virtual[0] && d.Virtual[1] {
				found = true
			}
		}
		if !found {
			t.Errorf("no deadlock of %s among %+v", names, s.Deadlocks)
		}
	}

	// Platform threads only among the threads; carriers marked.
	carriers := 0
	for _, th := range s.Threads {
		if virtual[th.ID] {
			t.Errorf("virtual thread %d (%s) among the platform threads", th.ID, th.Name)
		}
		if th.VirtualCarrier {
			carriers++
		}
	}
	for _, th := range dump {
		if strings.HasPrefix(th.container, "ForkJoinPool-1/") && !th.Virtual && strings.Contains(th.Name, "worker") {
			id, _ := strconv.ParseInt(th.TID, 10, 64)
			found := false
			for _, p := range s.Threads {
				found = found || p.ID == id && p.VirtualCarrier
			}
			if !found {
				t.Errorf("carrier %s (%d) is not marked as one", th.Name, id)
			}
		}
	}
	if carriers == 0 {
		t.Errorf("no carrier among the threads")
	}

	// Pinning: where and how long, from JFR.
	var pin *state.Pinning
	for i := range s.VirtualPinning {
		if s.VirtualPinning[i].Site == "VirtualWorkload.sleep" {
			pin = &s.VirtualPinning[i]
		}
	}
	if pin == nil || pin.Count < 1 || pin.Max < 100*time.Millisecond || pin.Operation == "" {
		t.Errorf("pinning: %+v", s.VirtualPinning)
	} else {
		t.Logf("pinned %d times in %s, longest %v (%s)", pin.Count, pin.Site, pin.Max, pin.Operation)
	}

	// Counts: started and ended keep coming (the churn).
	if s.Virtual.Started <= 0 || s.Virtual.Ended <= 0 {
		t.Errorf("started %d, ended %d", s.Virtual.Started, s.Virtual.Ended)
	}
	total := int64(0)
	for _, th := range dump {
		if th.Virtual {
			total++
		}
	}
	t.Logf("virtual threads: dump %d, proftop %d (%.0f started/s)", total, s.Virtual.Count, s.Virtual.StartedPerSec)

	// A carrier runs the pinned thread: a poll says which.
	pinner, _ := strconv.ParseInt(byName["pinner"].TID, 10, 64)
	deadline = time.Now().Add(30 * time.Second)
	for {
		carried := false
		for _, th := range snap().Threads {
			carried = carried || th.VirtualCarrier && th.VirtualMounted == pinner
		}
		if carried {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no carrier was seen running the pinned thread %d", pinner)
		}
		time.Sleep(200 * time.Millisecond)
	}
	cancel()
	vm.exits(t, 30*time.Second)
}

// blocked counts a monitor's contenders, listed or not.
func blocked(m *state.Monitor) int64 {
	n := m.VirtualUnlistedBlocked
	for _, w := range m.Waiters {
		if !w.Waiting {
			n++
		}
	}
	return n
}
