package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/gemhost/gem/internal/pathx"
)

// Policy is what a sandboxed program may do. It travels to the re-exec helper as JSON.
type Policy struct {
	Read    []string `json:"read,omitempty"`    // read and execute beneath these paths
	Write   []string `json:"write,omitempty"`   // read, write and execute beneath these paths
	Network bool     `json:"network,omitempty"` // TCP allowed (else bind and connect are denied)

	Limits Limits `json:"limits"`
	Strict bool   `json:"strict,omitempty"` // refuse to run when a restriction cannot be enforced
	// Toolchains are the toolchain roots among Read (a launcher's installation, its
	// profile's files: host/commands), which the plan shows as lines of their own.
	Toolchains []string `json:"toolchains,omitempty"`

	// Workspace is the project folder the program works in: read, and written only with
	// Guard, which keeps its protected names (IsProtected) closed.
	Workspace string `json:"workspace,omitempty"`
	// Guard sends the calls that change names to a supervisor in the helper, which refuses
	// protected names and makes the others itself (guard_linux.go). Set with Workspace.
	Guard bool `json:"guard,omitempty"`
	// Protect are folders outside the workspace that stay read-only however broad what the
	// program may write (a grant of ~): every extension's code, Gemini CLI's ~/.gemini and
	// gem's own state — what the next program, or gem itself, would run or obey. Applied in
	// the program's mount namespace (no namespaces: not applied, and said so). Rebind are
	// folders made mounts of their own first, still writable: the program's own data folder
	// inside them (the read-only mount above does not cover a mount below it), and the
	// folders between a grant and a protected folder (a mount point cannot be renamed, so a
	// protected folder cannot be moved away with its parent).
	Protect []string `json:"protect,omitempty"`
	Rebind  []string `json:"rebind,omitempty"`
	// Frozen are folders inside the workspace no program may change, whatever it may write:
	// extensions linked from the project (their code runs later, with their grants).
	Frozen []string `json:"frozen,omitempty"`
	// StatusFD, when not 0, is the helper's descriptor on which it writes the errno of a
	// failed exec of the program (4 bytes, native order); it is closed by a successful one.
	StatusFD int `json:"statusFD,omitempty"`
	// EnvFD, when not 0, is the helper's descriptor from which it reads the program's
	// environment (ProgramEnv): the helper itself runs with gem's own switches only, so
	// nothing a manifest's env sets (LD_PRELOAD, GEM_SANDBOX=off) acts before the sandbox
	// holds.
	EnvFD int `json:"envFD,omitempty"`
	// WriteIDs are the identities ("dev:ino") of write roots the user agreed to, by path:
	// the helper opens each without following links and refuses to start the program when
	// it is another file now (WriteRootError).
	WriteIDs map[string]string `json:"writeIDs,omitempty"`
	// ReadIDs are the same for the read roots the user agreed to (WriteRootError, Read).
	ReadIDs map[string]string `json:"readIDs,omitempty"`
	// SelfFD, when not 0, is the helper's descriptor of its own image (it was executed from
	// it), closed by the program's exec.
	SelfFD int `json:"selfFD,omitempty"`
	// Namespaces: the helper was started in namespaces of its own (the plan's: Command sets
	// it); the supervisor's rules depend on it.
	Namespaces bool `json:"namespaces,omitempty"`
	// Steps are what the helper applies, in order (Steps of the plan the launcher made):
	// it decides nothing itself.
	Steps []Step `json:"steps,omitempty"`
	// Overlays are folders the program sees writable while its writes land in another
	// folder (the extension's own folder, for programs that write beside their code): made
	// writable only where the overlay was mounted (namespaces), else they stay read-only.
	Overlays []Overlay `json:"overlays,omitempty"`
}

// Overlay shows Lower writable with the changes kept in Upper (Work is overlayfs's scratch
// folder, on Upper's file system): Lower itself never changes.
type Overlay struct {
	Lower string `json:"lower"`
	Upper string `json:"upper"`
	Work  string `json:"work"`
}

// Limits are resource limits (0: unlimited).
type Limits struct {
	CPUSeconds   uint64 `json:"cpuSeconds,omitempty"`
	OpenFiles    uint64 `json:"openFiles,omitempty"`
	AddressSpace uint64 `json:"addressSpace,omitempty"` // bytes
	Processes    uint64 `json:"processes,omitempty"`    // not enforceable for root
}

// DefaultLimits are guard rails, not quotas: an hour of CPU, 4,096 open files, 16 GiB of
// address space (Go and Node reserve far more than they use; below ~768 MiB Go binaries
// die at start) and 512 processes (of the user; for root, in a pids cgroup of its own when
// the policy is strict).
var DefaultLimits = Limits{CPUSeconds: 3600, OpenFiles: 4096, AddressSpace: 16 << 30, Processes: 512}

// SystemRead are the system paths every sandboxed program may read (and execute). Of /var/lib
// and /nix, where daemons keep their state and sockets (MySQL's, LXD's and Incus's — root on
// the machine for their group —, the nix daemon's), only what programs read to run: the CA
// bundle some distributions keep there (SUSE), D-Bus's machine id, Ruby gems installed by
// Debian's gem, the nix store and profiles. With namespaces the rest of both folders is out
// of the program's view (emptied): Landlock has no rule for connect(2).
var SystemRead = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
	"/proc", "/sys", "/run", "/dev/urandom", "/dev/random", "/dev/fd",
	"/var/lib/ca-certificates", "/var/lib/dbus", "/var/lib/gems",
	"/nix/store", "/nix/var/nix/profiles", "/snap",
}

// SystemWrite are the places every sandboxed program may write: the null devices, its
// terminal and pseudo-terminals, shared memory, and /tmp. /tmp is there because many tools
// ignore TMPDIR (ed and everything using tmpfile(3)); it is writable by every local user
// anyway, so it grants nothing a local account lacks. (A private /tmp mounted in a mount
// namespace would hide workspaces and extensions that live under /tmp.)
var SystemWrite = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm", "/tmp", "/var/tmp"}

// Access is what one extension's program may reach: its folders, and what the manifest and
// the user's grants add.
type Access struct {
	Extension string // the extension's folder (read)
	Workspace string // the project (read; written only with WriteWorkspace)
	// WriteWorkspace: the program may change the project (the manifest's sandbox.write names
	// ${workspacePath}, consent inferred it, or the user granted it), its protected names
	// excepted.
	WriteWorkspace bool
	Data           string   // the extension's data folder (PrivateDirs; read and write)
	Temp           string   // its temporary folder (PrivateDirs; read and write)
	Read           []string // more folders to read
	Write          []string // more folders to write
	Network        bool
}

// ForExtension is the default policy of one extension's program: read the system, the
// extension folder and the workspace; write the extension's data folder and its temporary
// folder, and the workspace only with a.WriteWorkspace (its protected names guarded); plus
// a's read/write paths; network only when asked.
func ForExtension(a Access) Policy {
	p := Policy{Network: a.Network, Limits: DefaultLimits, Workspace: a.Workspace}
	p.Read = append(append(append(p.Read, SystemRead...), a.Extension, a.Workspace), a.Read...)
	p.Write = append(append(p.Write, SystemWrite...), a.Data, a.Temp)
	p.Write = append(p.Write, a.Write...)
	if a.WriteWorkspace && a.Workspace != "" {
		p.Write = append(p.Write, a.Workspace)
	}
	p.GuardWorkspace()
	return p
}

// AddOverlay shows o.Lower writable to the program with its writes kept in o.Upper — never
// a folder inside the workspace or holding it (the workspace's own rules hold there).
func (p *Policy) AddOverlay(o Overlay) {
	if o.Lower == "" || (p.Workspace != "" && (pathx.Within(p.Workspace, o.Lower) || pathx.Within(o.Lower, p.Workspace))) {
		return
	}
	p.Overlays = append(p.Overlays, o)
}

// OverlayDirs makes (0700) and returns the folders that keep what one program writes through
// an overlay: <base>/<names…>/upper and work, where base is the extension's overlay folder
// (registry.Env.OverlayDir: outside the data folder, so no program can turn them into links
// to elsewhere) and names the program ("mcp-<server>": its writes into the extension's
// folder) or more ("caches", "mcp-<server>", "npm": its writes into a launcher cache). Each
// folder on the way is checked as PrivateDirs checks its own.
func OverlayDirs(base string, names ...string) (*Overlay, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("an overlay of %s needs a program's name", base)
	}
	for _, name := range append([]string{filepath.Base(base)}, names...) {
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00,:") {
			return nil, fmt.Errorf("%q is not a plain folder name", name)
		}
	}
	root := filepath.Dir(base)
	dirs := []string{root, base}
	for _, name := range names {
		dirs = append(dirs, filepath.Join(dirs[len(dirs)-1], name))
	}
	dir := dirs[len(dirs)-1]
	// A work folder per start: overlayfs empties and remakes it at each mount, so two starts
	// of one program (two gem sessions) sharing one would break each other's mount (read-only,
	// or copies failing later). Named by the gem process that starts the program, which its
	// programs do not outlive: those of gem processes that ended are removed here.
	o := &Overlay{Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, fmt.Sprintf("work-%d-%d", os.Getpid(), workSeq.Add(1)))}
	if err := os.MkdirAll(filepath.Dir(root), 0o700); err != nil {
		return nil, err
	}
	for _, d := range append(dirs, o.Upper) {
		if err := OwnDir(d); err != nil {
			return nil, err
		}
	}
	removeEndedWork(dir)
	if err := OwnDir(o.Work); err != nil {
		return nil, err
	}
	return o, nil
}

var workSeq atomic.Int64

// removeEndedWork removes the work folders in dir that gem processes which have ended made
// (overlayfs leaves a folder of mode 0 inside, opened first).
func removeEndedWork(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		var pid, seq int
		if n, _ := fmt.Sscanf(e.Name(), "work-%d-%d", &pid, &seq); n != 2 || !e.IsDir() || pid <= 0 || pid == os.Getpid() || processExists(pid) {
			continue
		}
		work := filepath.Join(dir, e.Name())
		openWork(work)
		os.RemoveAll(work)
	}
}

// openWork gives the folders in a work folder back to their owner (0700): overlayfs makes
// one of mode 0 inside at each mount, which would leave du, cp -a and rm -r of ~/.gem
// failing once the program ended. Folders are opened before they are read.
func openWork(work string) {
	filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
}

// overlaysEnded opens the work folders of p's overlays once its program ended (the mount
// went with the program's namespace; the folder stays, a later start of the same policy
// mounts it again).
func (p *Policy) overlaysEnded() {
	if p == nil {
		return
	}
	for _, o := range p.Overlays {
		openWork(o.Work)
	}
}

// processExists reports whether a process pid runs (EPERM: it does, as another user's).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// GuardWorkspace sets the guard when p may write its workspace (the workspace, a folder in
// it or one above it is among p.Write), and nothing when p only reads it.
func (p *Policy) GuardWorkspace() {
	if p.Workspace == "" {
		return
	}
	for _, w := range p.Write {
		if w != "" && (pathx.Within(w, p.Workspace) || pathx.Within(p.Workspace, w)) {
			p.Guard = true
			return
		}
	}
}

// PrivateDirs makes (0700) and returns an extension's data folder ($GEM_HOME/data/<name>)
// and temporary folder ($TMPDIR/gem-<uid>/<name>). Each folder on the way that gem owns is
// checked: a folder, not a link, owned by this user, closed to others (another local user
// could have made /tmp/gem-<uid> first, with a link inside).
func PrivateDirs(gemHome, extension string) (data, temp string, err error) {
	if extension == "" || extension == "." || extension == ".." || strings.ContainsAny(extension, "/\\\x00") {
		return "", "", fmt.Errorf("extension name %q is not a plain folder name", extension)
	}
	data = filepath.Join(gemHome, "data", extension)
	if err := os.MkdirAll(filepath.Dir(data), 0o700); err != nil {
		return "", "", err
	}
	if err := OwnDir(data); err != nil {
		return "", "", err
	}
	base := filepath.Join(os.TempDir(), "gem-"+strconv.Itoa(os.Getuid()))
	temp = filepath.Join(base, extension)
	for _, d := range []string{base, temp} {
		if err := OwnDir(d); err != nil {
			return "", "", err
		}
	}
	return data, temp, nil
}

// OwnDir makes dir (0700) if it is missing and checks that it is a folder of this user's,
// not a link, that no one else may write.
func OwnDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a folder (a link or a file someone put there): remove it", dir)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to user %d, not to you: another user made it first; remove it", dir, sys.Uid)
	}
	if st.Mode().Perm()&0o022 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("%s is writable by others: %w", dir, err)
		}
	}
	return nil
}

// Report says what this machine enforces (CapabilitiesOf: from the plans of MachinePlans).
type Report struct {
	LandlockABI int  `json:"landlockABI"`
	Filesystem  bool `json:"filesystem"`
	Network     bool `json:"network"` // TCP denied (false when the policy allows it)
	// NetworkNamespace: the program has a network namespace of its own (no interfaces but a
	// loopback that is down): UDP and everything else cut too.
	NetworkNamespace bool `json:"networkNamespace"`
	Scoped           bool `json:"scoped"` // signals and abstract sockets kept inside
	// The namespace layer (plugins, MCP servers, hooks, !{…} shells; not gem run):
	UserNamespace bool `json:"userNamespace"` // user, mount, PID and IPC namespaces of its own
	PrivateView   bool `json:"privateView"`   // private /tmp, /var/tmp, /run; shadow masked; workspace config read-only
	PIDNamespace  bool `json:"pidNamespace"`  // a /proc of its own: no other process, dies with its descendants
	Seccomp       bool `json:"seccomp"`       // TIOCSTI/TIOCLINUX refused (gem run too)
	// Guard: a program that may write the workspace cannot touch its protected names
	// (guard_linux.go).
	Guard bool `json:"guard"`
	// Sockets: the machine's unix sockets (an agent's in /tmp, the session bus in /run) are
	// out of reach: not in the program's view (namespaces), or refused by the supervisor that
	// judges its connects (socket_linux.go).
	Sockets bool `json:"sockets"`
	// UDP: internet sockets other than TCP are cut without the network (a network namespace,
	// or the seccomp filter).
	UDP          bool     `json:"udp"`
	NoCapability bool     `json:"noCapability"` // every capability dropped (root too)
	Limits       bool     `json:"limits"`
	Processes    bool     `json:"processes"`
	GemRun       string   `json:"gemRun"`            // how gem run starts its program here
	Missing      []string `json:"missing,omitempty"` // the plans' lines not (wholly) enforced here, and why
}

// warnMissing says once per gem process, through Warn, which lines of a program's plan this
// machine cannot enforce (gem doctor lists them), when a program is about to run without
// them. The process count, which root is always exempt from, is left to gem doctor.
func warnMissing() { warnMissingOnce() }

var warnMissingOnce = sync.OnceFunc(func() {
	var hard []string
	for _, l := range MachinePlans(ProbeFacts())[0].Lines {
		if l.Missing != "" && l.ID != "processes" && !slices.Contains(hard, l.Missing) {
			hard = append(hard, l.Missing)
		}
	}
	if len(hard) > 0 {
		warnf("programs run without: %s", strings.Join(hard, "; "))
	}
})

// ErrNotEnforced is a strict policy that the kernel cannot enforce.
var ErrNotEnforced = errors.New("the sandbox cannot be enforced on this machine")

// MachinePlans are the plans gem doctor and the warning above speak from: an extension's
// program with the workspace capability and without the network (a child of gem), and gem
// run's program, on a machine with facts f.
func MachinePlans(f Facts) [2]Plan {
	in := IntentOf(ForExtension(Access{Extension: "/extension", Workspace: "/workspace", WriteWorkspace: true, Data: "/data", Temp: "/tmp/gem/extension"}))
	in.Program = "a program"
	run := in
	run.Program, run.Foreground = "gem run's program", true
	return [2]Plan{MakePlan(in, f), MakePlan(run, f)}
}

// Capabilities says what this machine can enforce, without applying anything (gem doctor).
func Capabilities() Report { return CapabilitiesOf(ProbeFacts()) }

// CapabilitiesOf is what a machine with facts f enforces, read from the plans of
// MachinePlans: a line is enforced when its plan misses nothing of it.
func CapabilitiesOf(f Facts) Report {
	plans := MachinePlans(f)
	child, run := plans[0], plans[1]
	ok := func(id string) bool {
		for _, l := range child.Lines {
			if l.ID == id {
				return l.Missing == ""
			}
		}
		return false
	}
	r := Report{LandlockABI: f.LandlockABI, Filesystem: ok("filesystem"), Network: ok("tcp"), Scoped: ok("scope"), Limits: ok("limits"),
		Processes: ok("processes"), NetworkNamespace: child.NetNS != NetNSNone, UserNamespace: child.Namespaces, PrivateView: child.Namespaces,
		PIDNamespace: ok("processes-seen"), Seccomp: ok("terminal"), Guard: ok("guard"), Sockets: ok("sockets"), UDP: ok("udp"),
		NoCapability: ok("capabilities"), GemRun: gemRunText(run)}
	if child.Launch == LaunchUnsandboxed || child.Launch == LaunchRefused {
		r.Missing = []string{"the sandbox: " + child.Lines[len(child.Lines)-1].Missing}
		return r
	}
	for _, p := range plans {
		for _, l := range p.Lines {
			m := l.What + ": " + l.Missing
			if p.Intent.Foreground {
				m = "gem run: " + m
			}
			if l.Missing != "" && !slices.ContainsFunc(r.Missing, func(s string) bool { return strings.HasSuffix(s, l.What+": "+l.Missing) }) {
				r.Missing = append(r.Missing, m)
			}
		}
	}
	return r
}

// gemRunText says how gem run's program is started in plan run (gem doctor).
func gemRunText(run Plan) string {
	switch {
	case run.Launch == LaunchPrestarted && run.Namespaces:
		return "every layer above (it runs as gem's child, in the terminal's foreground)"
	case run.Launch == LaunchPrestarted || run.Launch == LaunchHelper:
		return "every layer above but namespaces (it runs as gem's child, beside the supervisor)"
	case run.Launch == LaunchExecInPlace:
		return "Landlock, limits and seccomp only (no namespaces here: it execs in place)"
	}
	return run.launchText()
}

// WriteRootError: a write root is not the file the user agreed to any more (replaced, or a
// link now), found as the helper opened it; the program is not started.
// RootAbsent is the identity (WriteIDs, ReadIDs) of a root gem's check found absent: the
// helper then grants nothing there, and refuses what appeared since (a link to ~/.ssh made
// between the check and the helper would otherwise be followed).
const RootAbsent = "absent"

type WriteRootError struct {
	Read   bool // a read root (ReadIDs), else a write root
	Path   string
	Agreed string // its identity when agreed to (dev:ino)
	Now    string // its identity now ("" when it could not be opened without following a link)
	Err    error
}

func (e *WriteRootError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("sandbox: %s root %s is not the folder agreed to: %v (a link now?)", e.kind(), e.Path, e.Err)
	}
	return fmt.Sprintf("sandbox: %s root %s is not the folder agreed to (was %s, now %s)", e.kind(), e.Path, e.Agreed, e.Now)
}

func (e *WriteRootError) kind() string {
	if e.Read {
		return "read"
	}
	return "write"
}

func (e *WriteRootError) Unwrap() error { return e.Err }
