package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/internal/testuser"
)

// The attacks on the machine (issue 47): a program with the workspace capability renamed a
// file over /dev/null, which the guard's supervisor made as root. Run as root, these tests
// run in a mount namespace of their own with a /dev, /tmp and /var/tmp of their own (tmpfs,
// device nodes made there): an attack that got through changes nothing of the machine's.

const (
	privateDevEnv = "GEM_TEST_PRIVATE_DEV" // "1": in the private view, as root; "user": as the normal user in it
	checksOffEnv  = "GEM_TEST_GUARD_CHECKS_OFF"
)

// attackScript tries, for each target path, every way to replace, remove, move, link or
// re-mode it, and prints one line per try: "SUCCEEDED <try> <target>" or "refused …".
const attackScript = `
import ctypes, json, os, stat, sys
libc = ctypes.CDLL(None, use_errno=True)
ws, targets = os.getcwd(), json.loads(sys.argv[1])
def exchange(a, b):
    if libc.renameat2(-100, a.encode(), -100, b.encode(), 2) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")
for i, t in enumerate(targets):
    v = os.path.join(ws, "victim%d" % i)
    with open(v, "w") as f: f.write("victim")
    isdir = os.path.isdir(t)
    tries = [
        ("rename-over", lambda: os.rename(v, t)),
        ("exchange", lambda: exchange(v, t)),
        ("rename-away", lambda: os.rename(t, os.path.join(ws, "away%d" % i))),
        ("rename-into-tmp", lambda: os.rename(t, "/tmp/gem-away%d" % i)),
        ("link-out", lambda: os.link(t, os.path.join(ws, "link%d" % i))),
        ("remove", lambda: os.rmdir(t) if isdir else os.unlink(t)),
        ("symlink-over", lambda: os.symlink(v, t)),
        ("mknod-over", lambda: os.mknod(t, stat.S_IFIFO | 0o666)),
        ("chmod", lambda: os.chmod(t, 0o777 if isdir else 0o666 if stat.S_ISCHR(os.stat(t).st_mode) else 0o4777)),
        ("chmod-plain", lambda: os.chmod(t, 0o700)),
        ("acl", lambda: os.setxattr(t, "system.posix_acl_access", bytes.fromhex("0200000001000600ffffffff04000400ffffffff10000600ffffffff20000400ffffffff"))),
        ("xattr", lambda: os.setxattr(t, "user.gem", b"x")),
    ]
    for name, f in tries:
        try:
            f()
            print("SUCCEEDED", name, t)
        except OSError as e:
            print("refused", name, t, e.errno)
`

// target is a path the attacks aim at, and what holds it.
type target struct {
	path string
	// kind: "dev" (a system write path in /dev: a read-only bind with namespaces), "root" (a
	// folder or file the program may write), "outside" (neither: read-only in the view with
	// namespaces), "own" (the program's own file beneath a root: its mode is its own).
	kind string
}

// modeRefused: a mode or attribute change of t must fail. With the guard's checks on, always
// (but the program's own file); with them off, where the kernel refuses it: outside the write
// roots and in /dev, read-only in a namespaced view.
func (t target) modeRefused(namespaces, checksOff bool) bool {
	switch {
	case t.kind == "own":
		return false // (and its name is its own too)
	case !checksOff:
		return true
	}
	return namespaces && (t.kind == "dev" || t.kind == "outside")
}

// TestAttacksOnWriteRoots: a program with the workspace capability tries to rename, exchange,
// link, remove, symlink or mknod over, chmod and set attributes on every system write path
// (/dev/null, /dev/tty, /tmp…), every granted file and folder and the workspace, and a file
// outside them all (root's own as root: the chmod 4777); with namespaces and without,
// as root and as a normal user. Every try fails and every target is as it was; the legitimate
// writes still work. Again with the guard's checks turned off (in the helper only): what
// Landlock refuses the program, the supervisor acting for it cannot do either.
func TestAttacksOnWriteRoots(t *testing.T) {
	if LandlockABI() < 1 || !guardUsable() {
		t.Skip("needs Landlock and the guard")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3")
	}
	if inPrivateDev(t, "TestAttacksOnWriteRoots") {
		return // ran in the private view
	}
	for _, mode := range []string{"namespaces", "no namespaces"} {
		if ns, _ := Namespaces(); mode == "namespaces" && !ns {
			continue
		}
		for _, checksOff := range []bool{false, true} {
			name := mode
			if checksOff {
				name += ", checks off"
			}
			t.Run(name, func(t *testing.T) { attackWriteRoots(t, mode == "namespaces", checksOff) })
		}
	}
	for _, p := range []string{"/dev/null", "/dev/zero"} {
		if st, err := os.Stat(p); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s is not a device any more: %v %v", p, st.Mode(), err)
		}
	}
}

// attackWriteRoots runs the attacks once, on folders of its own (an attack that succeeds with
// the checks off leaves a root changed).
func attackWriteRoots(t *testing.T, ns, checksOff bool) {
	ext, ws, data, tmp, granted, outside := outsideTmp(t), outsideTmp(t), outsideTmp(t), outsideTmp(t), outsideTmp(t), outsideTmp(t)
	grantedFile := filepath.Join(outsideTmp(t), "granted.txt")
	outsideFile := filepath.Join(outside, "outside.txt")
	for _, f := range []string{grantedFile, outsideFile, filepath.Join(granted, "own.txt")} {
		os.WriteFile(f, []byte("keep"), 0o644)
	}
	os.WriteFile(filepath.Join(ext, "attack.py"), []byte(attackScript), 0o644)
	pol := ForExtension(Access{Extension: ext, Workspace: ws, WriteWorkspace: true, Data: data, Temp: tmp, Write: []string{granted, grantedFile}})
	var targets []target
	for _, p := range append(slices.Clone(SystemWrite), data, tmp, granted, grantedFile, outside, outsideFile) {
		kind := "root"
		switch {
		case strings.HasPrefix(p, "/dev/") && p != "/dev/shm":
			kind = "dev"
		case p == outside || p == outsideFile:
			kind = "outside"
		}
		if _, err := os.Lstat(p); err == nil {
			targets = append(targets, target{path: p, kind: kind})
		}
	}
	targets = append(targets, target{path: filepath.Join(granted, "own.txt"), kind: "own"})
	legit := "echo ok > /dev/null && echo x > " + filepath.Join(granted, "new.txt") + " && echo y >> " + grantedFile +
		" && echo z > src.txt && mkdir -p /tmp/gem-legit && echo fine"
	if got := runAttack(t, pol, ns, checksOff, ws, "/bin/sh", "-c", legit); !strings.Contains(got, "fine") {
		t.Errorf("the legitimate writes failed: %s", got)
	}
	before := snapshot(targets)
	paths := make([]string, len(targets))
	for i, tg := range targets {
		paths[i] = tg.path
	}
	arg, _ := json.Marshal(paths)
	out := runAttack(t, pol, ns, checksOff, ws, "/usr/bin/python3", filepath.Join(ext, "attack.py"), string(arg))
	if !strings.Contains(out, "refused chmod") {
		t.Fatalf("the attacks did not run:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "SUCCEEDED" {
			continue
		}
		tg := targetOf(targets, f[2])
		if tg.kind == "own" || slices.Contains([]string{"chmod", "chmod-plain", "acl", "xattr"}, f[1]) && !tg.modeRefused(ns, checksOff) {
			continue
		}
		t.Errorf("%s %s got through", f[1], f[2])
	}
	after := snapshot(targets)
	for _, tg := range targets {
		if after[tg.path] != before[tg.path] && tg.modeRefused(ns, checksOff) {
			t.Errorf("%s changed: %s, was %s", tg.path, after[tg.path], before[tg.path])
		}
	}
}

func targetOf(targets []target, p string) target {
	for _, t := range targets {
		if t.path == p {
			return t
		}
	}
	return target{path: p, kind: "outside"}
}

// snapshot is what each target is: its identity, kind, mode and device number.
func snapshot(targets []target) map[string]string {
	m := map[string]string{}
	for _, t := range targets {
		var st unix.Stat_t
		if err := unix.Lstat(t.path, &st); err != nil {
			m[t.path] = err.Error()
			continue
		}
		m[t.path] = fmt.Sprintf("ino %d mode %o rdev %d", st.Ino, st.Mode, st.Rdev)
	}
	return m
}

// runAttack runs program (args after it) under pol in ws: through Command (namespaces), or
// the helper directly (no namespaces, as on a machine without them); the guard's checks off
// in the helper when asked. It returns the combined output.
func runAttack(t *testing.T, pol Policy, namespaces, checksOff bool, ws, program string, args ...string) string {
	t.Helper()
	env := []string{"PATH=/usr/bin:/bin"}
	if checksOff {
		env = append(env, checksOffEnv+"=1")
	}
	var cmd *exec.Cmd
	if namespaces {
		c, err := Command(Program{Path: program, Args: args, Env: env, Dir: ws, Name: "attack", Policy: &pol})
		if err != nil {
			t.Fatal(err)
		}
		cmd = c
	} else {
		data, _ := json.Marshal(withoutNamespaces(pol))
		self, _ := os.Executable()
		cmd = exec.Command(self, append([]string{HelperArg, string(data), program, program}, args...)...)
		cmd.Dir, cmd.Env = ws, env
	}
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// inPrivateDev runs the test named test in a view of its own when the tests run as root (a
// mount namespace with its own /dev, /tmp and /var/tmp), there as root and again as the
// normal user, and reports true: the caller returns. Inside (or as a normal user, whom the
// machine's /dev does not let change it) it reports false: the caller runs the attacks.
func inPrivateDev(t *testing.T, test string) bool {
	t.Helper()
	switch {
	case os.Geteuid() != 0:
		return false // the machine's /dev, /tmp and /var/tmp are not a normal user's to change
	case os.Getenv(privateDevEnv) == "user":
		t.Fatal("running as root outside a private view: refusing to attack the machine")
	case os.Getenv(privateDevEnv) == "1":
		enterPrivateDev(t)
		t.Run("as a normal user", func(t *testing.T) {
			u := testuser.Ensure(t)
			out, err := u.Command(u.TestBinary(t), u.Dir, []string{privateDevEnv + "=user"}, "-test.run", "^"+test+"$", "-test.v").CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: "+test+" ") {
				t.Errorf("as user %s: %v\n%s", testuser.Name, err, out)
			}
		})
		return false
	}
	// The test binary lives under /tmp (go test's build folder), which the private view
	// replaces: a copy in the test's folder runs, and is the helper there.
	self, _ := os.Executable()
	bin := filepath.Join(testhome.Dir(t, "gem-privdev-"), "sandbox.test")
	testuser.CopyExecutable(t, self, bin)
	cmd := exec.Command(bin, "-test.run", "^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), privateDevEnv+"=1", "GEM_SANDBOX_HELPER="+bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+test+" ") {
		t.Errorf("in a private view: %v\n%s", err, out)
	}
	for _, p := range []string{"/dev/null", "/dev/zero"} {
		if st, err := os.Stat(p); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("THE MACHINE'S %s IS NOT A DEVICE: %v %v", p, st.Mode(), err)
		}
	}
	return true
}

// enterPrivateDev makes the view of this process (in a mount namespace of its own, which it
// checks first) private, with a tmpfs /dev holding the device nodes programs use, and tmpfs
// /tmp and /var/tmp.
func enterPrivateDev(t *testing.T) {
	t.Helper()
	own, _ := os.Readlink("/proc/self/ns/mnt")
	parent, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", os.Getppid()))
	if own == "" || own == parent {
		t.Fatalf("not in a mount namespace of its own (%q, parent %q): refusing to touch /dev", own, parent)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""))
	must(unix.Mount("tmpfs", "/dev", "tmpfs", unix.MS_NOSUID, "mode=0755"))
	for name, dev := range map[string][2]uint32{"null": {1, 3}, "zero": {1, 5}, "full": {1, 7}, "random": {1, 8}, "urandom": {1, 9}, "tty": {5, 0}} {
		must(unix.Mknod("/dev/"+name, unix.S_IFCHR|0o666, int(unix.Mkdev(dev[0], dev[1]))))
		must(os.Chmod("/dev/"+name, 0o666))
	}
	must(os.Mkdir("/dev/pts", 0o755))
	must(os.Mkdir("/dev/shm", 0o1777))
	must(unix.Mount("devpts", "/dev/pts", "devpts", 0, "newinstance,ptmxmode=0666,mode=0620"))
	must(os.Symlink("pts/ptmx", "/dev/ptmx"))
	must(os.Symlink("/proc/self/fd", "/dev/fd"))
	for _, d := range []string{"/tmp", "/var/tmp"} {
		must(unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"))
	}
}

// surfaceScript tries what closedSurface refuses: a user namespace of its own, a detached
// clone of the workspace written through (where the guard saw another name), io_uring (which
// makes sockets and files past seccomp), and ptrace.
const surfaceScript = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(name, *a):
    r = libc.syscall(*a)
    if r < 0:
        print("refused", name, ctypes.get_errno())
        return None
    print("SUCCEEDED", name)
    return r
ws = os.getcwd()
sc("userns", 272, 0x10000000 | 0x00020000)
fd = sc("open_tree", 428, -100, ws.encode(), 1 | 0x8000 | 0o2000000)
if fd is not None:
    try:
        os.mkdir("evil/.git", dir_fd=fd)
        with open(os.open("evil/.git/config", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write("[core]\n\tfsmonitor = evil\n")
        print("SUCCEEDED plant")
    except OSError as e:
        print("refused plant", e.errno)
params = ctypes.create_string_buffer(120)
sc("io_uring", 425, 4, params)
sc("ptrace", 101, 0, 0, 0, 0)
sc("fsopen", 430, b"tmpfs", 0)
`

// TestSurfaceAttacks: a program with the workspace capability makes a user namespace, clones
// the workspace with open_tree and writes a nested .git through the detached mount, sets up
// io_uring and ptraces: every one is refused, with namespaces and without (and as a normal
// user: TestGuardAsNormalUser).
func TestSurfaceAttacks(t *testing.T) {
	ws, pol := guardedWorkspace(t)
	if _, err := os.Stat("/usr/bin/python3"); err != nil || runtime.GOARCH != "amd64" {
		t.Skip("needs /usr/bin/python3 on amd64 (the script's syscall numbers)")
	}
	os.MkdirAll(filepath.Join(ws, "evil"), 0o755)
	script := filepath.Join(pol.Read[len(SystemRead)], "surface.py")
	os.WriteFile(script, []byte(surfaceScript), 0o644)
	for _, namespaces := range []bool{true, false} {
		if ns, _ := Namespaces(); namespaces && !ns {
			continue
		}
		t.Run(fmt.Sprintf("namespaces %v", namespaces), func(t *testing.T) {
			out := runAttack(t, pol, namespaces, false, ws, "/usr/bin/python3", script)
			if strings.Contains(out, "SUCCEEDED") || !strings.Contains(out, "refused ptrace") {
				t.Errorf("an attack got through (or did not run):\n%s", out)
			}
			if _, err := os.Lstat(filepath.Join(ws, "evil/.git")); err == nil {
				t.Error("evil/.git was planted")
			}
		})
	}
}
