package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/gemhost/gem/internal/testuser"
)

// listen listens on network's address until the test ends, accepting and closing
// connections; it returns the address listened on.
func listen(t *testing.T, network, address string) string {
	t.Helper()
	ln, err := net.Listen(network, address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// listenUnix listens on a unix socket at path (an abstract one for "@name").
func listenUnix(t *testing.T, path string) { listen(t, "unix", path) }

// runNoNamespaces runs sh -c script through the helper as a machine without namespaces
// would (the policy has no view), in dir, with TMPDIR set to the policy's temp folder.
func runNoNamespaces(t *testing.T, pol Policy, dir, tmp, script string) (string, error) {
	t.Helper()
	data, _ := json.Marshal(withoutNamespaces(pol))
	self, _ := os.Executable()
	cmd := exec.Command(self, HelperArg, string(data), "/bin/sh", "sh", "-c", script)
	cmd.Dir, cmd.Env = dir, []string{"PATH=/usr/bin:/bin", "TMPDIR=" + tmp}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// withoutNamespaces is pol as the helper gets it from its plan on this machine without the
// namespace layer (as where AppArmor forbids it): its steps.
func withoutNamespaces(pol Policy) Policy {
	f := ProbeFacts()
	f.Namespaces = false
	s := Program{Policy: &pol, Name: "test"}
	return s.helperPolicy(MakePlan(s.Intent(false), f))
}

// pyConnect is a python3 line that connects a unix stream socket to its first argument and
// prints "connected", or the error's name ("@name" is an abstract address).
const pyConnect = `python3 -c 'import socket,sys
s = socket.socket(socket.AF_UNIX)
a = sys.argv[1]
try:
    s.connect("\0" + a[1:] if a.startswith("@") else a); print("connected")
except OSError as e:
    print(type(e).__name__, e.errno)' `

// TestSocketsWithoutNamespaces: without the namespace layer a program shares the machine's
// /tmp and /run, so the sockets there (an agent's, the session bus) are reachable by path.
// The supervisor lets it reach only sockets beneath its own write roots, whatever name it
// uses (a link, a relative path, /proc), refuses abstract sockets, unix datagrams, UDP and
// TCP without the network; its own sockets, socket pairs and TCP with the network still work.
func TestSocketsWithoutNamespaces(t *testing.T) {
	if LandlockABI() < 4 || !guardArch || !seccompUsable() {
		t.Skip("needs Landlock ABI 4, seccomp user notification, amd64 or arm64")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	home := outsideTmp(t)
	bus := filepath.Join(home, "run", "bus") // a session bus: systemd --user runs anything it is asked
	os.MkdirAll(filepath.Dir(bus), 0o700)
	listenUnix(t, bus)
	agentDir, err := os.MkdirTemp("/tmp", "gem-test-agent-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(agentDir) })
	agent := filepath.Join(agentDir, "agent.sock")
	listenUnix(t, agent)
	abstract := "@gem-test-" + filepath.Base(home)
	listenUnix(t, abstract)
	port := strings.TrimPrefix(listen(t, "tcp", "127.0.0.1:0"), "127.0.0.1:")

	ws, tmp := outsideTmp(t), outsideTmp(t)
	pol := ForExtension(Access{Extension: outsideTmp(t), Workspace: ws, Data: outsideTmp(t), Temp: tmp})
	if pol.Namespaces {
		t.Fatal("the policy has namespaces")
	}
	// a second name for the bus inside the program's own folder, made by someone else
	if err := os.Link(bus, filepath.Join(tmp, "linked")); err != nil {
		t.Fatal(err)
	}
	// a socket in the project (a dev server's): the project is read, not written
	project := filepath.Join(ws, "dev.sock")
	listenUnix(t, project)
	// an agent's folder in the shared /tmp, to be moved into the program's folder; and a folder
	// the program may write, directly in /tmp, whose name another agent's folder may take
	mkTmp := func(prefix string) string {
		dir, err := os.MkdirTemp("/tmp", prefix)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir); os.RemoveAll(dir + ".old") })
		return dir
	}
	movable := mkTmp("gem-test-agent-")
	listenUnix(t, filepath.Join(movable, "agent.sock"))
	swapped := mkTmp("gem-test-agent-")
	listenUnix(t, filepath.Join(swapped, "agent.sock"))
	grantInTmp := mkTmp("gem-test-grant-")
	tmpPol := ForExtension(Access{Extension: outsideTmp(t), Workspace: ws, Data: outsideTmp(t), Temp: tmp, Write: []string{grantInTmp}})
	// its temporary folder in /tmp, as gem makes them (/tmp/gem-<uid>/<name>): on /tmp's file
	// system, so only the rules keep a rename from there out
	tmpTemp := mkTmp("gem-test-temp-")
	tmpTempPol := ForExtension(Access{Extension: outsideTmp(t), Workspace: ws, Data: outsideTmp(t), Temp: tmpTemp})
	attacks := []struct{ name, script, want string }{
		{"the session bus", pyConnect + bus, "PermissionError 13"},
		{"an agent in /tmp", pyConnect + agent, "PermissionError 13"},
		{"a link in its own folder", "ln -s " + bus + " $TMPDIR/bus && " + pyConnect + "$TMPDIR/bus", "PermissionError 13"},
		{"a link to the folder", "ln -s " + filepath.Dir(bus) + " $TMPDIR/run && " + pyConnect + "$TMPDIR/run/bus", "PermissionError 13"},
		{"a hard link", "ln " + bus + " $TMPDIR/hard 2>/dev/null; " + pyConnect + "$TMPDIR/hard", "FileNotFoundError 2"},
		{"a second name made by someone else", pyConnect + "$TMPDIR/linked", "PermissionError 13"},
		{"the project's socket, without the workspace capability", pyConnect + project, "PermissionError 13"},
		{"relative, from its folder", "cd " + filepath.Dir(bus) + " && " + pyConnect + "bus", "PermissionError 13"},
		{"through /proc/self/root", pyConnect + "/proc/self/root" + bus, "OSError 40"},
		{"through its own cwd link", "cd " + filepath.Dir(bus) + " && " + pyConnect + "/proc/self/cwd/bus", "OSError 40"},
		{"an abstract socket", pyConnect + abstract, "PermissionError 1"},
		{"a unix datagram", `python3 -c 'import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)' 2>&1 | tail -1`, "PermissionError: [Errno 13] Permission denied"},
		{"a datagram pair", `python3 -c 'import socket; socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)' 2>&1 | tail -1`, "PermissionError: [Errno 13] Permission denied"},
		{"UDP", `python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)' 2>&1 | tail -1`, "PermissionError: [Errno 13] Permission denied"},
		{"TCP", `python3 -c 'import socket; socket.create_connection(("127.0.0.1", ` + port + `))' 2>&1 | tail -1`, "PermissionError: [Errno 13] Permission denied"},
		{"vsock (the virtual machine's host)", `python3 -c 'import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)' 2>&1 | tail -1`, "PermissionError: [Errno 13] Permission denied"},
		{"a socket planted in the shared /tmp (where tmux looks for its server)", `python3 -c 'import socket,os; socket.socket(socket.AF_UNIX).bind("/tmp/gem-test-plant-%d" % os.getpid())' 2>&1 | tail -1`, "PermissionError: [Errno 13] Permission denied"},
		{"TCP fast open", `python3 -c 'import socket; s = socket.socket(); s.sendto(b"x", 0x20000000, ("127.0.0.1", ` + port + `))' 2>&1 | tail -1`, "PermissionError: [Errno 13] Permission denied"},
	}
	rename := `python3 -c 'import os,sys
try:
    os.rename(sys.argv[1], sys.argv[2])
except OSError as e:
    print("rename:", type(e).__name__, e.errno)' `
	t.Run("an agent's folder moved into its own", func(t *testing.T) {
		out, _ := runNoNamespaces(t, tmpTempPol, ws, tmpTemp, rename+movable+" $TMPDIR/moved; "+pyConnect+"$TMPDIR/moved/agent.sock")
		if strings.TrimSpace(out) != "rename: OSError 18\nFileNotFoundError 2" {
			t.Errorf("got %q", out)
		}
	})
	t.Run("a folder it may write, in /tmp, swapped for an agent's", func(t *testing.T) {
		out, _ := runNoNamespaces(t, tmpPol, ws, tmp, rename+grantInTmp+" "+grantInTmp+".old && "+rename+swapped+" "+grantInTmp+" && "+pyConnect+grantInTmp+"/agent.sock")
		if strings.TrimSpace(out) != "PermissionError 13" {
			t.Errorf("got %q", out)
		}
		// its own socket in that folder, while it is the folder granted
		os.RemoveAll(grantInTmp)
		os.Rename(grantInTmp+".old", grantInTmp)
		out, err := runNoNamespaces(t, tmpPol, ws, tmp, `python3 -c '
import socket
p = "`+grantInTmp+`/own.sock"
l = socket.socket(socket.AF_UNIX); l.bind(p); l.listen()
c = socket.socket(socket.AF_UNIX); c.connect(p); print("connected")'`)
		if err != nil || strings.TrimSpace(out) != "connected" {
			t.Errorf("its own socket in the granted folder: %q (%v)", out, err)
		}
	})
	if os.Geteuid() == 0 {
		// Root's plan without namespaces gives the program a network namespace of its own
		// (StepNetNS): a UDP socket is made there, and reaches nothing.
		for i, a := range attacks {
			switch a.name {
			case "UDP":
				attacks[i].script = `python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"x", ("1.1.1.1", 53))' 2>&1 | tail -1`
				attacks[i].want = "OSError: [Errno 101] Network is unreachable"
			case "TCP fast open":
				attacks[i].want = "OSError: [Errno 101] Network is unreachable"
			}
		}
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			out, _ := runNoNamespaces(t, pol, ws, tmp, a.script)
			if strings.TrimSpace(out) != a.want {
				t.Errorf("got %q, want %q", out, a.want)
			}
		})
	}
	legit := []struct{ name, script, want string }{
		{"its own socket", `python3 -c '
import os, socket
p = os.path.join(os.environ["TMPDIR"], "own.sock")
l = socket.socket(socket.AF_UNIX); l.bind(p); l.listen()
c = socket.socket(socket.AF_UNIX); c.connect(p)
a, _ = l.accept(); c.sendall(b"hi"); print(a.recv(2).decode())'`, "hi"},
		{"its own socket, relative and non-blocking", `cd "$TMPDIR" && python3 -c '
import socket, select
l = socket.socket(socket.AF_UNIX); l.bind("nb.sock"); l.listen()
c = socket.socket(socket.AF_UNIX); c.setblocking(False)
try:
    c.connect("nb.sock")
except BlockingIOError:
    select.select([], [c], [])
a, _ = l.accept(); c.send(b"ok"); print(a.recv(2).decode())'`, "ok"},
		{"a socket pair", `python3 -c '
import socket
a, b = socket.socketpair(); a.send(b"pair"); print(b.recv(4).decode())'`, "pair"},
		{"a stream to a file that is not a socket", pyConnect + "/etc/hostname", "ConnectionRefusedError 111"},
	}
	for _, l := range legit {
		t.Run(l.name, func(t *testing.T) {
			out, err := runNoNamespaces(t, pol, ws, tmp, l.script)
			if err != nil || strings.TrimSpace(out) != l.want {
				t.Errorf("got %q (%v), want %q", out, err, l.want)
			}
		})
	}
	t.Run("the project's socket, with the workspace capability", func(t *testing.T) {
		wsPol := ForExtension(Access{Extension: outsideTmp(t), Workspace: ws, WriteWorkspace: true, Data: outsideTmp(t), Temp: tmp})
		out, err := runNoNamespaces(t, wsPol, ws, tmp, pyConnect+"dev.sock")
		if err != nil || strings.TrimSpace(out) != "connected" {
			t.Errorf("got %q (%v)", out, err)
		}
		if out, _ := runNoNamespaces(t, wsPol, ws, tmp, pyConnect+bus); strings.TrimSpace(out) != "PermissionError 13" {
			t.Errorf("with the workspace, the session bus: %q", out)
		}
	})
	t.Run("TCP with the network", func(t *testing.T) {
		netPol := pol
		netPol.Network = true
		out, err := runNoNamespaces(t, netPol, ws, tmp, `python3 -c 'import socket; socket.create_connection(("127.0.0.1", `+port+`)); print("connected")'`)
		if err != nil || strings.TrimSpace(out) != "connected" {
			t.Errorf("got %q (%v)", out, err)
		}
		// the network is not a way to the machine's unix sockets
		if out, _ := runNoNamespaces(t, netPol, ws, tmp, pyConnect+bus); strings.TrimSpace(out) != "PermissionError 13" {
			t.Errorf("with the network, the session bus: %q", out)
		}
	})
}

// TestSocketsAsNormalUser: the same without root (Yama's ptrace rules, the user's own sockets).
func TestSocketsAsNormalUser(t *testing.T) {
	testuser.RunTests(t, "TestSocketsWithoutNamespaces")
}

// seccompData is a seccomp_data as x/net/bpf's VM reads it: each 32-bit word is loaded in
// network order, so the words are written big-endian where the kernel's native order puts them.
func seccompData(nr uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[offNr:], nr)
	binary.BigEndian.PutUint32(b[offArch:], auditArch[runtime.GOARCH])
	for i, a := range args {
		binary.BigEndian.PutUint32(b[offArg(i):], uint32(a))
		binary.BigEndian.PutUint32(b[offArg(i)+4:], uint32(a>>32))
	}
	return b
}

// TestFilterDecisions runs the assembled filter in a BPF machine: what each part of the filter
// decides for the socket calls, and what it leaves alone.
func TestFilterDecisions(t *testing.T) {
	if _, ok := auditArch[runtime.GOARCH]; !ok {
		t.Skip("no filter for " + runtime.GOARCH)
	}
	const (
		allow  = unix.SECCOMP_RET_ALLOW
		notify = unix.SECCOMP_RET_USER_NOTIF
		eacces = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
		enosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
		eperm  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	)
	sockets := filterSet{sockets: true}
	noNet := filterSet{noNet: true, families: true}
	both := filterSet{sockets: true, noNet: true, families: true, guard: true}
	netns := filterSet{families: true} // no network, a network namespace of its own
	cases := []struct {
		name string
		f    filterSet
		nr   uint32
		args []uint64
		want uint32
	}{
		{"connect, judged", sockets, unix.SYS_CONNECT, nil, notify},
		{"connect, no judge", filterSet{}, unix.SYS_CONNECT, nil, allow},
		{"connect, guard alone", filterSet{guard: true}, unix.SYS_CONNECT, nil, allow},
		{"unix stream", sockets, unix.SYS_SOCKET, []uint64{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC}, allow},
		{"unix datagram", sockets, unix.SYS_SOCKET, []uint64{unix.AF_UNIX, unix.SOCK_DGRAM | unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC}, eacces},
		{"unix datagram pair", sockets, unix.SYS_SOCKETPAIR, []uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, eacces},
		{"unix seqpacket pair", sockets, unix.SYS_SOCKETPAIR, []uint64{unix.AF_UNIX, unix.SOCK_SEQPACKET}, allow},
		{"unix datagram, no judge", noNet, unix.SYS_SOCKET, []uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, allow},
		{"io_uring with the judge", sockets, unix.SYS_IO_URING_SETUP, nil, enosys},
		{"io_uring alone", filterSet{}, unix.SYS_IO_URING_SETUP, nil, enosys},
		{"UDP without the network", noNet, unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_DGRAM}, eacces},
		{"UDP6 without the network", both, unix.SYS_SOCKET, []uint64{unix.AF_INET6, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC}, eacces},
		{"UDP with the network", sockets, unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_DGRAM}, allow},
		{"TCP", noNet, unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_STREAM | unix.SOCK_NONBLOCK, 0}, allow},
		{"TCP by its number", both, unix.SYS_SOCKET, []uint64{unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP}, allow},
		{"SCTP", noNet, unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP}, eacces},
		{"MPTCP", noNet, unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_STREAM, 262}, eacces},
		{"raw", noNet, unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_RAW, 1}, eacces},
		{"netlink", both, unix.SYS_SOCKET, []uint64{unix.AF_NETLINK, unix.SOCK_RAW, 0}, allow},
		{"vsock without the network", netns, unix.SYS_SOCKET, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM, 0}, eacces},
		{"vsock, no namespaces", both, unix.SYS_SOCKET, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM, 0}, eacces},
		{"vsock with the network", sockets, unix.SYS_SOCKET, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM, 0}, allow},
		{"bluetooth without the network", netns, unix.SYS_SOCKET, []uint64{unix.AF_BLUETOOTH, unix.SOCK_STREAM, 3}, eacces},
		{"UDP in its own network namespace", netns, unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_DGRAM, 0}, allow},
		{"unix in its own network namespace", netns, unix.SYS_SOCKETPAIR, []uint64{unix.AF_UNIX, unix.SOCK_DGRAM, 0}, allow},
		{"nothing but the terminal rule", filterSet{}, unix.SYS_SOCKET, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM, 0}, allow},
		{"fast open", noNet, unix.SYS_SENDTO, []uint64{3, 0, 1, unix.MSG_FASTOPEN | unix.MSG_NOSIGNAL}, eacces},
		{"fast open by sendmsg", noNet, unix.SYS_SENDMSG, []uint64{3, 0, unix.MSG_FASTOPEN}, eacces},
		{"a plain send", noNet, unix.SYS_SENDTO, []uint64{3, 0, 1, unix.MSG_NOSIGNAL}, allow},
		{"fast open with the network", sockets, unix.SYS_SENDTO, []uint64{3, 0, 1, unix.MSG_FASTOPEN}, allow},
		{"the guard's open for writing", both, unix.SYS_OPENAT, []uint64{0, 0, unix.O_WRONLY}, notify},
		{"a read", both, unix.SYS_READ, nil, allow},
		{"terminal injection", both, unix.SYS_IOCTL, []uint64{0, unix.TIOCSTI}, eperm},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, err := buildFilter(c.f)
			if err != nil {
				t.Fatal(err)
			}
			prog, ok := bpf.Disassemble(raw)
			if !ok {
				t.Fatal("the filter does not disassemble")
			}
			vm, err := bpf.NewVM(prog)
			if err != nil {
				t.Fatal(err)
			}
			got, err := vm.Run(seccompData(c.nr, c.args...))
			if err != nil {
				t.Fatal(err)
			}
			if uint32(got) != c.want {
				t.Errorf("got %#x, want %#x", got, c.want)
			}
		})
	}
}

// TestSocketRoots: where a program's sockets may be, by policy.
func TestSocketRoots(t *testing.T) {
	data, tmp := outsideTmp(t), outsideTmp(t)
	shared := ForExtension(Access{Extension: outsideTmp(t), Workspace: outsideTmp(t), Data: data, Temp: tmp})
	private := shared
	private.Namespaces = true
	cases := []struct {
		name string
		p    Policy
		path string
		want bool
	}{
		{"its data folder", shared, filepath.Join(data, "s.sock"), true},
		{"deeper in its temp folder", shared, filepath.Join(tmp, "a/b/s.sock"), true},
		{"the shared /tmp", shared, "/tmp/ssh-x/agent.1", false},
		{"the shared /dev/shm", shared, "/dev/shm/s", false},
		{"its own /tmp (namespaces)", private, "/tmp/s.sock", true},
		{"the session bus", shared, "/run/user/1000/bus", false},
		{"beside its data folder", shared, data + "-other/s.sock", false},
		{"the workspace, read only", shared, filepath.Join(shared.Workspace, "dev.sock"), false},
		{"not a path", shared, "socket:[123]", false},
		{"unknown", shared, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := newSocketRules(c.p).reachable(c.path); got != c.want {
				t.Errorf("reachable(%q) = %v, want %v", c.path, got, c.want)
			}
		})
	}
	if r := newSocketRules(shared); r.abstract || r.network {
		t.Errorf("without namespaces or the network: %+v", r)
	}
	if r := newSocketRules(private); !r.abstract {
		t.Error("a network namespace of its own: its abstract sockets are its own")
	}
}

func TestChildTraceable(t *testing.T) {
	for scope, want := range map[string]bool{"": true, "0": true, "1": true, "2": false, "3": false} {
		if got := childTraceable(scope); got != want {
			t.Errorf("ptrace_scope %q: %v, want %v", scope, got, want)
		}
	}
}

// TestSocketsOfAGuardedProgram: with namespaces, a program that may write the workspace runs
// beside the guard's supervisor anyway, which judges its connects too: a socket in a folder
// it only reads (the extension's, as a system daemon's would be) is refused; the project's
// and its own /tmp's are reached.
// TestSocketsInViewUnderStrict: with namespaces, a socket left in a program's view (in the
// workspace it only reads) is reachable — Landlock has no rule for connect — unless the policy
// is strict, which puts every program's connects before the supervisor; its own sockets in its
// private /tmp still work.
func TestSocketsInViewUnderStrict(t *testing.T) {
	if ok, _ := Namespaces(); !ok || !guardUsable() {
		t.Skip("needs namespaces and the supervisor")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	ws, ext, data, tmp := outsideTmp(t), outsideTmp(t), outsideTmp(t), outsideTmp(t)
	listenUnix(t, filepath.Join(ws, "dev.sock"))
	own := `python3 -c '
import socket
l = socket.socket(socket.AF_UNIX); l.bind("/tmp/own.sock"); l.listen()
c = socket.socket(socket.AF_UNIX); c.connect("/tmp/own.sock"); print("connected")'`
	for _, c := range []struct {
		name         string
		strict       bool
		script, want string
	}{
		{"the workspace's socket", false, pyConnect + "dev.sock", "connected"},
		{"the workspace's socket, strict", true, pyConnect + "dev.sock", "PermissionError 13"},
		{"its own in its private /tmp, strict", true, own, "connected"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pol := ForExtension(Access{Extension: ext, Workspace: ws, Data: data, Temp: tmp})
			pol.Strict = c.strict
			out, _ := run(t, &pol, ws, c.script)
			if strings.TrimSpace(out) != c.want {
				t.Errorf("got %q, want %q", out, c.want)
			}
		})
	}
}

func TestSocketsOfAGuardedProgram(t *testing.T) {
	if ok, _ := Namespaces(); !ok {
		t.Skip("no namespaces here")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	ws, pol := guardedWorkspace(t)
	ext := pol.Read[len(SystemRead)] // the extension's folder, read only
	daemon := filepath.Join(ext, "daemon.sock")
	listenUnix(t, daemon)
	listenUnix(t, filepath.Join(ws, "dev.sock"))
	cases := []struct{ name, script, want string }{
		{"a socket in a folder it reads", pyConnect + daemon, "PermissionError 13"},
		{"the project's socket", pyConnect + "dev.sock", "connected"},
		{"its own, in its private /tmp", `python3 -c '
import socket
l = socket.socket(socket.AF_UNIX); l.bind("/tmp/own.sock"); l.listen()
c = socket.socket(socket.AF_UNIX); c.connect("/tmp/own.sock"); print("connected")'`, "connected"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _ := run(t, &pol, ws, c.script)
			if strings.TrimSpace(out) != c.want {
				t.Errorf("got %q, want %q", out, c.want)
			}
		})
	}
}
