package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Intent → plan → apply. A program's Intent (what it may reach) and the machine's Facts
// (probed once per process, ProbeFacts) go into MakePlan, a pure function, which returns a
// Plan: plain data saying how the program is started, which mechanisms are set up and, for
// each line of the intent, which mechanism enforces it or why nothing does here. The
// launcher (Command, ExecInPlace, Prestart) makes the plan once and sends the helper its
// Steps; `gem sandbox explain` and `gem doctor` show it.

// Mechanism is one thing that enforces part of an intent.
type Mechanism string

const (
	ByEnvFilter     Mechanism = "environment filter"
	ByNamespaces    Mechanism = "namespaces"        // user (not root), mount, PID, IPC of its own
	ByNetNS         Mechanism = "network namespace" // no interface but a loopback that is down
	ByView          Mechanism = "private view"      // the mounts the helper makes in its mount namespace
	ByLandlockFS    Mechanism = "Landlock files"
	ByLandlockTCP   Mechanism = "Landlock TCP"
	ByLandlockScope Mechanism = "Landlock scoping" // signals and abstract unix sockets
	BySeccomp       Mechanism = "seccomp filter"
	ByGuard         Mechanism = "guard"        // the seccomp supervisor of the workspace's protected names
	BySocketJudge   Mechanism = "socket judge" // the same supervisor, judging connect(2)
	ByCapDrop       Mechanism = "capabilities dropped"
	ByRlimits       Mechanism = "rlimits"
	ByPidsCgroup    Mechanism = "pids cgroup"
	BySetsid        Mechanism = "setsid"
)

// Launch is how a program is started.
type Launch string

const (
	LaunchUnsandboxed Launch = "unsandboxed"       // GEM_SANDBOX=off, or no helper (said once)
	LaunchRefused     Launch = "refused"           // strict, and the helper is missing
	LaunchHelper      Launch = "helper"            // a child through the re-exec helper
	LaunchPrestarted  Launch = "prestarted helper" // gem run: through the helper the front started first
	LaunchExecInPlace Launch = "exec in place"     // gem run: gem restricts a thread and becomes the program
)

// NetNS is how a program without the network gets a network namespace of its own.
type NetNS string

const (
	NetNSNone   NetNS = ""
	NetNSClone  NetNS = "clone"   // the helper is started in one (with its other namespaces)
	NetNSHelper NetNS = "unshare" // the prestarted helper makes it before it runs the program
	// NetNSApply: the helper, without namespaces, unshares one before Landlock: root only
	// (another user's helper cannot); if it fails, the seccomp filter refuses UDP instead.
	NetNSApply NetNS = "apply"
)

// Intent is what one program may do, whatever the machine: the policy's intent part.
type Intent struct {
	Extension  string `json:"extension,omitempty"`
	Program    string `json:"program,omitempty"`
	Foreground bool   `json:"foreground,omitempty"` // gem run: the terminal's program
	// Read and Write are the roots it may read (and execute) and write: the system's
	// (SystemRead, SystemWrite) first.
	Read  []string `json:"read,omitempty"`
	Write []string `json:"write,omitempty"`
	// Workspace is read; written only with WriteWorkspace (the workspace capability), its
	// protected names closed.
	Workspace      string `json:"workspace,omitempty"`
	WriteWorkspace bool   `json:"writeWorkspace,omitempty"`
	// Toolchains are the toolchain roots among Read (Policy.Toolchains: a launcher's
	// installation, its profile's files), shown as lines of their own.
	Toolchains []string  `json:"toolchains,omitempty"`
	Network    bool      `json:"network,omitempty"`
	Protect    []string  `json:"protect,omitempty"` // Policy.Protect
	Rebind     []string  `json:"rebind,omitempty"`  // Policy.Rebind
	Frozen     []string  `json:"frozen,omitempty"`  // Policy.Frozen
	Overlays   []Overlay `json:"overlays,omitempty"`
	Env        []string  `json:"env,omitempty"` // the names of the variables it gets
	Limits     Limits    `json:"limits"`
	Strict     bool      `json:"strict,omitempty"` // sandbox.strict or GEM_SANDBOX_STRICT=1
}

// IntentOf is the intent of p (a policy made by ForExtension and its callers), strict as
// given: Program.intent adds GEM_SANDBOX_STRICT.
func IntentOf(p Policy) Intent {
	return Intent{Read: p.Read, Write: p.Write, Workspace: p.Workspace, WriteWorkspace: p.Guard, Toolchains: p.Toolchains, Network: p.Network,
		Protect: p.Protect, Rebind: p.Rebind, Frozen: p.Frozen, Overlays: p.Overlays, Limits: p.Limits, Strict: p.Strict}
}

// Facts are what this machine offers the sandbox. Machine facts are probed once per gem
// process; the switches (Disabled, Helper) and the user's homes are read at each ProbeFacts.
type Facts struct {
	OS            string `json:"os"`
	Arch          string `json:"arch"`
	Root          bool   `json:"root"`                    // effective uid 0
	Namespaces    bool   `json:"namespaces"`              // Namespaces(): user (not root), mount, PID, network
	NamespacesWhy string `json:"namespacesWhy,omitempty"` // why not
	LandlockABI   int    `json:"landlockABI"`
	Seccomp       bool   `json:"seccomp"` // seccomp filters, and gem has one for Arch
	// SeccompNotify: user notification, which the guard and the socket judge need (gem has
	// their supervisor for amd64 and arm64; the kernel's, Linux ≥ 5.0, is probed by
	// SECCOMP_GET_NOTIF_SIZES).
	SeccompNotify bool `json:"seccompNotify"`
	// Yama is kernel.yama.ptrace_scope ("" without Yama); YamaTraceChild: it lets the
	// supervisor reach the program, its own child (scope 0 or 1).
	Yama           string `json:"yama,omitempty"`
	YamaTraceChild bool   `json:"yamaTraceChild"`
	// PidsCgroup: gem can make pids cgroups (probed for root under GEM_SANDBOX_STRICT=1
	// only, the one case that uses them).
	PidsCgroup bool     `json:"pidsCgroup"`
	Helper     string   `json:"helper"`             // the re-exec helper ("" when missing)
	Disabled   bool     `json:"disabled,omitempty"` // GEM_SANDBOX=off
	Homes      []string `json:"homes,omitempty"`    // the user's homes, real paths (emptied in the view)
	ResolvDir  string   `json:"resolvDir,omitempty"`
}

// Supervisor reports whether the guard and the socket judge can run here (guardUsable).
func (f Facts) Supervisor() bool { return f.SeccompNotify && f.Seccomp && f.YamaTraceChild }

// Plan is how one program is run on one machine: plain data, JSON-marshalable.
type Plan struct {
	Intent Intent `json:"intent"`
	Facts  Facts  `json:"facts"`
	Launch Launch `json:"launch"`
	// Namespaces: the helper starts in namespaces of its own (UserNamespace too when not
	// root) and builds Mounts there.
	Namespaces    bool     `json:"namespaces"`
	UserNamespace bool     `json:"userNamespace"`
	NetNS         NetNS    `json:"netns,omitempty"`
	Mounts        []Mount  `json:"mounts,omitempty"`
	Keep          []string `json:"keep,omitempty"` // what stays visible under the emptied folders
	Landlock      Landlock `json:"landlock"`
	Seccomp       Seccomp  `json:"seccomp"`
	DropCaps      bool     `json:"dropCapabilities"`
	Limits        Limits   `json:"limits"`
	PidsCgroup    bool     `json:"pidsCgroup"` // the process count for root (strict)
	Setsid        bool     `json:"setsid"`     // no controlling terminal (not gem run's)
	// Lines say, for each thing the intent asks, what enforces it here.
	Lines []Enforcement `json:"lines"`
	// Warnings are said once per gem process (Warn); Refused, when set, is why the program
	// is not started (strict, and something it asks is not enforced here).
	Warnings []string `json:"warnings,omitempty"`
	Refused  string   `json:"refused,omitempty"`
}

// Enforcement is one line of an intent and what enforces it; Missing says why nothing (or
// not everything) does here.
type Enforcement struct {
	// ID names the line for a program reading the plan (gem doctor): filesystem, workspace,
	// guard, tcp, udp, families, sockets, processes-seen, scope, terminal, capabilities,
	// limits, processes; "" for the others (a read or write root, a mount).
	ID      string      `json:"id,omitempty"`
	What    string      `json:"what"`
	By      []Mechanism `json:"by,omitempty"`
	Missing string      `json:"missing,omitempty"`
	// Soft: missing, it does not refuse a strict program (process count as root, UDP).
	Soft bool `json:"soft,omitempty"`
}

// Mount is one step of the view, in order.
type Mount struct {
	Op    string   `json:"op"` // empty, mask, rebind, read-only, overlay, proc
	Path  string   `json:"path"`
	Keep  []string `json:"keep,omitempty"`  // empty: bound back beneath it
	Upper string   `json:"upper,omitempty"` // overlay: where the writes land
	Work  string   `json:"work,omitempty"`  // overlay: overlayfs's scratch folder
}

// Landlock is the Landlock ruleset.
type Landlock struct {
	ABI   int      `json:"abi"`
	Read  []string `json:"read,omitempty"`
	Write []string `json:"write,omitempty"`
	// SharedNoSocket: without namespaces, the machine's /tmp, /var/tmp and /dev/shm are
	// written without MAKE_SOCK and REFER.
	SharedNoSocket bool `json:"sharedNoSocket,omitempty"`
	TCP            bool `json:"tcp"`    // bind and connect denied
	Scoped         bool `json:"scoped"` // signals and abstract sockets
}

// Seccomp is the seccomp filter set (filterSet). A filter that cannot be loaded fails the
// step (Steps); the one fallback is NoNetIfNoNetNS.
type Seccomp struct {
	Load     bool `json:"load"`
	Guard    bool `json:"guard"`
	Sockets  bool `json:"sockets"`
	NoNet    bool `json:"noNet"`    // UDP and other internet sockets but TCP refused
	Families bool `json:"families"` // no socket family but unix, netlink, internet
	// NoNetIfNoNetNS: noNet is added when the planned network namespace cannot be made.
	NoNetIfNoNetNS bool `json:"noNetIfNoNetNS,omitempty"`
	// Attrs: without namespaces, mode and attribute changes go to the supervisor too (nothing
	// outside the write roots is read-only in the program's view).
	Attrs bool `json:"attrs,omitempty"`
}

// MakePlan decides, from in and f alone, how the program runs and what enforces what.
func MakePlan(in Intent, f Facts) Plan {
	p := Plan{Intent: in, Facts: f, Limits: in.Limits}
	launch(&p)
	if p.Launch == LaunchHelper || p.Launch == LaunchPrestarted || p.Launch == LaunchExecInPlace {
		mechanisms(&p)
	}
	p.Lines = lines(p)
	if p.Launch != LaunchRefused && in.Strict {
		var hard []string
		for _, l := range p.Lines {
			if l.Missing != "" && !l.Soft {
				hard = append(hard, l.What+" ("+l.Missing+")")
			}
		}
		if len(hard) > 0 {
			p.Refused = "strict, and not enforced here: " + strings.Join(hard, "; ")
		}
	}
	return p
}

// launch decides how the program starts: Command for children, ExecInPlace for gem run.
func launch(p *Plan) {
	f, in := p.Facts, p.Intent
	viaHelper := f.Namespaces || f.Supervisor()
	switch {
	case f.Disabled:
		p.Launch = LaunchUnsandboxed
	case !in.Foreground && f.Helper == "" && in.Strict:
		p.Launch, p.Refused = LaunchRefused, helperMissing
	case !in.Foreground && f.Helper == "":
		p.Launch = LaunchUnsandboxed
		p.Warnings = append(p.Warnings, helperMissing+": subprocesses run without filesystem and network restrictions")
	case !in.Foreground:
		p.Launch, p.Setsid = LaunchHelper, true
	case f.Helper != "" && viaHelper:
		// gem run's front prestarts a helper wherever it would use one (Prestart).
		p.Launch = LaunchPrestarted
	case f.Helper == "" && viaHelper && in.Strict:
		p.Launch, p.Refused = LaunchRefused, helperMissing
	case f.Helper != "" && in.WriteWorkspace:
		p.Launch = LaunchHelper // Run: a child through a helper of its own
	default:
		p.Launch = LaunchExecInPlace
		if f.Helper == "" && viaHelper {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %s runs without namespaces, the guard and the judge of its connects (Landlock and seccomp only)", helperMissing, in.Program))
		}
	}
}

// mechanisms decides the layers of a sandboxed launch.
func mechanisms(p *Plan) {
	f, in := p.Facts, p.Intent
	helper := p.Launch != LaunchExecInPlace
	p.Namespaces = helper && f.Namespaces
	p.UserNamespace = p.Namespaces && !f.Root
	switch {
	case in.Network:
	case p.Namespaces && p.Launch == LaunchPrestarted:
		p.NetNS = NetNSHelper
	case p.Namespaces:
		p.NetNS = NetNSClone
	case helper && f.Root:
		p.NetNS = NetNSApply // (gem run in place skips it: its start-up budget)
	}
	if p.Namespaces {
		p.Keep, p.Mounts = view(in, f)
	}
	p.Landlock = Landlock{ABI: f.LandlockABI, SharedNoSocket: !p.Namespaces && f.LandlockABI >= 1,
		TCP: !in.Network && f.LandlockABI >= 4, Scoped: f.LandlockABI >= 6}
	if f.LandlockABI >= 1 {
		p.Landlock.Read, p.Landlock.Write = in.Read, in.Write
	}
	p.Seccomp = Seccomp{Load: f.Seccomp, Families: !in.Network,
		NoNet: !in.Network && p.NetNS == NetNSNone, NoNetIfNoNetNS: !in.Network && p.NetNS == NetNSApply}
	if helper {
		p.Seccomp.Guard = in.WriteWorkspace && f.SeccompNotify
		p.Seccomp.Sockets = (!p.Namespaces || in.WriteWorkspace || in.Strict) && f.SeccompNotify
		p.Seccomp.Attrs = (p.Seccomp.Guard || p.Seccomp.Sockets) && !p.Namespaces
	}
	p.DropCaps = helper && (p.Namespaces || f.Root)
	p.PidsCgroup = f.Root && in.Strict && in.Limits.Processes != 0 && f.PidsCgroup
}

// emptied are the folders a program sees empty (a private tmpfs), but for what it was granted
// there: /tmp, /var/tmp and /dev/shm (no other program's files, shared memory or sockets),
// /run (no D-Bus, GnuPG, ssh-agent or Docker sockets), /root (root's home, or another
// user's), /var/lib and /nix (daemons' state and sockets: SystemRead names what programs
// read there); the user's own homes join them (Facts.Homes).
// The daemons' folders join them (Landlock lets a program read none of them, but it has no
// rule for connect(2)): /var/snap (LXD's and other snaps' daemons), /var/spool (postfix's
// private sockets), /var/opt (packaged services: GitLab's PostgreSQL and Puma), /var/run where
// it is a folder and not the usual link to /run, /srv (services' data), and /mnt and /media
// (no program reads there; WSL keeps Docker Desktop's socket in /mnt/wsl and WSLg's X server,
// Wayland and PulseAudio sockets in /mnt/wslg: a program connected to both).
var emptied = []string{"/tmp", "/var/tmp", "/dev/shm", "/run", "/root", "/var/lib", "/nix", "/var/snap", "/var/spool", "/var/opt", "/var/run", "/srv", "/mnt", "/media"}

// protectedAtTop stands in a plan for the protected entries at the top of a writable
// workspace, listed when the program starts (resolveMounts).
const protectedAtTop = "<protected names at its top>"

// masked are files replaced by an empty one in every view (readable as root otherwise).
var masked = []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/shadow-", "/etc/gshadow-"}

// maskedDirs are folders replaced by an empty one.
var maskedDirs = []string{"/etc/sudoers.d"}

// view is the program's view when it has namespaces: what stays visible under the
// emptied folders, and the mounts in the order buildView makes them.
func view(in Intent, f Facts) (keep []string, mounts []Mount) {
	for _, list := range [][]string{in.Read, in.Write} {
		for _, path := range list {
			if !slices.Contains(emptied, path) {
				keep = append(keep, path)
			}
		}
	}
	if f.ResolvDir != "" {
		keep = append(keep, f.ResolvDir)
	}
	for i, dir := range append(slices.Clone(emptied), f.Homes...) {
		if i >= len(emptied) && (!filepath.IsAbs(dir) || filepath.Clean(dir) == "/" || slices.Contains(emptied, dir)) {
			continue // a home that is not one, or is emptied already (buildView skips it too)
		}
		m := Mount{Op: "empty", Path: dir}
		for _, k := range keep {
			m.keep(k)
		}
		mounts = append(mounts, m)
	}
	for _, m := range masked {
		mounts = append(mounts, Mount{Op: "mask", Path: m})
	}
	for _, m := range maskedDirs {
		mounts = append(mounts, Mount{Op: "mask", Path: m + "/"})
	}
	for _, r := range in.Rebind {
		mounts = append(mounts, Mount{Op: "rebind", Path: r})
	}
	protect := slices.Clone(in.Protect)
	if in.WriteWorkspace && in.Workspace != "" {
		protect = append(append(protect, in.Frozen...), in.Workspace+"/"+protectedAtTop)
	}
	for _, r := range protect {
		mounts = append(mounts, Mount{Op: "read-only", Path: r})
	}
	for _, o := range in.Overlays {
		mounts = append(mounts, Mount{Op: "overlay", Path: o.Lower, Upper: o.Upper, Work: o.Work})
	}
	return keep, append(mounts, Mount{Op: "proc", Path: "/proc"})
}

// keep adds k to what an emptied folder m keeps, if it is beneath it; a folder granted
// whole is kept as it is (op "keep").
func (m *Mount) keep(k string) {
	switch {
	case m.Op != "empty":
	case k == m.Path:
		m.Op, m.Keep = "keep", nil
	case strings.HasPrefix(k, m.Path+"/") && !slices.Contains(m.Keep, k):
		m.Keep = append(m.Keep, k)
	}
}
