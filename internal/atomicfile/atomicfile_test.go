package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteIsWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "profile.pb.gz")
	if err := os.WriteFile(path, []byte("the profile before"), 0o644); err != nil {
		t.Fatal(err)
	}
	full := fmt.Errorf("write %s: %w", path, syscall.ENOSPC)
	tests := []struct {
		name   string
		fill   func(io.Writer) error
		want   string // the file afterwards
		reason string // "" for no error
	}{
		{"written", func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }, "new", ""},
		{"a full disk half way", func(w io.Writer) error { io.WriteString(w, "ha"); return full }, "new", "the disk is full"},
		{"a full disk at once", func(io.Writer) error { return full }, "new", "the disk is full"},
	}
	for _, tt := range tests {
		n, err := Write(path, "the profile", 0o644, tt.fill)
		got, _ := os.ReadFile(path)
		switch {
		case tt.reason == "" && (err != nil || n != int64(len(tt.want))):
			t.Errorf("%s: %d bytes, %v", tt.name, n, err)
		case tt.reason != "" && (err == nil || err.Error() != "cannot write the profile: "+tt.reason+" ("+path+")" || !errors.Is(err, syscall.ENOSPC)):
			t.Errorf("%s: %v", tt.name, err)
		case string(got) != tt.want:
			t.Errorf("%s: the file holds %q", tt.name, got)
		}
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*partial*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestReasonFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, nil, 0o644)
	tests := []struct {
		name, path, want string
	}{
		{"no such directory", filepath.Join(dir, "no", "x.tar.gz"), "the directory " + filepath.Join(dir, "no") + " does not exist"},
		{"a file for a directory", filepath.Join(file, "x.tar.gz"), "not a directory"},
		{"a directory for the file", dir, "a directory has that name"},
	}
	if st, err := os.Stat("/proc/self"); err == nil && st.IsDir() {
		tests = append(tests, struct{ name, path, want string }{"a file system that takes no files", "/proc/x.tar.gz", "/proc takes no new files"})
	}
	for _, tt := range tests {
		_, err := Write(tt.path, "the bundle", 0o644, func(io.Writer) error { return nil })
		if err == nil || !strings.HasPrefix(err.Error(), "cannot write the bundle: "+tt.want) || !strings.HasSuffix(err.Error(), "("+tt.path+")") {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{syscall.EROFS, "read-only file system"},
		{syscall.EDQUOT, "the disk quota is used up"},
		{&os.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, "no permission to write in /d"},
		{errors.New("something else"), "something else"},
	} {
		if got := Reason(tt.err, "/d"); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.err, got, tt.want)
		}
	}
}

// A full disk, where the machine has one to hand: /dev/full refuses every
// write, and the reason says so.
func TestReasonOfARealFullDisk(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	_, err = f.Write([]byte("x"))
	if err == nil || Reason(err, "/dev") != "the disk is full" {
		t.Fatalf("%v", err)
	}
}
