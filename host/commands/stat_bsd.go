//go:build darwin || freebsd || netbsd || dragonfly

package commands

import (
	"fmt"
	"syscall"
)

// fileTimes is a file's modification and change times, for the hash cache's identity.
func fileTimes(st *syscall.Stat_t) string {
	return fmt.Sprintf("%d.%d %d.%d", st.Mtimespec.Sec, st.Mtimespec.Nsec, st.Ctimespec.Sec, st.Ctimespec.Nsec)
}
