package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The agent's end-to-end tests run on every JDK the machine has: the one
// on PATH (a JDK 17, which CI installs) and every other under /usr/lib/jvm
// (Temurin 25 where present). PROFTOP_TEST_JDKS, a list of JDK homes
// separated by colons, replaces the search.

// jdk is one Java installation.
type jdk struct {
	home    string
	version string // "25.0.3"
	feature int    // 25
}

func (j jdk) tool(name string) string { return filepath.Join(j.home, "bin", name) }

// name is how a subtest names the JDK: "jdk25".
func (j jdk) name() string { return "jdk" + strconv.Itoa(j.feature) }

var (
	jdksOnce sync.Once
	jdkList  []jdk
)

// installedJDKs lists the JDKs, oldest first, the one on PATH among them.
func installedJDKs(t testing.TB) []jdk {
	t.Helper()
	requireJDK(t)
	jdksOnce.Do(func() {
		var homes []string
		if env := os.Getenv("PROFTOP_TEST_JDKS"); env != "" {
			homes = strings.Split(env, ":")
		} else {
			if java, err := exec.LookPath("java"); err == nil {
				if real, err := filepath.EvalSymlinks(java); err == nil {
					homes = append(homes, filepath.Dir(filepath.Dir(real)))
				}
			}
			dirs, _ := filepath.Glob("/usr/lib/jvm/*")
			homes = append(homes, dirs...)
		}
		seen := map[string]bool{}
		for _, h := range homes {
			real, err := filepath.EvalSymlinks(h)
			if err != nil || seen[real] {
				continue
			}
			seen[real] = true
			j, ok := readJDK(real)
			if ok {
				jdkList = append(jdkList, j)
			}
		}
		sort.SliceStable(jdkList, func(a, b int) bool { return jdkList[a].feature < jdkList[b].feature })
	})
	if len(jdkList) == 0 {
		t.Fatal("no JDK found (java on PATH, /usr/lib/jvm, or PROFTOP_TEST_JDKS): apt-get install openjdk-17-jdk-headless")
	}
	return jdkList
}

// readJDK reads a JDK home's release file; a home without java, javac
// and jcmd is no JDK.
func readJDK(home string) (jdk, bool) {
	for _, tool := range []string{"java", "javac", "jcmd"} {
		if _, err := os.Stat(filepath.Join(home, "bin", tool)); err != nil {
			return jdk{}, false
		}
	}
	data, err := os.ReadFile(filepath.Join(home, "release"))
	if err != nil {
		return jdk{}, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		v, ok := strings.CutPrefix(line, "JAVA_VERSION=")
		if !ok {
			continue
		}
		v = strings.Trim(v, "\"\r ")
		major, _, _ := strings.Cut(v, ".")
		if major == "1" { // 1.8.0_…
			return jdk{}, false
		}
		f, err := strconv.Atoi(major)
		if err != nil || f < 17 {
			return jdk{}, false
		}
		return jdk{home: home, version: v, feature: f}, true
	}
	return jdk{}, false
}

// newestJDK is the newest JDK, if it is at least feature.
func newestJDK(t testing.TB, feature int) (jdk, bool) {
	all := installedJDKs(t)
	j := all[len(all)-1]
	return j, j.feature >= feature
}

// eachJDK runs f as a subtest on every JDK.
func eachJDK(t *testing.T, f func(t *testing.T, j jdk)) {
	for _, j := range installedJDKs(t) {
		t.Run(j.name(), func(t *testing.T) {
			t.Logf("%s (%s)", j.version, j.home)
			f(t, j)
		})
	}
}

// TestJDKsAreFound checks the search itself: the JDK on PATH is among
// those found.
func TestJDKsAreFound(t *testing.T) {
	all := installedJDKs(t)
	out, err := exec.Command("java", "-XshowSettings:properties", "-version").CombinedOutput()
	if err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	var home string
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "java.home = "); ok {
			home, _ = filepath.EvalSymlinks(v)
		}
	}
	var names []string
	found := false
	for _, j := range all {
		names = append(names, j.version)
		found = found || j.home == home
	}
	if !found && os.Getenv("PROFTOP_TEST_JDKS") == "" {
		t.Fatalf("the JDK on PATH (%s) is not among those found: %v", home, all)
	}
	t.Logf("the agent's end-to-end tests run on %s", strings.Join(names, ", "))
}
