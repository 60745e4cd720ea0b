package cli

import (
	"golang.org/x/sys/unix"

	"github.com/gemhost/gem/host/sandbox"
)

// hideProcess makes gem-engine not dumpable while it holds secrets (API keys, sealed
// settings): no core dump, and no other process of the user may read its memory or its
// /proc/<pid>/environ. Not when its children get user namespaces: their uid maps are written
// through /proc/<child>, which a non-dumpable parent's children make root's (and those
// children cannot see gem's /proc anyway).
func hideProcess() {
	if f := sandbox.ProbeFacts(); f.Namespaces && !f.Root {
		return
	}
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
