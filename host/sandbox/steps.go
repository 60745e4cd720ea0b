package sandbox

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// The helper's steps: Steps turns a plan into the list of steps the applier (apply_linux.go)
// executes one by one, in order, deciding nothing; the parent sends them in Policy.Steps.
// A step that fails stops the program with a *StepError naming it, but where the step
// carries a Fallback (never under a strict plan): then the helper says the fallback and goes
// on (testdata/steps: the steps of each golden plan).

// StepOp names one step of the helper.
type StepOp string

const (
	StepView       StepOp = "view"              // Mounts, in order, in the helper's mount namespace
	StepLimits     StepOp = "limits"            // rlimits
	StepPidsCgroup StepOp = "pids cgroup"       // the process count for root
	StepReadOnly   StepOp = "read-only view"    // everything read-only but Roots (and what the view made writable)
	StepNoNewPrivs StepOp = "no_new_privs"      // no set-uid gain, before Landlock and seccomp
	StepNetNS      StepOp = "network namespace" // unshare(CLONE_NEWNET) on the thread that execs
	StepLandlock   StepOp = "landlock"          // Landlock, as the plan's ruleset says
	StepSeccomp    StepOp = "seccomp"           // the filter set, supervised or not
	StepDropCaps   StepOp = "drop capabilities" // every capability, root's too
)

// Step is one thing the helper does; only the fields of its Op are set.
type Step struct {
	Op StepOp `json:"op"`
	// StepView: the mounts; UserNamespace: the helper is in a user namespace (overlayfs
	// then needs userxattr).
	Mounts        []Mount `json:"mounts,omitempty"`
	UserNamespace bool    `json:"userns,omitempty"`
	Limits        *Limits `json:"limits,omitempty"`
	// StepReadOnly: the write roots that stay writable (the Landlock write list).
	Roots    []string  `json:"roots,omitempty"`
	Landlock *Landlock `json:"landlock,omitempty"`
	Seccomp  *Seccomp  `json:"seccomp,omitempty"`
	// Fallback, when set, is what happens instead when the step fails: the helper says
	// it and goes on. StepNetNS: the seccomp filter refuses UDP (Seccomp.NoNetIfNoNetNS);
	// StepView: an overlay that cannot be mounted leaves its folder read-only.
	Fallback string `json:"fallback,omitempty"`
}

// Fallbacks a plan allows (none under strict).
const (
	fallbackNoNet   = "the seccomp filter refuses UDP and the other internet sockets instead"
	fallbackOverlay = "a folder whose overlay cannot be mounted stays read-only"
)

// Steps are the helper's steps for p, in the order they are applied: the view (before
// anything forbids mounts), the limits and the pids cgroup (written in /sys), the read-only
// view, no_new_privs, the network namespace, Landlock, the seccomp filter (after Landlock:
// its supervisor restricts itself with the same ruleset), the capabilities last. A plan that
// is not sandboxed has none; a refused one is not started at all.
func Steps(p Plan) []Step {
	if p.Refused != "" || (p.Launch != LaunchHelper && p.Launch != LaunchPrestarted && p.Launch != LaunchExecInPlace) {
		return nil
	}
	strict := p.Intent.Strict
	var out []Step
	if p.Namespaces {
		s := Step{Op: StepView, Mounts: p.Mounts, UserNamespace: p.UserNamespace}
		if len(p.Intent.Overlays) > 0 && !strict {
			s.Fallback = fallbackOverlay
		}
		out = append(out, s)
	}
	limits := p.Limits
	out = append(out, Step{Op: StepLimits, Limits: &limits})
	if p.PidsCgroup {
		out = append(out, Step{Op: StepPidsCgroup, Limits: &Limits{Processes: p.Limits.Processes}})
	}
	if p.Namespaces {
		out = append(out, Step{Op: StepReadOnly, Roots: p.Intent.Write})
	}
	if p.Facts.OS == "linux" {
		out = append(out, Step{Op: StepNoNewPrivs})
	}
	if p.NetNS == NetNSApply || p.NetNS == NetNSHelper {
		s := Step{Op: StepNetNS}
		if p.Seccomp.NoNetIfNoNetNS && p.Seccomp.Load && !strict {
			s.Fallback = fallbackNoNet
		}
		out = append(out, s)
	}
	if p.Landlock.ABI >= 1 {
		ll := p.Landlock
		out = append(out, Step{Op: StepLandlock, Landlock: &ll})
	}
	if p.Seccomp.Load {
		sc := p.Seccomp
		if strict {
			sc.NoNetIfNoNetNS = false
		}
		out = append(out, Step{Op: StepSeccomp, Seccomp: &sc})
	}
	if p.DropCaps {
		out = append(out, Step{Op: StepDropCaps})
	}
	return out
}

// StepError is a step of the plan that could not be applied: the program is not started.
type StepError struct {
	Step StepOp
	Err  error
}

func (e *StepError) Error() string { return fmt.Sprintf("sandbox: %s: %v", e.Step, e.Err) }

func (e *StepError) Unwrap() error { return e.Err }

// stepFailed is the error of step s failing with err, under a strict plan an ErrNotEnforced.
func stepFailed(s Step, strict bool, err error) error {
	if strict {
		err = fmt.Errorf("%w: %w (strict)", ErrNotEnforced, err)
	}
	return &StepError{Step: s.Op, Err: err}
}

// IsStepError reports whether err is a step of a plan that could not be applied.
func IsStepError(err error) bool {
	var s *StepError
	return errors.As(err, &s)
}

// WriteSteps writes steps for a reader, one line each (testdata/steps).
func WriteSteps(w io.Writer, steps []Step) {
	if len(steps) == 0 {
		fmt.Fprintln(w, "(no steps: the program is not sandboxed, or not started)")
	}
	for i, s := range steps {
		fmt.Fprintf(w, "%d. %s%s\n", i+1, s.Op, s.detail())
		if s.Op == StepView {
			for _, m := range s.Mounts {
				fmt.Fprintf(w, "     %s\n", m.text())
			}
		}
		if s.Fallback != "" {
			fmt.Fprintf(w, "     if it fails: %s\n", s.Fallback)
		}
	}
}

func (s Step) detail() string {
	switch s.Op {
	case StepView:
		if s.UserNamespace {
			return " (in a user namespace)"
		}
	case StepLimits:
		l := s.Limits
		return fmt.Sprintf(": cpu %d s, files %d, address space %d MiB, processes %d", l.CPUSeconds, l.OpenFiles, l.AddressSpace>>20, l.Processes)
	case StepPidsCgroup:
		return fmt.Sprintf(": %d", s.Limits.Processes)
	case StepReadOnly:
		return fmt.Sprintf(": %d write roots stay writable", len(s.Roots))
	case StepLandlock:
		return ": " + s.Landlock.text()
	case StepSeccomp:
		return ": " + s.Seccomp.text()
	}
	return ""
}

func (m Mount) text() string {
	line := m.Op + " " + m.Path
	switch {
	case len(m.Keep) > 0:
		line += ", keeping " + strings.Join(m.Keep, ", ")
	case m.Upper != "":
		line += ", writes into " + m.Upper
	}
	return line
}

func (l Landlock) text() string {
	s := fmt.Sprintf("ABI %d, %d read roots, %d write roots", l.ABI, len(l.Read), len(l.Write))
	if l.TCP {
		s += ", TCP denied"
	}
	if l.Scoped {
		s += ", scoped"
	}
	if l.SharedNoSocket {
		s += ", no socket made in the shared /tmp"
	}
	return s
}

func (c Seccomp) text() string {
	parts := []string{"terminal"}
	for _, x := range []struct {
		on   bool
		name string
	}{{c.Families, "families"}, {c.NoNet, "no UDP"}, {c.NoNetIfNoNetNS, "no UDP if the network namespace fails"},
		{c.Guard, "guard"}, {c.Sockets, "socket judge"}, {c.Attrs, "attributes judged"}} {
		if x.on {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, ", ")
}
