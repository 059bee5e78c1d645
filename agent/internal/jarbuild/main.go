// Command jarbuild compiles the JVM agent's Java sources with javac
// --release 17 and packs the classes into proftop-agent.jar reproducibly:
// files in name order, fixed timestamps, a fixed manifest. Run by go
// generate in agent/; -check compares instead of writing (for CI).
package main

import (
	"archive/zip"
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

const manifest = "Manifest-Version: 1.0\r\n" +
	"Premain-Class: io.proftop.agent.Agent\r\n" +
	"Agent-Class: io.proftop.agent.Agent\r\n" +
	"Created-By: proftop jarbuild\r\n" +
	"\r\n"

// stamp is every entry's modification time, so that the jar depends on
// the sources only.
var stamp = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func main() {
	src := flag.String("src", "java", "directory of the Java sources")
	out := flag.String("out", "proftop-agent.jar", "the jar to write")
	check := flag.Bool("check", false, "compare with the existing jar instead of writing it; fail if they differ")
	flag.Parse()
	jar, err := build(*src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jarbuild:", err)
		os.Exit(1)
	}
	if *check {
		old, err := os.ReadFile(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "jarbuild:", err)
			os.Exit(1)
		}
		if !bytes.Equal(old, jar) {
			fmt.Fprintf(os.Stderr, "jarbuild: %s differs from what the sources build (%d bytes, built %d): run go generate ./agent and commit the jar\n", *out, len(old), len(jar))
			os.Exit(1)
		}
		fmt.Printf("jarbuild: %s is what the sources build (%d bytes)\n", *out, len(jar))
		return
	}
	if err := os.WriteFile(*out, jar, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "jarbuild:", err)
		os.Exit(1)
	}
	fmt.Printf("jarbuild: wrote %s (%d bytes)\n", *out, len(jar))
}

func build(src string) ([]byte, error) {
	var sources []string
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".java") {
			sources = append(sources, path)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(sources)
	classes, err := os.MkdirTemp("", "proftop-agent-classes")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(classes)
	args := append([]string{"--release", "17", "-g", "-encoding", "UTF-8", "-Xlint:all", "-Werror", "-d", classes}, sources...)
	cmd := exec.Command("javac", args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("javac (a JDK 17 or later is needed to build the agent): %w", err)
	}
	var names []string
	err = filepath.WalkDir(classes, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(classes, path)
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, data []byte) error {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: stamp})
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	if err := add("META-INF/MANIFEST.MF", []byte(manifest)); err != nil {
		return nil, err
	}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(classes, n))
		if err != nil {
			return nil, err
		}
		if err := add(n, data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
