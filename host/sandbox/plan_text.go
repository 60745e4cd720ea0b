package sandbox

import (
	"fmt"
	"io"
	"strings"
)

// FactsText says f in one line per fact (gem doctor, gem sandbox explain).
func (f Facts) Text() []string {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	user := "a normal user"
	if f.Root {
		user = "root"
	}
	ns := yes(f.Namespaces)
	if f.NamespacesWhy != "" {
		ns += " (" + f.NamespacesWhy + ")"
	}
	yama := f.Yama
	if yama == "" {
		yama = "none"
	}
	helper := f.Helper
	if helper == "" {
		helper = "MISSING"
	}
	out := []string{
		"platform            " + f.OS + "/" + f.Arch + ", as " + user,
		"namespaces          " + ns,
		fmt.Sprintf("Landlock ABI        %d", f.LandlockABI),
		"seccomp             " + yes(f.Seccomp) + ", user notification " + yes(f.SeccompNotify),
		"Yama ptrace_scope   " + yama + " (the supervisor may reach its child: " + yes(f.YamaTraceChild) + ")",
		"helper              " + helper,
	}
	if f.Root {
		out = append(out, "pids cgroup         "+yes(f.PidsCgroup)+" (probed under GEM_SANDBOX_STRICT=1)")
	}
	if f.Disabled {
		out = append(out, "sandbox             DISABLED by GEM_SANDBOX=off")
	}
	return out
}

// WriteText writes p for a reader: the machine, how the program starts, the mechanisms set
// up, then each line of its intent with what enforces it here.
func (p Plan) WriteText(w io.Writer) {
	name := strings.TrimSpace(p.Intent.Extension + " " + p.Intent.Program)
	if name == "" {
		name = "a program"
	}
	if p.Intent.Foreground {
		name += " (gem run)"
	}
	fmt.Fprintf(w, "Plan for %s\n\nMachine\n", name)
	for _, l := range p.Facts.Text() {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintf(w, "\nMechanisms\n  launch              %s\n", p.launchText())
	if p.Launch == LaunchHelper || p.Launch == LaunchPrestarted || p.Launch == LaunchExecInPlace {
		p.writeMechanisms(w)
	}
	fmt.Fprintln(w, "\nWhat it may do, and what enforces it here")
	var missing []string
	for _, l := range p.Lines {
		switch {
		case len(l.By) == 0 && l.Missing == "":
			fmt.Fprintf(w, "  ok    %s\n", l.What)
		case l.Missing == "":
			fmt.Fprintf(w, "  ok    %s\n        by %s\n", l.What, joinMechanisms(l.By))
		case len(l.By) == 0:
			fmt.Fprintf(w, "  NO    %s\n        not enforced: %s\n", l.What, l.Missing)
			missing = append(missing, l.Missing)
		default:
			fmt.Fprintf(w, "  part  %s\n        by %s; missing: %s\n", l.What, joinMechanisms(l.By), l.Missing)
			missing = append(missing, l.Missing)
		}
	}
	for _, m := range p.Warnings {
		fmt.Fprintf(w, "\nwarning: %s\n", m)
	}
	if p.Refused != "" {
		fmt.Fprintf(w, "\nREFUSED: %s\n", p.Refused)
	} else if p.Intent.Strict {
		fmt.Fprintln(w, "\nstrict: every line above but the soft ones (namespaces, guard, scoping, UDP, process count) is enforced here, and a step the helper cannot apply refuses the program")
	}
}

func joinMechanisms(ms []Mechanism) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

func (p Plan) launchText() string {
	switch p.Launch {
	case LaunchHelper:
		if p.Intent.Foreground {
			return "a child of gem through the re-exec helper, in the terminal's foreground"
		}
		return "a child of gem through the re-exec helper, in a session of its own"
	case LaunchPrestarted:
		return "through the helper gem run starts first, in the terminal's foreground"
	case LaunchExecInPlace:
		return "exec in place: gem restricts one thread and becomes the program"
	case LaunchRefused:
		return "refused"
	}
	return "unsandboxed"
}

func (p Plan) writeMechanisms(w io.Writer) {
	ns := "none"
	if p.Namespaces {
		ns = "mount, PID, IPC"
		if p.UserNamespace {
			ns = "user, " + ns
		}
	}
	fmt.Fprintf(w, "  namespaces          %s\n", ns)
	netns := map[NetNS]string{NetNSNone: "none", NetNSClone: "started in one", NetNSHelper: "made by the helper before the program",
		NetNSApply: "unshared by the helper before Landlock (if it fails, seccomp refuses UDP)"}[p.NetNS]
	fmt.Fprintf(w, "  network namespace   %s\n", netns)
	if len(p.Mounts) > 0 {
		fmt.Fprintln(w, "  view")
		for _, m := range p.Mounts {
			fmt.Fprintf(w, "    %s\n", m.text())
		}
	}
	ll := "none"
	if p.Landlock.ABI >= 1 {
		ll = p.Landlock.text()
	}
	fmt.Fprintf(w, "  Landlock            %s\n", ll)
	sc := "none"
	if p.Seccomp.Load {
		sc = p.Seccomp.text()
	}
	fmt.Fprintf(w, "  seccomp             %s\n", sc)
	fmt.Fprintf(w, "  capabilities        %s\n", map[bool]string{true: "all dropped", false: "kept"}[p.DropCaps])
	fmt.Fprintf(w, "  pids cgroup         %v\n", p.PidsCgroup)
}
