//go:build unix

package client

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// tokenDir is where proftop's JVM agent hands its token to its user: the
// directory proftop attach also uses (agent/attach_linux.go).
var tokenDir = "/tmp"

// LocalToken returns the token the agent listening on port left for this
// user, /tmp/proftop-UID/token-PORT, and the file's path. It reads the file
// only when the directory and the file are this user's, not symbolic
// links, and closed to everyone else: a token anyone else could have put
// there would hand them whatever this user's proftop sends. And only when
// the socket listening on that loopback port is this user's (where the
// kernel says who owns it): a killed agent leaves its file behind, and
// another user may listen on its port since. ("", "") when there is no
// such token.
func LocalToken(port int) (token, path string) {
	uid := os.Geteuid()
	if !loopbackListenerIsOurs(port, uid) {
		return "", ""
	}
	dir := filepath.Join(tokenDir, "proftop-"+strconv.Itoa(uid))
	if !ownedPrivately(dir, uid) {
		return "", ""
	}
	path = filepath.Join(dir, "token-"+strconv.Itoa(port))
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !private(fi, uid) || !fi.Mode().IsRegular() {
		return "", ""
	}
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", ""
	}
	token, _, _ = strings.Cut(string(data), "\n")
	if token = strings.TrimSpace(token); token == "" {
		return "", ""
	}
	return token, path
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
