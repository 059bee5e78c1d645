//go:build unix

package client

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// The token an agent left for its user is read only from a directory and
// a file of that user closed to everyone else, never through a link.
func TestLocalTokenIsReadOnlyWhenPrivate(t *testing.T) {
	old := tokenDir
	t.Cleanup(func() { tokenDir = old })
	uid := os.Geteuid()
	l, err := net.Listen("tcp", "127.0.0.1:0") // this user's, as the agent's socket is
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	for _, tc := range []struct {
		name    string
		prepare func(dir, file string)
		want    string
	}{
		{"private", func(dir, file string) {}, "t0ken"},
		{"a directory open to others", func(dir, file string) { os.Chmod(dir, 0o755) }, ""},
		{"a file open to others", func(dir, file string) { os.Chmod(file, 0o644) }, ""},
		{"a file through a link", func(dir, file string) {
			os.Rename(file, file+"-elsewhere")
			os.Symlink(file+"-elsewhere", file)
		}, ""},
		{"a directory through a link", func(dir, file string) {
			elsewhere := filepath.Join(filepath.Dir(dir), "elsewhere")
			os.Rename(dir, elsewhere)
			os.Symlink(elsewhere, dir)
		}, ""},
		{"no file", func(dir, file string) { os.Remove(file) }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tokenDir = t.TempDir()
			dir := filepath.Join(tokenDir, "proftop-"+strconv.Itoa(uid))
			file := filepath.Join(dir, "token-"+strconv.Itoa(port))
			os.Mkdir(dir, 0o700)
			os.WriteFile(file, []byte("t0ken\n"), 0o600)
			tc.prepare(dir, file)
			if got, _ := LocalToken(port); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A killed agent leaves its token's file behind: proftop hands it to no
// one when nothing of this user's listens on the port any more.
func TestLocalTokenOfAPortNoOneOfOursListensOn(t *testing.T) {
	old := tokenDir
	t.Cleanup(func() { tokenDir = old })
	tokenDir = t.TempDir()
	dir := filepath.Join(tokenDir, "proftop-"+strconv.Itoa(os.Geteuid()))
	os.Mkdir(dir, 0o700)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	os.WriteFile(filepath.Join(dir, "token-"+strconv.Itoa(port)), []byte("t0ken\n"), 0o600)
	if got, _ := LocalToken(port); got != "t0ken" {
		t.Fatalf("with this user listening: got %q", got)
	}
	l.Close()
	if got, _ := LocalToken(port); got != "" {
		t.Fatalf("with no one listening: got %q", got)
	}
}

// Someone else made /tmp/proftop-UID first: the agent hands its token
// over in /tmp/proftop-UID-RANDOM instead, and proftop finds it there —
// in a directory of this user's own only, the newest file of several.
func TestLocalTokenBesideASquattedDirectory(t *testing.T) {
	old := tokenDir
	t.Cleanup(func() { tokenDir = old })
	uid := os.Geteuid()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	name := "token-" + strconv.Itoa(port)
	tokenDir = t.TempDir()
	squatted := filepath.Join(tokenDir, "proftop-"+strconv.Itoa(uid))
	os.Mkdir(squatted, 0o777)
	os.Chmod(squatted, 0o777)
	os.WriteFile(filepath.Join(squatted, name), []byte("planted\n"), 0o600)
	open := filepath.Join(tokenDir, "proftop-"+strconv.Itoa(uid)+"-open")
	os.Mkdir(open, 0o755)
	os.WriteFile(filepath.Join(open, name), []byte("planted\n"), 0o600)
	own := filepath.Join(tokenDir, "proftop-"+strconv.Itoa(uid)+"-123")
	os.Mkdir(own, 0o700)
	os.WriteFile(filepath.Join(own, name), []byte("t0ken\n"), 0o600)
	if got, path := LocalToken(port); got != "t0ken" || path != filepath.Join(own, name) {
		t.Fatalf("got %q from %q", got, path)
	}
	older := filepath.Join(tokenDir, "proftop-"+strconv.Itoa(uid)+"-0")
	os.Mkdir(older, 0o700)
	os.WriteFile(filepath.Join(older, name), []byte("stale\n"), 0o600)
	os.Chtimes(filepath.Join(older, name), time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
	if got, _ := LocalToken(port); got != "t0ken" {
		t.Fatalf("beside an older file: got %q", got)
	}
}
