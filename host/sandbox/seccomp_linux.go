package sandbox

import (
	seccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/sys/unix"
)

// denyTerminalInjection loads a seccomp filter on the calling thread (inherited across
// execve, with no_new_privs already set) that fails ioctl(TIOCSTI) and ioctl(TIOCLINUX) with
// EPERM: a program must not push input into the user's terminal, which the user's shell
// would run after gem exits. Everything else is allowed.
func denyTerminalInjection() error {
	cond := func(req uint64) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: "ioctl", Conditions: seccomp.ArgumentConditions{{Argument: 1, Operation: seccomp.Equal, Value: req}}}
	}
	return seccomp.LoadFilter(seccomp.Filter{
		NoNewPrivs: true,
		Policy: seccomp.Policy{
			DefaultAction: seccomp.ActionAllow,
			Syscalls: []seccomp.SyscallGroup{{
				Action:             seccomp.ActionErrno,
				NamesWithCondtions: []seccomp.NameWithConditions{cond(unix.TIOCSTI), cond(unix.TIOCLINUX)},
			}},
		},
	})
}

// seccompUsable reports whether the kernel has seccomp filters.
func seccompUsable() bool {
	return seccomp.Supported()
}
