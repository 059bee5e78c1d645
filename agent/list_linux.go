package agent

import (
	"bytes"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// JVM is a Java process on this machine.
type JVM struct {
	PID        int
	User       string
	Main       string // main class, -jar file or -m module
	Attachable bool   // runs as this user (or this user is root)
}

// List finds the JVMs running on this machine: the processes whose memory
// map holds libjvm.so, or, where the map cannot be read, whose command is
// java.
func List() ([]JVM, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	euid := os.Geteuid()
	var out []JVM
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		cmdline, err := os.ReadFile(dir + "/cmdline")
		if err != nil || len(cmdline) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		maps, mapsErr := os.ReadFile(dir + "/maps")
		isJVM := mapsErr == nil && bytes.Contains(maps, []byte("/libjvm.so"))
		if mapsErr != nil {
			isJVM = filepath.Base(args[0]) == "java"
		}
		if !isJVM {
			continue
		}
		j := JVM{PID: pid, Main: mainOf(args)}
		if fi, err := os.Stat(dir); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				j.User = strconv.Itoa(int(st.Uid))
				if u, err := user.LookupId(j.User); err == nil {
					j.User = u.Username
				}
				j.Attachable = euid == 0 || int(st.Uid) == euid
			}
		}
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].PID < out[b].PID })
	return out, nil
}

// optionsWithValue are the java launcher options followed by a separate value.
var optionsWithValue = map[string]bool{"-cp": true, "-classpath": true, "--class-path": true, "-p": true,
	"--module-path": true, "--add-modules": true, "--add-opens": true, "--add-exports": true, "--add-reads": true,
	"--patch-module": true, "--upgrade-module-path": true, "--limit-modules": true}

// mainOf finds what a java command line runs.
func mainOf(args []string) string {
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-jar" && i+1 < len(args):
			return args[i+1]
		case (a == "-m" || a == "--module") && i+1 < len(args):
			return args[i+1]
		case optionsWithValue[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return filepath.Base(args[0])
}
