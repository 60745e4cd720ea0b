package sandbox

import (
	"os"
	"strconv"
	"strings"
)

// Activity measures the work the program's process group has done so far: CPU time of its
// processes and of the children they reaped, in clock ticks, plus the bytes they read and
// wrote (where /proc lets gem see them). It grows while the program works — a launcher
// downloading, unpacking, compiling — and stands still while it waits on nothing, so a
// caller can tell a slow first start from a hang. 0 when the process has ended.
func (p *Process) Activity() uint64 {
	if p.Exited() {
		return 0
	}
	return groupActivity(p.Pid())
}

func groupActivity(pgid int) uint64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var total uint64
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// After the command's closing parenthesis: state ppid pgrp session tty tpgid flags
		// minflt cminflt majflt cmajflt utime stime cutime cstime …
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 15 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		for _, k := range []int{11, 12, 13, 14} {
			n, _ := strconv.ParseUint(f[k], 10, 64)
			total += n
		}
		if io, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io"); err == nil {
			for _, line := range strings.Split(string(io), "\n") {
				if k, v, ok := strings.Cut(line, ": "); ok && (k == "rchar" || k == "wchar") {
					n, _ := strconv.ParseUint(v, 10, 64)
					total += n
				}
			}
		}
	}
	return total
}
