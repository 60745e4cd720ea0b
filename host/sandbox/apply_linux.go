package sandbox

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"

	"golang.org/x/sys/unix"
)

// The applier: it executes the plan's steps (Steps, in p.Steps) one by one on the calling
// thread, which it locks (Landlock and seccomp hold for this thread, the one that execs),
// and decides nothing: no probe of the machine, no uid, no fallback but the one a step
// carries (archtest: TestApplierDecidesNothing).

// applied is what the steps leave for the ones after them and for the supervisor.
type applied struct {
	protect   []string // the view's read-only mounts
	rebinds   []string // folders the view bound writable below a read-only one
	overlays  []string // folders the view made writable through an overlay (its writes land elsewhere)
	netnsLost bool     // StepNetNS failed and fell back
	ruleset   int      // the Landlock ruleset (-1 without)
	listener  int      // the supervisor's seccomp listener (-1 without)
}

// errNoSteps: a sandboxed plan has at least its limits, so a policy without steps comes
// from a gem of another version than its helper, and would run the program unrestricted.
var errNoSteps = errors.New("sandbox: the policy carries no steps (gem and its helper of different versions?)")

// applySteps applies p.Steps; with a supervised filter it returns the listener the
// supervisor answers and the ruleset it holds itself to (both -1 without). p.Write gains
// the folders the view made writable (the supervisor's write roots). Fallbacks are said
// on warn.
func applySteps(p *Policy, warn io.Writer) (listener, ruleset int, err error) {
	if len(p.Steps) == 0 {
		return -1, -1, errNoSteps
	}
	runtime.LockOSThread()
	st := applied{ruleset: -1, listener: -1}
	for _, s := range p.Steps {
		if err := st.step(p, s, warn); err != nil {
			if st.listener >= 0 {
				unix.Close(st.listener)
			}
			if st.ruleset >= 0 {
				unix.Close(st.ruleset)
			}
			return -1, -1, stepFailed(s, p.Strict, err)
		}
	}
	if st.listener < 0 && st.ruleset >= 0 {
		unix.Close(st.ruleset) // no supervisor to hold to it
		st.ruleset = -1
	}
	return st.listener, st.ruleset, nil
}

// step applies one step.
func (st *applied) step(p *Policy, s Step, warn io.Writer) error {
	switch s.Op {
	case StepView:
		writable, failed, err := buildView(s)
		if err != nil {
			return err
		}
		for _, f := range failed {
			fmt.Fprintf(warn, "gem sandbox helper: %s: %v; %s\n", s.Op, f, s.Fallback)
		}
		for _, m := range s.Mounts {
			switch m.Op {
			case "read-only":
				st.protect = append(st.protect, m.Path)
			case "rebind":
				st.rebinds = append(st.rebinds, m.Path)
			}
		}
		st.overlays = writable
		// An overlay's folder is written through its mount (its writes land elsewhere): a
		// write root of the program now, another file than any folder agreed to.
		p.Write = append(p.Write, writable...)
		if len(writable) > 0 && len(p.WriteIDs) > 0 {
			ids := maps.Clone(p.WriteIDs)
			for _, w := range writable {
				delete(ids, w)
			}
			p.WriteIDs = ids
		}
	case StepLimits:
		return setLimits(*s.Limits)
	case StepPidsCgroup:
		return pidsCgroup(s.Limits.Processes)
	case StepReadOnly:
		return readOnlyView(s.Roots, st.protect, slices.Concat(st.overlays, st.rebinds))
	case StepNoNewPrivs:
		return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	case StepNetNS:
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			if s.Fallback == "" {
				return err
			}
			fmt.Fprintf(warn, "gem sandbox helper: %s: %v; %s\n", s.Op, err, s.Fallback)
			st.netnsLost = true
		}
	case StepLandlock:
		ll := *s.Landlock
		ll.Write = slices.Concat(ll.Write, st.overlays) // (a rebind is no grant: Landlock rules it as before)
		ruleset, err := applyLandlock(ll, p.WriteIDs, p.ReadIDs)
		if err != nil {
			return err
		}
		st.ruleset = ruleset
	case StepSeccomp:
		sc := s.Seccomp
		f := filterSet{guard: sc.Guard, sockets: sc.Sockets, noNet: sc.NoNet || (sc.NoNetIfNoNetNS && st.netnsLost),
			families: sc.Families, attrs: sc.Attrs}
		listener, err := loadFilter(f)
		if err != nil {
			return err
		}
		st.listener = listener
	case StepDropCaps:
		return dropCapabilities()
	default:
		return errors.New("not a step this helper knows (gem and its helper of different versions?)")
	}
	return nil
}
