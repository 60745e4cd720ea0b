//go:build linux || openbsd

package commands

import (
	"fmt"
	"syscall"
)

// fileTimes is a file's modification and change times, for the hash cache's identity.
func fileTimes(st *syscall.Stat_t) string {
	return fmt.Sprintf("%d.%d %d.%d", st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}
