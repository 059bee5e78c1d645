// Package config loads proftop's settings: command-line flags over
// PROFTOP_* environment variables over the config file
// ($XDG_CONFIG_HOME/proftop/config.yaml) over defaults. viper is used here
// and in main only; everything else receives the plain Settings struct.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	edlib "github.com/hbollon/go-edlib"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Settings is every setting, resolved and checked.
type Settings struct {
	Host               string // one host, or several separated by commas: a fleet
	Hosts              string // a file listing the hosts of a fleet
	Port               int
	Agent              string
	Token              string
	Format             string // auto, binary, xml
	Refresh            time.Duration
	Window             time.Duration
	Reconnect          bool
	ReconnectMin       time.Duration
	ReconnectMax       time.Duration
	ConnectTimeout     time.Duration
	NegotiationTimeout time.Duration
	Record             string
	Theme              string // dark, light
	Color              string // auto, always, never
	Charset            string // auto, unicode, ascii
	MaxMessageSize     int
	MaxThreads         int
	MaxMethods         int
	MaxMonitors        int
	MemoryLimit        int64 // bytes; 0: none
	PubPort            int   // rbkit's PUB socket
	ReqPort            int   // rbkit's REP socket
	// The application's own series and probes, asked of the agent, and
	// how the telemetry is kept (telemetry.go).
	Telemetry       []string
	Probes          []string
	TelemetryWindow time.Duration
	TelemetryMemory int64
	TelemetrySeries int
	// The history, the stream ring and the call tree (bundles, time travel).
	History       time.Duration // how far back the history keeps pictures
	HistoryMemory int           // MiB the history may take
	StreamRing    int           // MiB of raw stream kept for a bundle (0: none)
	TreeNodes     int           // nodes of the call tree
}

// setting describes one key: its flag, default, help and how to read it.
type setting struct {
	key   string
	group string // the heading help lists it under (Groups)
	def   string
	usage string
	kind  kind
	enum  []string
	list  bool    // a string that may be a YAML list in the file, joined with commas
	lo    float64 // bounds for numbers and durations (0, 0: none)
	hi    float64
	// zeroOr says the value is 0 (none) or within lo and hi.
	zeroOr bool
	set    func(*Settings, any)
}

type kind int

const (
	kString kind = iota
	kInt
	kBool
	kDuration
	kStrings // repeatable: a list in the file, one a line in the environment
	kSize    // bytes: 32m, 512k, 1g or a number
)

// The headings help lists the flags under, in its order.
const (
	gConnection = "Connection"
	gAgent      = "Asked of the agent"
	gDisplay    = "Display"
	gBatch      = "Batch output"
	gHistory    = "History and bundles"
	gLimits     = "Limits"
	gConfig     = "Config file"
)

// Groups are the headings of help's flags, in order.
func Groups() []string {
	return []string{gConnection, gAgent, gDisplay, gBatch, gHistory, gLimits, gConfig}
}

// GroupAnnotation is the flag annotation naming a flag's heading in help.
const GroupAnnotation = "proftop-group"

// Group files flags of fs (given by name) under a heading of Groups; a
// name fs does not have is a mistake of the caller's, and panics.
func Group(fs *pflag.FlagSet, group string, names ...string) {
	if !slices.Contains(Groups(), group) {
		panic("config: no heading " + group)
	}
	for _, name := range names {
		if err := fs.SetAnnotation(name, GroupAnnotation, []string{group}); err != nil {
			panic(err)
		}
	}
}

// BatchGroup and ConfigGroup are the headings of the flags main defines
// itself (--batch and its like, --config).
const (
	BatchGroup  = gBatch
	ConfigGroup = gConfig
)

var settings = []setting{
	{key: "host", group: gConnection, usage: "host of the profiler's agent controller: host, host:port or host/agent; several, comma-separated, watch a fleet",
		list: true, set: func(s *Settings, v any) { s.Host = v.(string) }},
	{key: "hosts", group: gConnection, usage: "file listing the hosts of a fleet, one a line (# starts a comment), as --host takes them",
		set: func(s *Settings, v any) { s.Hosts = v.(string) }},
	{key: "port", group: gConnection, def: "10002", usage: "port of the agent controller", kind: kInt, lo: 1, hi: 65535, set: func(s *Settings, v any) { s.Port = v.(int) }},
	{key: "agent", group: gConnection, usage: "agent to attach to when there are several: id, pid or name", set: func(s *Settings, v any) { s.Agent = v.(string) }},
	{key: "token", group: gConnection, usage: "token for an agent controller that requires one", set: func(s *Settings, v any) { s.Token = v.(string) }},
	{key: "format", group: gConnection, def: "auto", usage: "trace format: auto (ask for binary, accept xml), binary or xml", enum: []string{"auto", "binary", "xml"},
		set: func(s *Settings, v any) { s.Format = v.(string) }},
	{key: "refresh", group: gDisplay, def: "1s", usage: "time between two snapshots (100ms to 10s; + and - change it live)", kind: kDuration,
		lo: float64(100 * time.Millisecond), hi: float64(10 * time.Second), set: func(s *Settings, v any) { s.Refresh = v.(time.Duration) }},
	{key: "window", group: gDisplay, def: "10s", usage: "the \"last N seconds\" of the hot-methods pane", kind: kDuration, lo: float64(2 * time.Second), hi: float64(time.Hour),
		set: func(s *Settings, v any) { s.Window = v.(time.Duration) }},
	{key: "reconnect", group: gConnection, def: "true", usage: "retry with backoff when the connection fails or drops", kind: kBool, set: func(s *Settings, v any) { s.Reconnect = v.(bool) }},
	{key: "reconnect-min", group: gConnection, def: "500ms", usage: "first wait before reconnecting", kind: kDuration, lo: float64(10 * time.Millisecond), hi: float64(time.Hour),
		set: func(s *Settings, v any) { s.ReconnectMin = v.(time.Duration) }},
	{key: "reconnect-max", group: gConnection, def: "30s", usage: "longest wait before reconnecting", kind: kDuration, lo: float64(10 * time.Millisecond), hi: float64(24 * time.Hour),
		set: func(s *Settings, v any) { s.ReconnectMax = v.(time.Duration) }},
	{key: "connect-timeout", group: gConnection, def: "5s", usage: "how long to wait for the connection", kind: kDuration, lo: float64(10 * time.Millisecond), hi: float64(10 * time.Minute),
		set: func(s *Settings, v any) { s.ConnectTimeout = v.(time.Duration) }},
	{key: "negotiation-timeout", group: gConnection, def: "3s", usage: "how long to wait for each command's answer, setOutputFormat included", kind: kDuration,
		lo: float64(10 * time.Millisecond), hi: float64(10 * time.Minute), set: func(s *Settings, v any) { s.NegotiationTimeout = v.(time.Duration) }},
	{key: "record", group: gConnection, usage: "write the data stream as received to this file (.trcbin or .trcxml; rbkit's frames to .msgpack)", set: func(s *Settings, v any) { s.Record = v.(string) }},
	{key: "theme", group: gDisplay, def: "dark", usage: "colors for a dark or light terminal", enum: []string{"dark", "light"}, set: func(s *Settings, v any) { s.Theme = v.(string) }},
	{key: "color", group: gDisplay, def: "auto", usage: "color: auto, always or never (NO_COLOR, set to anything, means never)", enum: []string{"auto", "always", "never"},
		set: func(s *Settings, v any) { s.Color = v.(string) }},
	{key: "charset", group: gDisplay, def: "auto", usage: "block characters (unicode) or ASCII for sparklines and borders; auto follows the locale",
		enum: []string{"auto", "unicode", "ascii"}, set: func(s *Settings, v any) { s.Charset = v.(string) }},
	{key: "pub-port", group: gConnection, def: "5555", usage: "proftop rbkit: port of rbkit's PUB socket (data)", kind: kInt, lo: 1, hi: 65535,
		set: func(s *Settings, v any) { s.PubPort = v.(int) }},
	{key: "req-port", group: gConnection, def: "5556", usage: "proftop rbkit: port of rbkit's REP socket (commands)", kind: kInt, lo: 1, hi: 65535,
		set: func(s *Settings, v any) { s.ReqPort = v.(int) }},
	{key: "max-message-size", group: gLimits, def: "16777216", usage: "largest trace message accepted, in bytes", kind: kInt, lo: 1024, hi: 1 << 30,
		set: func(s *Settings, v any) { s.MaxMessageSize = v.(int) }},
	{key: "max-threads", group: gLimits, def: "50000", usage: "most live threads tracked; more are counted, not shown", kind: kInt, lo: 1, hi: 10_000_000,
		set: func(s *Settings, v any) { s.MaxThreads = v.(int) }},
	{key: "max-methods", group: gLimits, def: "200000", usage: "most methods tracked; more are counted, not shown", kind: kInt, lo: 1, hi: 100_000_000,
		set: func(s *Settings, v any) { s.MaxMethods = v.(int) }},
	{key: "max-monitors", group: gLimits, def: "10000", usage: "most monitors tracked (idle ones make room); more are counted, not shown", kind: kInt, lo: 1, hi: 10_000_000,
		set: func(s *Settings, v any) { s.MaxMonitors = v.(int) }},
	{key: "telemetry", group: gAgent, usage: "an application series to chart, asked of the agent (repeatable): jmx:OBJECTNAME:ATTRIBUTE[.KEY] or jfr:EVENT#FIELD",
		kind: kStrings, set: func(s *Settings, v any) { s.Telemetry = v.([]string) }},
	{key: "probe", group: gAgent, usage: "an application probe, asked of the agent (repeatable): jfr:EVENT[#FIELD], the event's durations grouped by FIELD",
		kind: kStrings, set: func(s *Settings, v any) { s.Probes = v.([]string) }},
	{key: "telemetry-window", group: gLimits, def: "5m", usage: "how long telemetry series keep every point (older ones are kept downsampled)", kind: kDuration,
		lo: float64(10 * time.Second), hi: float64(24 * time.Hour), set: func(s *Settings, v any) { s.TelemetryWindow = v.(time.Duration) }},
	{key: "telemetry-memory", group: gLimits, def: "32m", usage: "memory for the telemetry's points, all series together (like 32m or 1g)", kind: kSize,
		lo: 1 << 20, hi: 1 << 34, set: func(s *Settings, v any) { s.TelemetryMemory = v.(int64) }},
	{key: "telemetry-series", group: gLimits, def: "512", usage: "most telemetry series kept; more are not, and said so", kind: kInt, lo: 1, hi: 100_000,
		set: func(s *Settings, v any) { s.TelemetrySeries = v.(int) }},
	{key: "memory-limit", group: gLimits, def: "512m", usage: "soft limit of proftop's memory (like 512m or 1g): the garbage collector works harder near it (0: none)", kind: kSize,
		lo: 16 << 20, hi: 1 << 50, zeroOr: true, set: func(s *Settings, v any) { s.MemoryLimit = v.(int64) }},
	{key: "history-span", group: gHistory, def: "15m", usage: "how far back the history keeps a picture a refresh (space freezes, ←/→ step back)", kind: kDuration,
		lo: float64(time.Minute), hi: float64(24 * time.Hour), set: func(s *Settings, v any) { s.History = v.(time.Duration) }},
	{key: "history-memory", group: gHistory, def: "128", usage: "MiB the history may take: the oldest pictures go first (help shows how long that holds)", kind: kInt,
		lo: 1, hi: 1 << 16, set: func(s *Settings, v any) { s.HistoryMemory = v.(int) }},
	{key: "stream-ring", group: gHistory, def: "64", usage: "MiB of the latest raw stream kept for a triage bundle (0: none)", kind: kInt, lo: 0, hi: 1 << 14,
		set: func(s *Settings, v any) { s.StreamRing = v.(int) }},
	{key: "tree-nodes", group: gLimits, def: "200000", usage: "nodes of the call tree (about 90 bytes each); deeper stacks are cut and counted", kind: kInt,
		lo: 1000, hi: 50_000_000, set: func(s *Settings, v any) { s.TreeNodes = v.(int) }},
}

// Origin says where a setting's value came from.
type Origin struct {
	Key    string
	Value  string
	Source string // "flag --refresh", "env PROFTOP_REFRESH", "file /path", "default"
}

// Choices maps each setting that takes one of fixed values to them, for
// shell completion.
func Choices() map[string][]string {
	out := map[string][]string{}
	for _, s := range settings {
		if len(s.enum) > 0 {
			out[s.key] = append([]string(nil), s.enum...)
		}
	}
	return out
}

// Register defines every setting as a flag on fs.
func Register(fs *pflag.FlagSet) {
	for _, s := range settings {
		switch s.kind {
		case kInt:
			n, _ := strconv.Atoi(s.def)
			fs.Int(s.key, n, s.usage)
		case kBool:
			fs.Bool(s.key, s.def == "true", s.usage)
		case kDuration:
			d, _ := time.ParseDuration(s.def)
			fs.Duration(s.key, d, s.usage)
		case kStrings:
			// An array, not a slice: a JMX object name holds commas.
			fs.StringArray(s.key, nil, s.usage)
		default:
			fs.String(s.key, s.def, s.usage)
		}
		Group(fs, s.group, s.key)
	}
}

// EnvName is the environment variable of a key.
func EnvName(key string) string {
	return "PROFTOP_" + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}

// UnknownEnv says, one line each, the PROFTOP_ variables of environ
// ("NAME=value" entries, as os.Environ gives) that name no setting: a typo
// (PROFTOP_HSOT) would otherwise be ignored without a word. Each says the
// setting it is likely a typo of. PROFTOP_TEST_ variables are the tests'
// own, read by go test, not by proftop.
func UnknownEnv(environ []string) []string {
	known := map[string]bool{}
	var names []string
	for _, s := range settings {
		known[EnvName(s.key)] = true
		names = append(names, EnvName(s.key))
	}
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "PROFTOP_") || strings.HasPrefix(name, "PROFTOP_TEST_") || known[name] {
			continue
		}
		line := fmt.Sprintf("%s names no proftop setting; it is ignored", name)
		if near := Nearest(name, names); near != "" {
			line += fmt.Sprintf(" (did you mean %s?)", near)
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return out
}

// DefaultFile is the config file read when no --config is given.
func DefaultFile(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "proftop", "config.yaml")
}

// Load resolves the settings. file is the config file to read: when
// explicit it must exist; the default one may be absent.
func Load(flags *pflag.FlagSet, file string, explicit bool, getenv func(string) string) (Settings, []Origin, error) {
	v := viper.New()
	v.SetEnvPrefix("PROFTOP")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	for _, s := range settings {
		if f := flags.Lookup(s.key); f != nil {
			if err := v.BindPFlag(s.key, f); err != nil {
				return Settings{}, nil, err
			}
		}
		v.SetDefault(s.key, s.def)
	}
	used := ""
	var bad []error // every unknown key and bad value, said at once
	if file != "" {
		_, err := os.Stat(file)
		switch {
		case err == nil:
			v.SetConfigFile(file)
			v.SetConfigType("yaml")
			if err := v.ReadInConfig(); err != nil {
				var parse viper.ConfigParseError
				if errors.As(err, &parse) && parse.Unwrap() != nil {
					// The YAML's own words ("yaml: line 1: …"), not the
					// library's "While parsing config:" before them.
					return Settings{}, nil, fmt.Errorf("config file %s: not YAML proftop can read: %w", file, parse.Unwrap())
				}
				return Settings{}, nil, fmt.Errorf("config file %s: %w", file, err)
			}
			used = file
			if err := unknownKeys(v, file); err != nil {
				bad = append(bad, err)
			}
		case explicit || !errors.Is(err, fs.ErrNotExist):
			return Settings{}, nil, fmt.Errorf("config file %s: %w", file, err)
		}
	}
	var out Settings
	var origins []Origin
	for _, s := range settings {
		source := "default"
		switch f := flags.Lookup(s.key); {
		case f != nil && f.Changed:
			source = "flag --" + s.key
		case getenv(EnvName(s.key)) != "":
			source = "env " + EnvName(s.key)
		case used != "" && v.InConfig(s.key):
			source = "file " + used
		}
		raw := v.Get(s.key)
		if f := flags.Lookup(s.key); s.kind == kStrings && f != nil && f.Changed {
			raw, _ = flags.GetStringArray(s.key)
		}
		val, err := parse(s, raw)
		if err != nil {
			bad = append(bad, fmt.Errorf("setting %q (from %s): %w", s.key, source, err))
			continue
		}
		s.set(&out, val)
		shown := fmt.Sprint(show(val))
		if n, ok := val.(int64); ok && s.kind == kSize {
			shown = sizeText(n)
		}
		origins = append(origins, Origin{Key: s.key, Value: shown, Source: source})
	}
	if len(bad) > 0 {
		return Settings{}, nil, errors.Join(bad...)
	}
	if err := splitHostPort(&out, origins); err != nil {
		return Settings{}, nil, err
	}
	if out.ReconnectMin > out.ReconnectMax {
		return Settings{}, nil, fmt.Errorf("setting \"reconnect-min\" (%v) is longer than \"reconnect-max\" (%v)", out.ReconnectMin, out.ReconnectMax)
	}
	return out, origins, nil
}

// splitHostPort takes a port written with the host ("prod-1:10002",
// "[::1]:10002", also before an agent: "prod-1:10002/billing"), as users
// type it after ssh and curl; it must agree with a port given on its own.
// A fleet's list is left whole: each of its entries has a port of its own.
func splitHostPort(out *Settings, origins []Origin) error {
	if strings.ContainsAny(out.Host, ", \t") {
		return nil
	}
	address, agent, hasAgent := strings.Cut(out.Host, "/")
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return nil // no port in it (a bare IPv6 address fails here too, and is used as it is)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 1 || port > 65535 {
		return fmt.Errorf("setting \"host\" (%s): %q is not a port (1-65535)", out.Host, portText)
	}
	for _, o := range origins {
		if o.Key == "port" && o.Source != "default" && out.Port != port {
			return fmt.Errorf("setting \"host\" (%s) names port %d, setting \"port\" (from %s) %d", out.Host, port, o.Source, out.Port)
		}
	}
	out.Host, out.Port = host, port
	if hasAgent {
		out.Host += "/" + agent
	}
	return nil
}

func show(v any) any {
	if s, ok := v.(string); ok && s == "" {
		return `""`
	}
	return v
}

// unknownKeys rejects keys the file has but proftop does not know: a typo
// must not be silently ignored.
func unknownKeys(v *viper.Viper, file string) error {
	known := map[string]bool{}
	for _, s := range settings {
		known[s.key] = true
	}
	var bad []string
	for _, k := range v.AllKeys() {
		if !known[k] && v.InConfig(k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	var names []string
	for _, s := range settings {
		names = append(names, s.key)
	}
	// Every one, each with the setting it is likely a typo of.
	var said []string
	for _, k := range bad {
		if near := Nearest(k, names); near != "" {
			said = append(said, fmt.Sprintf("%q (did you mean %q?)", k, near))
		} else {
			said = append(said, fmt.Sprintf("%q", k))
		}
	}
	what := "unknown setting"
	if len(bad) > 1 {
		what = "unknown settings"
	}
	return fmt.Errorf("config file %s: %s %s; the settings are: %s", file, what, strings.Join(said, ", "), strings.Join(names, ", "))
}

// Nearest is the name a few edits from key (a typo: at most a third of
// its letters, and 3), "" if none is.
func Nearest(key string, names []string) string {
	best, bestD := "", min(3, len(key)/3)+1
	for _, n := range names {
		if d := editDistance(key, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the number of edits from a to b: a letter added,
// dropped, changed, or two side by side swapped (a typo's edits; the
// optimal string alignment distance).
func editDistance(a, b string) int { return edlib.OSADamerauLevenshteinDistance(a, b) }

// parse reads one raw value (a flag's typed value, an environment string,
// a YAML scalar) into the setting's type and checks it.
func parse(s setting, raw any) (any, error) {
	if s.kind == kStrings {
		return parseStrings(raw)
	}
	if list, ok := raw.([]any); ok {
		if !s.list || s.kind != kString {
			return nil, fmt.Errorf("%v is a list; this setting takes one value", raw)
		}
		parts := make([]string, len(list))
		for i, v := range list {
			parts[i] = strings.TrimSpace(fmt.Sprint(v))
		}
		raw = strings.Join(parts, ",")
	}
	str := strings.TrimSpace(fmt.Sprint(raw))
	switch s.kind {
	case kSize:
		n, err := parseSize(str)
		if err != nil {
			return nil, err
		}
		if (s.lo != 0 || s.hi != 0) && (float64(n) < s.lo || float64(n) > s.hi) && !(s.zeroOr && n == 0) {
			if s.zeroOr {
				// A bare number is bytes: memory-limit 512 made the
				// collector run all the time.
				return nil, fmt.Errorf("%s is outside %s to %s, or 0 for none (a number without a unit is bytes: 512m, 1g)", sizeText(n), sizeText(int64(s.lo)), sizeText(int64(s.hi)))
			}
			return nil, fmt.Errorf("%s is outside %s to %s", sizeText(n), sizeText(int64(s.lo)), sizeText(int64(s.hi)))
		}
		return n, nil
	case kInt:
		n, err := strconv.Atoi(str)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", str)
		}
		if (s.lo != 0 || s.hi != 0) && (float64(n) < s.lo || float64(n) > s.hi) {
			return nil, fmt.Errorf("%d is outside %d to %d", n, int64(s.lo), int64(s.hi))
		}
		return n, nil
	case kBool:
		b, err := strconv.ParseBool(str)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", str)
		}
		return b, nil
	case kDuration:
		d, err := time.ParseDuration(str)
		if err != nil {
			return nil, fmt.Errorf("%q is not a duration (like 500ms, 2s or 1m)", str)
		}
		if (s.lo != 0 || s.hi != 0) && (float64(d) < s.lo || float64(d) > s.hi) {
			return nil, fmt.Errorf("%v is outside %v to %v", d, time.Duration(s.lo), time.Duration(s.hi))
		}
		return d, nil
	}
	if len(s.enum) > 0 {
		for _, e := range s.enum {
			if str == e {
				return str, nil
			}
		}
		return nil, fmt.Errorf("%q is not one of %s", str, strings.Join(s.enum, ", "))
	}
	return str, nil
}

// parseStrings reads a repeatable setting: the flag's values, a list in
// the file (or one string), or the environment's value, one item a line.
func parseStrings(raw any) ([]string, error) {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	switch v := raw.(type) {
	case nil:
	case []string:
		for _, s := range v {
			add(s)
		}
	case []any:
		for i, s := range v {
			str, ok := s.(string)
			if !ok {
				return nil, fmt.Errorf("item %d, %v, is not a string", i+1, s)
			}
			add(str)
		}
	case string:
		for _, line := range strings.Split(v, "\n") {
			add(line)
		}
	default:
		return nil, fmt.Errorf("%v is not a list of strings", v)
	}
	return out, nil
}

// sizeText writes a size as parseSize reads it: in the largest unit it
// is a whole number of (512m, not 536870912).
func sizeText(n int64) string {
	for _, u := range []struct {
		suffix string
		bytes  int64
	}{{"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}} {
		if n != 0 && n%u.bytes == 0 {
			return strconv.FormatInt(n/u.bytes, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// parseSize reads a number of bytes with an optional binary unit: 32m,
// 512k, 1g, 64MiB, 4096.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "b"), "i")
	unit := int64(1)
	switch {
	case strings.HasSuffix(t, "k"):
		unit = 1 << 10
	case strings.HasSuffix(t, "m"):
		unit = 1 << 20
	case strings.HasSuffix(t, "g"):
		unit = 1 << 30
	}
	if unit != 1 {
		t = t[:len(t)-1]
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || n < 0 || n > (1<<62)/unit {
		return 0, fmt.Errorf("%q is not a size (like 32m, 512k or 1g)", s)
	}
	return n * unit, nil
}
