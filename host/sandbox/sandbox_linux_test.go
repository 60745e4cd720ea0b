package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/internal/config"
	"github.com/gemhost/gem/internal/testhome"
	"github.com/gemhost/gem/internal/testuser"
	"golang.org/x/sys/unix"
)

// The test binary is its own sandbox helper: run as `<test> __sandbox-exec …` it applies the
// policy and execs the target, as gem's front does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		guardChecksOff = os.Getenv(checksOffEnv) == "1"
		os.Exit(HelperMain(os.Args[2:], os.Environ(), os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "guard-writer" {
		os.Exit(guardWriter())
	}
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	if os.Getenv("GEM_SANDBOX_HELPER") == "" {
		os.Setenv("GEM_SANDBOX_HELPER", self)
	}
	os.Exit(m.Run())
}

// run starts sh -c script under pol through Command and returns its combined output.
func run(t *testing.T, pol *Policy, dir, script string) (string, error) {
	t.Helper()
	cmd, err := Command(Program{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: dir, Name: "test", Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestPolicyIsEnforced(t *testing.T) {
	if LandlockABI() < 4 {
		t.Skipf("Landlock ABI %d: filesystem and TCP rules need ABI 4", LandlockABI())
	}
	home := outsideTmp(t)
	secret := filepath.Join(home, "secret.txt")
	os.WriteFile(secret, []byte("s3cret"), 0o600)
	ws, ext, data, tmp, extra := outsideTmp(t), outsideTmp(t), outsideTmp(t), outsideTmp(t), outsideTmp(t)
	port := strings.TrimPrefix(listen(t, "tcp", "127.0.0.1:0"), "127.0.0.1:")
	connect := `exec 3<>/dev/tcp/127.0.0.1/` + port
	cases := []struct {
		name, script string
		network      bool
		write        []string
		wantOK       bool
		workspace    bool // the workspace capability
	}{
		{"read the system", "cat /etc/hostname >/dev/null", false, nil, true, false},
		{"read outside", "cat " + secret, false, nil, false, false},
		{"write the workspace", "echo x > " + ws + "/f", false, nil, false, false},
		{"write the workspace with the capability", "echo x > " + ws + "/f", false, nil, true, true},
		{"write the data folder", "echo x > " + data + "/f", false, nil, true, false},
		{"write outside", "echo x > " + home + "/f", false, nil, false, false},
		{"write a declared folder", "echo x > " + extra + "/f", false, []string{extra}, true, false},
		{"TCP without network", "bash -c '" + connect + "'", false, nil, false, false},
		{"TCP with network", "bash -c '" + connect + "'", true, nil, true, false},
		// vsock is in no network namespace: it reaches a virtual machine's host
		{"vsock without network", `python3 -c 'import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)'`, false, nil, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pol := ForExtension(Access{Extension: ext, Workspace: ws, WriteWorkspace: c.workspace, Data: data, Temp: tmp, Write: c.write, Network: c.network})
			out, err := run(t, &pol, ws, c.script)
			if (err == nil) != c.wantOK {
				t.Errorf("ok=%v, want %v: %s", err == nil, c.wantOK, out)
			}
			// Denied by Landlock, read-only in the program's view (namespaces), or not even
			// visible (/root is emptied in the program's view).
			lower := strings.ToLower(out)
			if !c.wantOK && !strings.Contains(lower, "permission denied") && !strings.Contains(lower, "read-only file system") && !strings.Contains(lower, "no such file") && !strings.Contains(lower, "nonexistent") {
				t.Errorf("refusal does not say permission denied (or read-only, or not found): %s", out)
			}
		})
	}
}

// outsideTmp is a temporary folder outside /tmp, which every policy may write.
func outsideTmp(t *testing.T) string { return testhome.Dir(t, "sandbox-") }

func TestLimits(t *testing.T) {
	pol := Policy{Read: []string{"/"}, Limits: Limits{OpenFiles: 64, CPUSeconds: 7, AddressSpace: 3 << 30}}
	out, err := run(t, &pol, "/", "ulimit -n; ulimit -t; ulimit -v")
	if err != nil {
		t.Fatal(err, out)
	}
	if got := strings.Fields(out); strings.Join(got, " ") != "64 7 3145728" {
		t.Errorf("limits: %q", out)
	}
}

func TestHelperRejectsBadInput(t *testing.T) {
	self, _ := os.Executable()
	for _, args := range [][]string{{HelperArg}, {HelperArg, "{not json", "/bin/true", "true"}, {HelperArg, "{}", "/nonexistent", "x"}} {
		out, err := exec.Command(self, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "gem sandbox helper:") {
			t.Errorf("%q: %v %s", args, err, out)
		}
	}
}

func TestPolicyJSONRoundTrip(t *testing.T) {
	p := ForExtension(Access{Extension: "/e", Workspace: "/w", Data: "/d", Temp: "/t", Read: []string{"/r"}, Write: []string{"/x"}, Network: true})
	data, _ := json.Marshal(p)
	var q Policy
	if err := json.Unmarshal(data, &q); err != nil || len(q.Read) != len(p.Read) || !q.Network || q.Limits != DefaultLimits {
		t.Errorf("round trip: %+v %v", q, err)
	}
}

// BenchmarkSandboxStart: starting and waiting for /bin/true through the sandbox helper
// (GEM_SANDBOX_HELPER: gem's front when bench.sh sets it, else this test binary) against
// a plain fork/exec, interleaved; medians and their ratio.
func BenchmarkSandboxStart(b *testing.B) {
	ws := b.TempDir()
	pol := ForExtension(Access{Extension: ws, Workspace: ws, Data: ws, Temp: ws})
	var boxed, plain []float64
	for b.Loop() {
		cmd, err := Command(Program{Path: "/bin/true", Env: []string{}, Name: "true", Policy: &pol})
		if err != nil {
			b.Fatal(err)
		}
		t0 := nowNanos()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		boxed = append(boxed, float64(nowNanos()-t0))
		t0 = nowNanos()
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		plain = append(plain, float64(nowNanos()-t0))
	}
	mb, mp := medianOf(boxed), medianOf(plain)
	b.ReportMetric(mb/1e6, "sandboxed-ms")
	b.ReportMetric(mp/1e6, "plain-ms")
	b.ReportMetric(mb/mp, "ratio")
}

// BenchmarkNetworkNamespace: what the network namespace adds to a start: unshare(CLONE_NEWNET)
// on a thread of its own (discarded afterwards, as the helper's thread is replaced by exec).
// Root only.
func BenchmarkNetworkNamespace(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("network namespaces need root")
	}
	var took []float64
	for b.Loop() {
		done := make(chan float64)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			t0 := nowNanos()
			if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
				b.Error(err)
			}
			done <- float64(nowNanos() - t0)
		}()
		took = append(took, <-done)
	}
	b.ReportMetric(medianOf(took)/1e3, "unshare-µs")
}

// TestViewKeepsBusyFiles: a granted file inside a granted folder under an emptied folder
// (/tmp here), which another process is running, must not stop the paths after it from being
// bound (opening it for writing as a mount point failed with ETXTBSY and hid the workspace).
func TestViewKeepsBusyFiles(t *testing.T) {
	if ok, _ := Namespaces(); !ok {
		t.Skip("no namespaces here")
	}
	ext := t.TempDir() // under /tmp: emptied in the view, the granted paths bound back
	ws := t.TempDir()
	data, _ := os.ReadFile("/bin/sleep")
	bin := filepath.Join(ext, "bin", "sleeper")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	os.WriteFile(bin, data, 0o755)
	running := exec.Command(bin, "30")
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { running.Process.Kill(); running.Wait() }()
	os.WriteFile(filepath.Join(ws, "f"), []byte("visible"), 0o644)
	pol := ForExtension(Access{Extension: ext, Workspace: ws, Data: ws, Temp: ws, Read: []string{bin}})
	out, err := run(t, &pol, ws, "cat "+filepath.Join(ws, "f"))
	if err != nil || !strings.Contains(out, "visible") {
		t.Errorf("the workspace is not visible: %v %s", err, out)
	}
}

// TestOverlay: a program sees its extension's folder writable through an overlay; its writes
// land in the upper folder, the folder itself never changes, and what it wrote is there at
// its next start. Run as root and again as a normal user (a user namespace).
func TestOverlay(t *testing.T) {
	if LandlockABI() < 1 {
		t.Skip("no Landlock")
	}
	ext, data, tmp, ws, base := outsideTmp(t), outsideTmp(t), outsideTmp(t), outsideTmp(t), outsideTmp(t)
	os.WriteFile(filepath.Join(ext, "code.js"), []byte("installed"), 0o644)
	o, err := OverlayDirs(filepath.Join(base, "overlays", "ext"), "mcp-srv")
	if err != nil {
		t.Fatal(err)
	}
	o.Lower = ext
	start := func(script string) string {
		t.Helper()
		pol := ForExtension(Access{Extension: ext, Workspace: ws, Data: data, Temp: tmp})
		if err := o.Rebase(); err != nil {
			t.Fatal(err)
		}
		pol.AddOverlay(*o)
		// as gem runs programs (RunContext, which opens the work folder after)
		var out bytes.Buffer
		code, err := RunContext(context.Background(), Program{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: ws, Name: "test", Policy: &pol},
			Streams{Stdout: &out, Stderr: &out}, time.Second)
		if err != nil || code != 0 {
			t.Fatalf("%s: %d %v\n%s", script, code, err, out.String())
		}
		return out.String()
	}
	os.WriteFile(filepath.Join(ext, "old.js"), []byte("v1"), 0o644)
	start("echo state > " + ext + "/memory.jsonl && echo changed > " + ext + "/code.js && rm " + ext + "/old.js")
	if out := start("cat " + ext + "/memory.jsonl " + ext + "/code.js"); out != "state\nchanged\n" {
		t.Errorf("the second start sees %q, want what the first wrote", out)
	}
	if b, _ := os.ReadFile(filepath.Join(ext, "code.js")); string(b) != "installed" {
		t.Errorf("the installed file changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ext, "memory.jsonl")); err == nil {
		t.Error("the write landed in the extension's folder")
	}
	if b, _ := os.ReadFile(filepath.Join(o.Upper, "memory.jsonl")); string(b) != "state\n" {
		t.Errorf("upper folder holds %q", b)
	}
	// An update swaps in a new folder: its files show again (the program's changed code.js
	// and its deletion of old.js no longer hide them); its state stays.
	os.Rename(ext, ext+".old")
	os.Mkdir(ext, 0o755)
	os.WriteFile(filepath.Join(ext, "code.js"), []byte("v2\n"), 0o644)
	os.WriteFile(filepath.Join(ext, "old.js"), []byte("back\n"), 0o644)
	if out := start("cat " + ext + "/memory.jsonl " + ext + "/code.js " + ext + "/old.js"); out != "state\nv2\nback\n" {
		t.Errorf("after an update the program sees %q, want its state and the new files", out)
	}
	// Once the program ended, every folder overlayfs left is its owner's to enter: du, cp -a
	// and rm -r of ~/.gem work.
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Errorf("%s: %v", p, err)
		} else if info, _ := d.Info(); d.IsDir() && info.Mode().Perm()&0o700 != 0o700 {
			t.Errorf("%s is left mode %v after the program ended", p, info.Mode().Perm())
		}
		return nil
	})
	if out, err := exec.Command("du", "-s", base).CombinedOutput(); err != nil {
		t.Errorf("du -s %s: %v\n%s", base, err, out)
	}
}

// TestHomeIsPrivate: the user's home is out of a program's view but for what it was granted
// there, so a socket in it (an ssh ControlMaster's, gpg-agent's) is not reachable; a home
// that is a link is hidden by its real folder, granted paths named through the link still
// bound back. The home lies outside /root and /tmp, which are private anyway.
func TestHomeIsPrivate(t *testing.T) {
	if ok, _ := Namespaces(); !ok {
		t.Skip("no namespaces here")
	}
	real := homeOutsidePrivateFolders(t)
	link := filepath.Join(testhome.Dir(t, "gem-homelink-"), "home")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(real, "granted"), 0o755)
	os.WriteFile(filepath.Join(real, "granted", "f"), []byte("granted file"), 0o644)
	os.WriteFile(filepath.Join(real, "secret"), []byte("not granted"), 0o644)
	listenUnix(t, filepath.Join(real, "agent.sock"))
	ws := testhome.Dir(t, "gem-ws-")
	// A folder of the home granted by a link from outside it and every private folder (a
	// project kept in the home, reached as /work/proj; as root, beside the home in /home).
	into := filepath.Join(homeOutsidePrivateFolders(t), "granted")
	if err := os.Symlink(filepath.Join(real, "granted"), into); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, home, granted string }{
		{"the home", real, filepath.Join(real, "granted")},
		{"a home that is a link", link, filepath.Join(link, "granted")},
		{"a grant through a link into the home", real, into},
	} {
		home := c.home
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("HOME", home)
			pol := ForExtension(Access{Extension: ws, Workspace: ws, Data: ws, Temp: ws, Read: []string{c.granted}})
			out, err := run(t, &pol, ws, "cat "+filepath.Join(c.granted, "f")+"; test -e "+filepath.Join(real, "agent.sock")+" && echo SOCKET SEEN; test -e "+filepath.Join(real, "secret")+" && echo SECRET SEEN; true")
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !strings.Contains(out, "granted file") {
				t.Errorf("the granted folder in the home is not visible:\n%s", out)
			}
			if strings.Contains(out, "SEEN") {
				t.Errorf("the home is visible beyond what was granted:\n%s", out)
			}
		})
	}
}

// TestDaemonFoldersOutOfView: of /var/lib, only what programs read to run is in a program's
// view: a daemon's socket there (MySQL's, Incus's) is not, D-Bus's machine id is. Root only
// (it makes the daemon's folder in /var/lib).
func TestDaemonFoldersOutOfView(t *testing.T) {
	if ok, _ := Namespaces(); !ok || os.Geteuid() != 0 {
		t.Skip("needs namespaces and root (to make a daemon's folder in /var/lib)")
	}
	daemon, err := os.MkdirTemp("/var/lib", "gem-test-daemon-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(daemon) })
	sock := filepath.Join(daemon, "unix.socket")
	listenUnix(t, sock)
	ws := testhome.Dir(t, "gem-ws-")
	pol := ForExtension(Access{Extension: ws, Workspace: ws, Data: ws, Temp: ws})
	cases := []struct {
		path    string
		visible bool
	}{
		{sock, false},
		{daemon, false},
		{"/var/lib/dpkg", false},
		{"/var/lib/dbus/machine-id", true},
		{"/usr/bin/env", true},
	}
	for _, c := range cases {
		if _, err := os.Stat(c.path); err != nil {
			continue // not on this machine
		}
		out, err := run(t, &pol, ws, "test -e "+c.path+" && echo VISIBLE || echo HIDDEN")
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.path, err, out)
		}
		if got := strings.Contains(out, "VISIBLE"); got != c.visible {
			t.Errorf("%s: visible %v, want %v (%s)", c.path, got, c.visible, strings.TrimSpace(out))
		}
	}
}

// TestOverlayConcurrentStarts: programs started at the same instant with one overlay (one
// server started by two gem sessions) all see it writable and their writes all land; each
// start has a work folder of its own (overlayfs remakes it at each mount: shared, a second
// mount fell back to read-only).
func TestOverlayConcurrentStarts(t *testing.T) {
	if ok, _ := Namespaces(); !ok || LandlockABI() < 1 {
		t.Skip("no namespaces or Landlock here")
	}
	cache, data, tmp, ws, base := outsideTmp(t), outsideTmp(t), outsideTmp(t), outsideTmp(t), outsideTmp(t)
	o, err := OverlayDirs(filepath.Join(base, "overlays", "ext"), "mcp-srv-cache-npm")
	if err != nil {
		t.Fatal(err)
	}
	o.Lower = cache
	const n = 6
	errs := make(chan error, n)
	for i := range n {
		// As gem prepares each start: its own work folder, the one upper folder.
		start, err := OverlayDirs(filepath.Join(base, "overlays", "ext"), "mcp-srv-cache-npm")
		if err != nil || start.Upper != o.Upper || start.Work == o.Work {
			t.Fatalf("start %d: %+v %v, want the upper %s and a work folder of its own", i, start, err, o.Upper)
		}
		start.Lower = cache
		go func() {
			pol := ForExtension(Access{Extension: ws, Workspace: ws, Data: data, Temp: tmp, Read: []string{cache}})
			pol.AddOverlay(*start)
			out, err := run(t, &pol, ws, fmt.Sprintf("echo %d > %s/entry-%d", i, cache, i))
			if err != nil {
				err = fmt.Errorf("start %d: %v\n%s", i, err, out)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	for i := range n {
		if _, err := os.Stat(filepath.Join(o.Upper, fmt.Sprintf("entry-%d", i))); err != nil {
			t.Errorf("write %d did not land in the overlay: %v", i, err)
		}
		if _, err := os.Stat(filepath.Join(cache, fmt.Sprintf("entry-%d", i))); err == nil {
			t.Errorf("write %d landed in the cache itself", i)
		}
	}
}

// TestHiddenWorkingFolder: a program started in a folder its view hides (a folder of the home
// it was not granted) starts in / instead: the hidden folder is not reachable by relative
// paths (a socket there, which Landlock cannot refuse).
func TestHiddenWorkingFolder(t *testing.T) {
	if ok, _ := Namespaces(); !ok {
		t.Skip("no namespaces here")
	}
	home := homeOutsidePrivateFolders(t)
	t.Setenv("HOME", home)
	hidden := filepath.Join(home, "hidden")
	os.Mkdir(hidden, 0o755)
	listenUnix(t, filepath.Join(hidden, "agent.sock"))
	ws := testhome.Dir(t, "gem-ws-")
	pol := ForExtension(Access{Extension: ws, Workspace: ws, Data: ws, Temp: ws})
	out, err := run(t, &pol, hidden, "test -e agent.sock && echo SOCKET SEEN; pwd")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(out, "SEEN") || strings.TrimSpace(out) != "/" {
		t.Errorf("the hidden working folder is reachable:\n%s", out)
	}
}

// TestAccountHomeIsPrivate: when $HOME names another folder, the account's own home (where ssh
// keeps its ControlMaster sockets whatever $HOME says) is out of the program's view too.
func TestAccountHomeIsPrivate(t *testing.T) {
	if ok, _ := Namespaces(); !ok {
		t.Skip("no namespaces here")
	}
	acct := config.AccountHome()
	if acct == "" || !filepath.IsAbs(acct) || acct == "/" {
		t.Skip("no account home")
	}
	dir, err := os.MkdirTemp(acct, "gem-test-ssh-")
	if err != nil {
		t.Skipf("cannot write the account's home: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "cm.sock")
	listenUnix(t, sock)
	ws := testhome.Dir(t, "gem-ws-")
	t.Setenv("HOME", testhome.Dir(t, "gem-other-home-"))
	pol := ForExtension(Access{Extension: ws, Workspace: ws, Data: ws, Temp: ws})
	out, err := run(t, &pol, ws, "test -e "+sock+" && echo SOCKET SEEN; true")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(out, "SEEN") {
		t.Errorf("a socket in the account's home %s is in the view while $HOME is elsewhere", acct)
	}
}

// TestHomesAsNormalUser runs the private homes' tests again as an unprivileged user (when the
// tests run as root, whose home is private anyway).
func TestHomesAsNormalUser(t *testing.T) {
	testuser.RunTests(t, "TestHomeIsPrivate", "TestAccountHomeIsPrivate", "TestHiddenWorkingFolder")
}

// homeOutsidePrivateFolders is a folder to stand for a home, outside /root and /tmp (private
// in every view anyway, so a test there would pass for the wrong reason): in /home as root,
// in the user's cache folder otherwise. Removed at the end.
func homeOutsidePrivateFolders(t *testing.T) string {
	t.Helper()
	base := "/home"
	if os.Geteuid() != 0 {
		base = testhome.Dir(t, "gem-home-")
	}
	home, err := os.MkdirTemp(base, "gem-test-home-")
	if err != nil {
		t.Skipf("no folder for a home outside /root and /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	return home
}
