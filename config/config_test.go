package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func load(t *testing.T, args []string, env map[string]string, yaml string) (Settings, []Origin, error) {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	file := ""
	if yaml != "" {
		file = filepath.Join(t.TempDir(), "config.yaml")
		os.WriteFile(file, []byte(yaml), 0o644)
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	return Load(fs, file, yaml != "", os.Getenv)
}

func origin(origins []Origin, key string) Origin {
	for _, o := range origins {
		if o.Key == key {
			return o
		}
	}
	return Origin{}
}

// Flags over environment over the file over defaults.
func TestPrecedence(t *testing.T) {
	yaml := "host: from-file\nport: 2000\nrefresh: 5s\ntheme: light\nreconnect: false\n"
	env := map[string]string{"PROFTOP_HOST": "from-env", "PROFTOP_REFRESH": "2s"}
	s, origins, err := load(t, []string{"--host", "from-flag"}, env, yaml)
	if err != nil {
		t.Fatal(err)
	}
	if s.Host != "from-flag" || s.Refresh != 2*time.Second || s.Port != 2000 || s.Theme != "light" || s.Reconnect || s.Format != "auto" || s.Window != 10*time.Second {
		t.Fatalf("%+v", s)
	}
	for key, want := range map[string]string{"host": "flag --host", "refresh": "env PROFTOP_REFRESH", "port": "file ", "format": "default"} {
		if got := origin(origins, key).Source; !strings.HasPrefix(got, want) {
			t.Errorf("%s comes from %q, want %q", key, got, want)
		}
	}
}

// A fleet's hosts: a YAML list in the file, commas anywhere, and the
// file of hosts.
func TestHostLists(t *testing.T) {
	s, origins, err := load(t, nil, nil, "host: [prod-1, \"prod-2:10003\"]\nhosts: /etc/proftop/fleet\n")
	if err != nil {
		t.Fatal(err)
	}
	if s.Host != "prod-1,prod-2:10003" || s.Hosts != "/etc/proftop/fleet" || origin(origins, "host").Value != "prod-1,prod-2:10003" {
		t.Fatalf("%+v", s)
	}
	s, _, err = load(t, nil, map[string]string{"PROFTOP_HOST": "prod-1,prod-2"}, "")
	if err != nil || s.Host != "prod-1,prod-2" {
		t.Fatalf("%+v %v", s, err)
	}
	if _, _, err := load(t, nil, nil, "theme: [dark, light]\n"); err == nil || !strings.Contains(err.Error(), `setting "theme"`) ||
		!strings.Contains(err.Error(), "is a list; this setting takes one value") {
		t.Fatalf("a list where one value belongs: %v", err)
	}
}

// A port typed with the host, as after ssh or curl, is taken from it.
func TestHostWithItsPort(t *testing.T) {
	for _, tc := range []struct {
		args []string
		host string
		port int
	}{
		{[]string{"--host", "prod-1:2000"}, "prod-1", 2000},
		{[]string{"--host", "[::1]:2000"}, "::1", 2000},
		{[]string{"--host", "::1"}, "::1", 10002},
		{[]string{"--host", "prod-1:2000", "--port", "2000"}, "prod-1", 2000},
		{[]string{"--host", "prod-1"}, "prod-1", 10002},
		{[]string{"--host", "prod-1:2000/billing"}, "prod-1/billing", 2000},
		{[]string{"--host", "[::1]:2000/7"}, "::1/7", 2000},
		// A fleet: every entry keeps its own port, the default stays.
		{[]string{"--host", "prod-1,prod-2:2000"}, "prod-1,prod-2:2000", 10002},
		{[]string{"--host", "prod-1:2000 prod-2"}, "prod-1:2000 prod-2", 10002},
	} {
		s, _, err := load(t, tc.args, nil, "")
		if err != nil || s.Host != tc.host || s.Port != tc.port {
			t.Errorf("%v: host %q port %d (%v), want %q %d", tc.args, s.Host, s.Port, err, tc.host, tc.port)
		}
	}
}

func TestBadValuesNameTheKeyAndTheSource(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		yaml string
		want []string
	}{
		{"duration in the file", nil, nil, "refresh: fast\n", []string{`setting "refresh"`, "from file ", "config.yaml", `"fast" is not a duration`}},
		{"out of range", []string{"--refresh", "20ms"}, nil, "", []string{`setting "refresh"`, "from flag --refresh", "outside 100ms to 10s"}},
		{"enum from env", nil, map[string]string{"PROFTOP_FORMAT": "json"}, "", []string{`setting "format"`, "env PROFTOP_FORMAT", `"json" is not one of auto, binary, xml`}},
		{"port", nil, nil, "port: 99999\n", []string{`setting "port"`, "outside 1 to 65535"}},
		{"bad values, each named", []string{"--theme", "pink"}, nil, "refresh: 5ms\nwindow: abc\n", []string{`setting "refresh" (from file `, "5ms is outside 100ms to 10s\n",
			`setting "window" (from file `, `"abc" is not a duration`, `setting "theme" (from flag --theme): "pink" is not one of dark, light`}},
		{"an unknown key and a bad value, both named", nil, nil, "refesh: 1s\nwindow: abc\n", []string{`unknown setting "refesh" (did you mean "refresh"?)`, `"abc" is not a duration`}},
		{"unknown key", nil, nil, "hots: prod-1\n", []string{"config.yaml", `unknown setting "hots" (did you mean "host"?)`}},
		{"unknown keys, each named", nil, nil, "refesh: 1s\ncolour: never\nzzzzzz: 1\n", []string{`unknown settings "colour" (did you mean "color"?), "refesh" (did you mean "refresh"?), "zzzzzz";`}},
		{"a size out of range", []string{"--telemetry-memory", "1k"}, nil, "", []string{"1k is outside 1m to 16g"}},
		// A bare number is bytes: a soft limit of 512 bytes made the
		// collector run all the time.
		{"a memory limit without its unit", nil, nil, "memory-limit: 512\n", []string{`setting "memory-limit"`, "512 is outside 16m to", "or 0 for none", "512m"}},
		{"a number out of range", []string{"--max-message-size", "100"}, nil, "", []string{"100 is outside 1024 to 1073741824"}},
		{"not yaml", nil, nil, "host: [unclosed\n", []string{"config.yaml"}},
		{"backoff order", []string{"--reconnect-min", "10s", "--reconnect-max", "1s"}, nil, "", []string{"reconnect-min"}},
		{"two ports", []string{"--host", "prod-1:2000", "--port", "3000"}, nil, "", []string{`"host" (prod-1:2000) names port 2000`, "flag --port", "3000"}},
		{"port in the host", []string{"--host", "prod-1:http"}, nil, "", []string{`setting "host"`, `"http" is not a port`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := load(t, tc.args, tc.env, tc.yaml)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

func TestConfigFileLocation(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := DefaultFile(env(map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"})); got != "/x/proftop/config.yaml" {
		t.Fatal(got)
	}
	if got := DefaultFile(env(map[string]string{"HOME": "/h"})); got != "/h/.config/proftop/config.yaml" {
		t.Fatal(got)
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	Register(fs)
	if _, _, err := Load(fs, "/no/such/proftop.yaml", false, os.Getenv); err != nil {
		t.Fatalf("an absent default file is fine: %v", err)
	}
	if _, _, err := Load(fs, "/no/such/proftop.yaml", true, os.Getenv); err == nil || !strings.Contains(err.Error(), "/no/such/proftop.yaml") {
		t.Fatalf("an absent explicit file: %v", err)
	}
}

// The application's series and probes: repeatable flags (object names hold
// commas, which stay), a list in the file, one a line in the environment.
func TestTelemetrySpecs(t *testing.T) {
	pattern := "jmx:Catalina:type=ThreadPool,name=*:currentThreadsBusy"
	s, origins, err := load(t, []string{"--telemetry", pattern, "--telemetry", "jfr:bank.Deposit#amount", "--probe", "jfr:bank.Transfer#state"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Telemetry) != 2 || s.Telemetry[0] != pattern || s.Telemetry[1] != "jfr:bank.Deposit#amount" || len(s.Probes) != 1 {
		t.Fatalf("%q %q", s.Telemetry, s.Probes)
	}
	if o := origin(origins, "telemetry"); o.Source != "flag --telemetry" {
		t.Fatalf("%+v", o)
	}
	s, origins, err = load(t, nil, nil, "telemetry:\n  - "+pattern+"\n  - jmx:java.lang:type=Memory:HeapMemoryUsage.used\nprobe: jfr:bank.Transfer\ntelemetry-memory: 64MiB\ntelemetry-window: 10m\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Telemetry) != 2 || s.Telemetry[0] != pattern || len(s.Probes) != 1 || s.Probes[0] != "jfr:bank.Transfer" ||
		s.TelemetryMemory != 64<<20 || s.TelemetryWindow != 10*time.Minute || s.TelemetrySeries != 512 {
		t.Fatalf("%+v", s)
	}
	if o := origin(origins, "telemetry"); !strings.HasPrefix(o.Source, "file ") {
		t.Fatalf("%+v", o)
	}
	s, _, err = load(t, nil, nil, "")
	if err != nil || len(s.Telemetry) != 0 || s.TelemetryMemory != 32<<20 || s.TelemetryWindow != 5*time.Minute {
		t.Fatalf("defaults: %+v %v", s, err)
	}
	for yaml, want := range map[string]string{
		"telemetry-memory: lots\n": `"lots" is not a size`,
		"telemetry-memory: 1k\n":   "outside",
		"telemetry:\n  - 3\n":      "item 1, 3, is not a string",
	} {
		if _, _, err := load(t, nil, nil, yaml); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v", yaml, err)
		}
	}
	// Last: the environment stays set for the rest of the test.
	s, _, err = load(t, nil, map[string]string{"PROFTOP_TELEMETRY": pattern + "\njfr:a.B#c\n"}, "")
	if err != nil || len(s.Telemetry) != 2 || s.Telemetry[0] != pattern {
		t.Fatalf("%q %v", s.Telemetry, err)
	}
}

// rbkit's ports: defaults, flag, environment and file.
func TestRbkitPorts(t *testing.T) {
	s, _, err := load(t, nil, nil, "")
	if err != nil || s.PubPort != 5555 || s.ReqPort != 5556 {
		t.Fatalf("defaults %d/%d, %v", s.PubPort, s.ReqPort, err)
	}
	s, origins, err := load(t, []string{"--pub-port", "6555"}, map[string]string{"PROFTOP_REQ_PORT": "6556"}, "pub-port: 7555\n")
	if err != nil || s.PubPort != 6555 || s.ReqPort != 6556 || origin(origins, "req-port").Source != "env PROFTOP_REQ_PORT" {
		t.Fatalf("%d/%d %v %v", s.PubPort, s.ReqPort, origins, err)
	}
	if _, _, err := load(t, nil, nil, "pub-port: 70000\n"); err == nil || !strings.Contains(err.Error(), `"pub-port"`) {
		t.Fatalf("a port out of range: %v", err)
	}
}

// A size is shown as it is written: 512m, not 536870912; a round trip
// through parseSize gives it back.
func TestSizeText(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0"}, {512 << 20, "512m"}, {1 << 30, "1g"}, {3 << 30, "3g"}, {1536 << 20, "1536m"}, {64 << 10, "64k"}, {1000, "1000"}} {
		got := sizeText(tc.n)
		if back, err := parseSize(got); got != tc.want || err != nil || back != tc.n {
			t.Errorf("sizeText(%d) = %q (read back %d, %v), want %q", tc.n, got, back, err, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"host", "host", 0}, {"hots", "host", 1}, {"hots", "hosts", 1}, {"refesh", "refresh", 1},
		{"colour", "color", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"abc", "ca", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// A memory limit of 0 is none, and one with its unit is taken.
func TestMemoryLimitZeroOrASize(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want int64
	}{{"0", 0}, {"512m", 512 << 20}, {"1g", 1 << 30}} {
		s, _, err := load(t, []string{"--memory-limit", tc.arg}, nil, "")
		if err != nil || s.MemoryLimit != tc.want {
			t.Errorf("--memory-limit %s: %d, %v; want %d", tc.arg, s.MemoryLimit, err, tc.want)
		}
	}
}

// A config file that is no YAML is said in YAML's own words, with the
// file's name, not the library's "While parsing config:".
func TestBrokenConfigFile(t *testing.T) {
	_, _, err := load(t, nil, nil, "host: [a\n")
	if err == nil || !strings.Contains(err.Error(), "config.yaml: not YAML proftop can read: yaml: line 1:") || strings.Contains(err.Error(), "While") {
		t.Fatalf("%v", err)
	}
}

// A PROFTOP_ variable that names no setting is said, with the setting it
// is likely a typo of; settings, other programs' variables and the tests'
// own are not.
func TestUnknownEnvIsSaid(t *testing.T) {
	got := UnknownEnv([]string{
		"PROFTOP_HSOT=prod-1", "PROFTOP_HOST=prod-2", "PROFTOP_REFERSH=2s", "PROFTOP_QQQQQQQQ=1",
		"PROFTOP_TEST_JDKS=/usr/lib/jvm/x", "HOME=/root", "PROFTOPX=1", "PROFTOP_MEMORY_LIMIT=1g",
	})
	want := []string{
		"PROFTOP_HSOT names no proftop setting; it is ignored (did you mean PROFTOP_HOST?)",
		"PROFTOP_QQQQQQQQ names no proftop setting; it is ignored",
		"PROFTOP_REFERSH names no proftop setting; it is ignored (did you mean PROFTOP_REFRESH?)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
