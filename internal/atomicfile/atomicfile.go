// Package atomicfile writes a file whole or not at all: into a file beside
// it first, renamed over the name asked for once complete, so that a full
// disk or a failed write never leaves a truncated file behind — nor
// truncates the file that was there before. A failure is an error that
// says why first, then where ("cannot write the bundle: the disk is full
// (./b.tar.gz)"): the reason is what a narrow footer must still show.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Error is a write that failed: what was being written, where, and why.
type Error struct {
	What   string // "the bundle", "the profile"
	Path   string // the name asked for
	Reason string // in words, for the user
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("cannot write %s: %s (%s)", e.What, e.Reason, e.Path)
}

func (e *Error) Unwrap() error { return e.Err }

// Write writes what fill writes to path, with mode perm, and returns how
// many bytes that was. what names the file in an error ("the profile").
func Write(path, what string, perm os.FileMode, fill func(io.Writer) error) (int64, error) {
	dir := filepath.Dir(path)
	fail := func(err error) (int64, error) {
		return 0, &Error{What: what, Path: path, Reason: Reason(err, dir), Err: err}
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fail(fmt.Errorf("%s: %w", path, syscall.EISDIR))
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return fail(err)
	}
	abandon := func(err error) (int64, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return fail(err)
	}
	counted := &CountingWriter{W: tmp}
	if err := fill(counted); err != nil {
		return abandon(err)
	}
	if err := tmp.Sync(); err != nil {
		return abandon(err)
	}
	// CreateTemp's 0600 suits the partial file; the file is to be handed over.
	if err := tmp.Chmod(perm); err != nil {
		return abandon(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	return counted.N, nil
}

// CountingWriter writes to W and counts in N the bytes written: what a
// file's writer wrote, or (to io.Discard) how long a member will be.
type CountingWriter struct {
	W io.Writer
	N int64
}

func (c *CountingWriter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}

// Reason words why writing into dir failed, as a user can act on it: the
// disk full, no permission, a read-only file system, a directory missing
// (or one that exists but takes no new files, as /proc).
func Reason(err error, dir string) string {
	var errno syscall.Errno
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "the disk is full"
	case errors.Is(err, syscall.EDQUOT):
		return "the disk quota is used up"
	case errors.Is(err, syscall.EROFS):
		return "read-only file system"
	case errors.Is(err, syscall.EISDIR):
		return "a directory has that name"
	case errors.Is(err, fs.ErrPermission):
		return "no permission to write in " + dir
	case errors.Is(err, fs.ErrNotExist):
		st, serr := os.Stat(dir)
		switch {
		case serr != nil && errors.Is(serr, fs.ErrNotExist):
			return "the directory " + dir + " does not exist"
		case serr == nil && !st.IsDir():
			return dir + " is not a directory"
		case serr == nil:
			// It exists, and yet a file cannot be made in it: a pseudo
			// file system (/proc, /sys) that takes no new files.
			return dir + " takes no new files"
		}
	case errors.As(err, &errno):
		return errno.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
