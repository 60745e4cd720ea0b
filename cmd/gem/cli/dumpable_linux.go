package cli

import "golang.org/x/sys/unix"

// hideProcess makes gem-engine not dumpable while it holds secrets (API keys, sealed
// settings): no core dump, and no other process of the user may read its memory or its
// /proc/<pid>/environ.
func hideProcess() { unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
