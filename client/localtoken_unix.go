//go:build unix

package client

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// tokenDir is where proftop's JVM agent hands its token to its user: the
// directory proftop attach also uses (agent/attach_linux.go).
var tokenDir = "/tmp"

// LocalToken returns the token the agent listening on port left for this
// user, /tmp/proftop-UID/token-PORT, and the file's path. Someone else may
// have taken the name /tmp/proftop-UID first: the agent then leaves its
// token in a directory /tmp/proftop-UID-RANDOM of its own, and those are
// read too (the newest file wins). A file is read only when its directory
// and itself are this user's, not symbolic links, and closed to everyone
// else: a token anyone else could have put there would hand them whatever
// this user's proftop sends. And only when the socket listening on that
// loopback port is this user's (where the kernel says who owns it): a
// killed agent leaves its file behind, and another user may listen on its
// port since. ("", "") when there is no such token.
func LocalToken(port int) (token, path string) {
	uid := os.Geteuid()
	if !loopbackListenerIsOurs(port, uid) {
		return "", ""
	}
	var newest time.Time
	for _, dir := range tokenDirs(uid) {
		t, modified := readToken(filepath.Join(dir, "token-"+strconv.Itoa(port)), uid)
		if t != "" && (token == "" || modified.After(newest)) {
			token, path, newest = t, filepath.Join(dir, "token-"+strconv.Itoa(port)), modified
		}
	}
	return token, path
}

// tokenDirs are the directories user uid's agents hand tokens over in:
// proftop-UID under tokenDir, and the proftop-UID-* an agent (or proftop
// attach) makes when someone else holds that name; only those of uid's
// own, closed to others.
func tokenDirs(uid int) []string {
	first := filepath.Join(tokenDir, "proftop-"+strconv.Itoa(uid))
	var dirs []string
	if ownedPrivately(first, uid) {
		dirs = append(dirs, first)
	}
	others, _ := filepath.Glob(first + "-*")
	for _, d := range others {
		if ownedPrivately(d, uid) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// readToken reads the first line of a token file of user uid closed to
// others, and when it was written; "" when there is none such.
func readToken(path string, uid int) (string, time.Time) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", time.Time{}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !private(fi, uid) || !fi.Mode().IsRegular() {
		return "", time.Time{}
	}
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", time.Time{}
	}
	token, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSpace(token), fi.ModTime()
}

// ownedPrivately says path is, itself and not through a link, a directory
// of user uid that no one else may read or change.
func ownedPrivately(path string, uid int) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir() && private(fi, uid)
}

// private says a file is user uid's and closed to everyone else.
func private(fi os.FileInfo, uid int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == uid && fi.Mode().Perm()&0o077 == 0
}
