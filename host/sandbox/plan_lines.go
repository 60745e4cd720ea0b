package sandbox

import (
	"fmt"
	"slices"
	"strings"
)

// lines says, for each thing p's intent asks, what enforces it. A line's Missing names a
// layer this machine lacks; Soft lines are those a strict plan does not refuse (MakePlan
// refuses the others; the helper refuses a step it cannot apply).
func lines(p Plan) []Enforcement {
	in, f := p.Intent, p.Facts
	env := "an allowlist of the environment (secrets and hijackers dropped)"
	if len(in.Env) > 0 {
		env += ": " + strings.Join(in.Env, ", ")
	}
	out := []Enforcement{{What: env, By: []Mechanism{ByEnvFilter}}}
	if p.Launch == LaunchUnsandboxed || p.Launch == LaunchRefused {
		why := "GEM_SANDBOX=off"
		if !f.Disabled {
			why = helperMissing
		}
		for _, l := range sandboxedLines(p) {
			out = append(out, Enforcement{ID: l.ID, What: l.What, Missing: why, Soft: true})
		}
		return out
	}
	return append(out, sandboxedLines(p)...)
}

// sandboxedLines are the lines of a program started through the sandbox.
func sandboxedLines(p Plan) []Enforcement {
	in, f := p.Intent, p.Facts
	fs := func(what string, more ...Mechanism) Enforcement {
		e := Enforcement{What: what}
		if f.LandlockABI >= 1 {
			e.By = append(e.By, ByLandlockFS)
		} else {
			e.Missing = "no Landlock in this kernel"
		}
		e.By = append(e.By, more...)
		return e
	}
	var ls []Enforcement
	sysRead, sysWrite := 0, 0
	for _, r := range in.Read {
		if slices.Contains(SystemRead, r) {
			sysRead++
		} else if r != "" && r != in.Workspace && !slices.Contains(in.Toolchains, r) {
			ls = append(ls, fs("read "+r))
		}
	}
	if sysRead > 0 {
		ls = append([]Enforcement{fs("read the system (/usr, /etc, /proc…; of /var/lib and /nix what programs read to run)")}, ls...)
	}
	for _, t := range in.Toolchains {
		if slices.Contains(in.Read, t) {
			ls = append(ls, fs("run the toolchain "+t+" (read and execute, not write)"))
		}
	}
	var view []Mechanism
	if p.Namespaces {
		view = []Mechanism{ByView}
	}
	for _, w := range in.Write {
		if slices.Contains(SystemWrite, w) {
			sysWrite++
		} else if w != "" && w != in.Workspace {
			ls = append(ls, fs("write "+w))
		}
	}
	if sysWrite > 0 {
		what := "write /tmp, /var/tmp, /dev/shm (the machine's shared ones: no socket made there), the null devices and terminals"
		if p.Namespaces {
			what = "write /tmp, /var/tmp, /dev/shm (private, empty), the null devices and terminals"
		}
		ls = append(ls, fs(what, view...))
	}
	ls = append(ls, workspaceLines(p, fs)...)
	hidden := fs("nothing else of the filesystem", view...)
	hidden.ID = "filesystem"
	if p.Namespaces {
		hidden.What += " (/tmp, /run, /var/lib, /nix, /root and your home shown empty but for what is granted; /etc/shadow and sudoers masked)"
	}
	ls = append(ls, hidden)
	ls = append(ls, mountLines(p)...)
	ls = append(ls, networkLines(p)...)
	return append(ls, processLines(p)...)
}

// workspaceLines: the workspace, read or written with its protected names guarded.
func workspaceLines(p Plan, fs func(string, ...Mechanism) Enforcement) []Enforcement {
	in, f := p.Intent, p.Facts
	if in.Workspace == "" {
		return nil
	}
	if !in.WriteWorkspace {
		return []Enforcement{fs("read the workspace " + in.Workspace + " (not write it)")}
	}
	w := fs("write the workspace " + in.Workspace)
	g := Enforcement{ID: "guard", What: "never create or change the workspace's protected names (.git, agent and editor settings, context files, .env*) at any depth", Soft: true}
	switch {
	case p.Seccomp.Guard && f.Supervisor():
		g.By = append(g.By, ByGuard)
	case p.Seccomp.Guard:
		g.By = append(g.By, ByGuard)
		g.Missing = fmt.Sprintf("Yama's ptrace_scope %s keeps the supervisor from the program: guarded calls are refused", f.Yama)
	case p.Launch == LaunchExecInPlace:
		g.Missing = "gem run execs in place here: no supervisor beside it"
	default:
		g.Missing = "no guard here (needs seccomp user notification on amd64 or arm64, and Yama's ptrace_scope below 2)"
	}
	if p.Namespaces {
		g.By = append(g.By, ByView) // the existing top-level ones are read-only mounts too
		if !p.Seccomp.Guard {
			g.Missing += ": only the existing top-level ones are kept (read-only mounts)"
		}
	}
	return []Enforcement{w, g}
}

// mountLines: what the view adds (read-only folders, overlays).
func mountLines(p Plan) []Enforcement {
	in := p.Intent
	var ls []Enforcement
	add := func(what string) {
		e := Enforcement{What: what, Soft: true}
		if p.Namespaces {
			e.By = []Mechanism{ByView}
		} else {
			e.Missing = "no namespaces here: not applied"
		}
		ls = append(ls, e)
	}
	if len(in.Protect) > 0 {
		add("keep read-only, however broad the grants: " + strings.Join(in.Protect, ", "))
	}
	if in.WriteWorkspace && len(in.Frozen) > 0 {
		add("keep the extensions linked into the project unchanged: " + strings.Join(in.Frozen, ", "))
	}
	for _, o := range in.Overlays {
		add("see " + o.Lower + " writable, its writes kept in " + o.Upper)
	}
	return ls
}

// networkLines: TCP, the other internet sockets, the other families, unix sockets.
func networkLines(p Plan) []Enforcement {
	in, f := p.Intent, p.Facts
	netns := p.NetNS != NetNSNone
	var ls []Enforcement
	if in.Network {
		ls = append(ls, Enforcement{What: "use the network (granted)"})
	} else {
		tcp := Enforcement{ID: "tcp", What: "no TCP connect or listen"}
		if netns {
			tcp.By = append(tcp.By, ByNetNS)
		}
		if p.Landlock.TCP {
			tcp.By = append(tcp.By, ByLandlockTCP)
		} else if !netns {
			tcp.Missing = fmt.Sprintf("Landlock ABI %d has no TCP rules (4 or later), and no network namespace", f.LandlockABI)
		}
		udp := Enforcement{ID: "udp", What: "no UDP or other internet socket", Soft: true}
		switch {
		case netns:
			udp.By = []Mechanism{ByNetNS}
		case p.Seccomp.NoNet && f.Seccomp:
			udp.By = []Mechanism{BySeccomp}
		default:
			udp.Missing = "no network namespace and no seccomp filter"
		}
		fam := Enforcement{ID: "families", What: "no socket but unix, netlink and internet ones (no vsock to a VM's host, Bluetooth…)"}
		if f.Seccomp {
			fam.By = []Mechanism{BySeccomp}
		} else {
			fam.Missing = "no seccomp filter here"
		}
		ls = append(ls, tcp, udp, fam)
	}
	sock := Enforcement{ID: "sockets", What: "no unix socket of the machine's (an agent's in /tmp, the session bus in /run): only those beneath its write roots", Soft: true}
	if p.Namespaces {
		sock.By = append(sock.By, ByView)
	}
	if p.Seccomp.Sockets && f.Supervisor() {
		sock.By = append(sock.By, BySocketJudge)
	}
	if len(sock.By) == 0 {
		sock.Missing = "neither namespaces nor the supervisor of its connects here"
	} else if p.Namespaces && !p.Seccomp.Sockets {
		sock.What = "no unix socket outside its view (one in the workspace stays reachable: the socket judge runs under strict only)"
	}
	return append(ls, sock)
}

// processLines: processes, signals, the terminal, capabilities, limits.
func processLines(p Plan) []Enforcement {
	in, f := p.Intent, p.Facts
	var ls []Enforcement
	pid := Enforcement{ID: "processes-seen", What: "see no other process; what it starts ends with it", Soft: true}
	if p.Namespaces {
		pid.By = []Mechanism{ByNamespaces}
	} else {
		pid.Missing = "no namespaces here"
		if f.NamespacesWhy != "" && p.Launch != LaunchExecInPlace {
			pid.Missing += " (" + f.NamespacesWhy + ")"
		} else if p.Launch == LaunchExecInPlace {
			pid.Missing = "gem run execs in place here"
		}
	}
	scope := Enforcement{ID: "scope", What: "signal no process and reach no abstract socket outside its own", Soft: true}
	if p.Landlock.Scoped {
		scope.By = append(scope.By, ByLandlockScope)
	}
	if p.Namespaces {
		scope.By = append(scope.By, ByNamespaces)
	}
	if len(scope.By) == 0 {
		scope.Missing = fmt.Sprintf("Landlock ABI %d has no scoping (6 or later), and no namespaces", f.LandlockABI)
	}
	tty := Enforcement{ID: "terminal", What: "push no input into your terminal (TIOCSTI, TIOCLINUX)"}
	if f.Seccomp {
		tty.By = []Mechanism{BySeccomp}
	} else {
		tty.Missing = "no seccomp filter here"
	}
	if p.Setsid {
		tty.By = append(tty.By, BySetsid)
	}
	caps := Enforcement{ID: "capabilities", What: "hold no capability", Soft: true}
	switch {
	case p.DropCaps:
		caps.By = []Mechanism{ByCapDrop}
	case f.Root:
		caps.Missing = "gem run execs in place as root: capabilities are kept"
	default:
		caps.What += " (not root: it has none)"
	}
	ls = append(ls, pid, scope, tty, caps)
	l := in.Limits
	ls = append(ls, Enforcement{ID: "limits", What: fmt.Sprintf("limits: %d s of CPU, %d open files, %d MiB of address space", l.CPUSeconds, l.OpenFiles, l.AddressSpace>>20), By: []Mechanism{ByRlimits}})
	if l.Processes != 0 {
		np := Enforcement{ID: "processes", What: fmt.Sprintf("at most %d processes", l.Processes), Soft: true}
		switch {
		case !f.Root:
			np.By = []Mechanism{ByRlimits}
		case p.PidsCgroup:
			np.By = []Mechanism{ByPidsCgroup}
		case in.Strict:
			np.Missing = "root is exempt from RLIMIT_NPROC, and no pids cgroup can be made"
		default:
			np.Missing = "root is exempt from RLIMIT_NPROC (GEM_SANDBOX_STRICT=1 adds a pids cgroup)"
		}
		ls = append(ls, np)
	}
	return ls
}
