//go:build unix && !linux

package sandbox

import (
	"errors"
	"io"
	"syscall"
)

// Namespaces: none here.
func Namespaces() (bool, string) { return false, "namespaces are Linux's" }

func resolveMounts(p Plan) []Mount                     { return p.Mounts }
func namespaceAttrs(*syscall.SysProcAttr, bool, bool)  {}
func denyTerminalInjection(noNet, families bool) error { return nil }
func seccompUsable() bool                              { return false }
func guardUsable() bool                                { return false }

// errNoSteps: a policy without steps (its limits at least) would run the program unlimited.
var errNoSteps = errors.New("sandbox: the policy carries no steps (gem and its helper of different versions?)")

// applySteps applies the steps a plan has here: the limits.
func applySteps(p *Policy, warn io.Writer) (int, int, error) {
	if len(p.Steps) == 0 {
		return -1, -1, errNoSteps
	}
	for _, s := range p.Steps {
		err := errors.New("not a step this system has")
		if s.Op == StepLimits {
			err = setLimits(*s.Limits)
		}
		if err != nil {
			return -1, -1, stepFailed(s, p.Strict, err)
		}
	}
	return -1, -1, nil
}

// setLimits sets the rlimits of l (0: left as they are).
func setLimits(l Limits) error {
	for _, r := range []struct {
		res int
		v   uint64
	}{{syscall.RLIMIT_CPU, l.CPUSeconds}, {syscall.RLIMIT_NOFILE, l.OpenFiles}, {syscall.RLIMIT_AS, l.AddressSpace}} {
		if r.v == 0 {
			continue
		}
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(r.res, &cur); err != nil {
			return err
		}
		v := lowered(r.v, cur.Max)
		lim := syscall.Rlimit{Cur: v, Max: v}
		if err := syscall.Setrlimit(r.res, &lim); err != nil {
			return err
		}
	}
	return nil
}

func runGuarded(Policy, int, int, string, []string, []string, io.Writer) int { return 126 }

// lowered is v, or the hard limit max when that is lower (Rlimit's fields are uint64 on
// some systems, int64 on the BSDs).
func lowered[T int64 | uint64](v uint64, max T) T {
	if uint64(max) < v {
		return max
	}
	return T(v)
}
