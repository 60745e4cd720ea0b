//go:build darwin || freebsd || netbsd || dragonfly

package commands

import (
	"fmt"
	"syscall"
	"time"
)

// fileTimes is a file's modification and change times, for the hash cache's identity.
func fileTimes(st *syscall.Stat_t) string {
	return fmt.Sprintf("%d.%d %d.%d", st.Mtimespec.Sec, st.Mtimespec.Nsec, st.Ctimespec.Sec, st.Ctimespec.Nsec)
}

// statChanged is the later of a file's modification and change times.
func statChanged(st *syscall.Stat_t) time.Time {
	m, c := time.Unix(int64(st.Mtimespec.Sec), int64(st.Mtimespec.Nsec)), time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
	if c.After(m) {
		return c
	}
	return m
}
