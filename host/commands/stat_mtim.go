//go:build linux || openbsd

package commands

import (
	"fmt"
	"syscall"
	"time"
)

// fileTimes is a file's modification and change times, for the hash cache's identity.
func fileTimes(st *syscall.Stat_t) string {
	return fmt.Sprintf("%d.%d %d.%d", st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}

// statChanged is the later of a file's modification and change times.
func statChanged(st *syscall.Stat_t) time.Time {
	m, c := time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)), time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	if c.After(m) {
		return c
	}
	return m
}
