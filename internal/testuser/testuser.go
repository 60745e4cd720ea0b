// Package testuser runs a test binary again as an unprivileged user, for the tests that must
// hold both as root and as a normal user (the sandbox differs for the two: user namespaces,
// RLIMIT_NPROC, capabilities, file permissions). It owns the user "gemtest" that the tests
// create when they run as root.
package testuser

import (
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gemhost/gem/internal/config"
)

// Name is the unprivileged user the tests create and run as.
const Name = "gemtest"

// User is the normal user a root test runs as, with a private folder of the run's.
type User struct {
	Home     string
	UID, GID int
	Dir      string // a folder of this run's in the user's home, removed at the end
}

// Ensure skips t unless the tests run as root (a normal user already runs them as one),
// creates the user when missing and returns it with a folder for this run.
func Ensure(t *testing.T) User {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: the tests already run as a normal user")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	u, err := user.Lookup(Name)
	if err != nil {
		if out, err := exec.Command("useradd", "--create-home", "--shell", "/bin/sh", Name).CombinedOutput(); err != nil {
			t.Fatalf("creating the user %s: %v\n%s", Name, err, out)
		}
		if u, err = user.Lookup(Name); err != nil {
			t.Fatal(err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	dir, err := os.MkdirTemp(u.HomeDir, "gem-test-") // one per run: runs may overlap
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return User{Home: u.HomeDir, UID: uid, GID: gid, Dir: dir}
}

// TestBinary copies the running test binary where the user can run it (go test's build
// folder is root's only) and returns its path.
func (u User) TestBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(u.Dir, filepath.Base(self))
	CopyExecutable(t, self, bin)
	return bin
}

// CopyExecutable copies the file from to to, mode 0755 (a test binary put where another user
// or namespace can run it).
func CopyExecutable(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// Command runs bin with args as the user, in dir, with a minimal environment of the user's
// (HOME, USER, PATH, LANG, XDG_CACHE_HOME) plus env. The run's folder is handed to the user
// first.
func (u User) Command(bin, dir string, env []string, args ...string) *exec.Cmd {
	os.Chown(u.Dir, u.UID, u.GID)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"HOME=" + u.Home, "USER=" + Name, "LOGNAME=" + Name, "PATH=" + config.Getenv("PATH"), "LANG=C.UTF-8",
		"XDG_CACHE_HOME=" + filepath.Join(u.Home, ".cache")}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID)}}
	return cmd
}

// RunTests runs the named tests of the running test binary again as the user (skipped
// unless the tests run as root) and fails t unless each of them passed there: a test that
// skipped as the user fails too.
func RunTests(t *testing.T, names ...string) {
	t.Helper()
	u := Ensure(t)
	bin := u.TestBinary(t)
	out, err := u.Command(bin, u.Dir, nil, "-test.run", "^("+strings.Join(names, "|")+")$", "-test.v").CombinedOutput()
	if err != nil {
		t.Fatalf("as user %s: %v\n%s", Name, err, out)
	}
	for _, name := range names {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass as user %s (skipped?):\n%s", name, Name, out)
		}
	}
}
