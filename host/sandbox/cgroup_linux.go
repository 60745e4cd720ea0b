package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// pidsRoot is where gem makes a pids cgroup per sandboxed program when it can (root, with
// the cgroup v1 pids controller mounted): the process count limit then holds for root too,
// and every process the program started, even one that left its process group, can be
// found and killed.
const pidsRoot = "/sys/fs/cgroup/pids/gem"

// pidsCgroup puts the calling process in a new pids cgroup limited to max processes; the
// cgroups of programs that ended are removed on the way.
func pidsCgroup(max uint64) error {
	if !isCgroup(filepath.Dir(pidsRoot)) {
		return errors.New(filepath.Dir(pidsRoot) + " is not a cgroup hierarchy (no pids controller mounted there)")
	}
	if err := os.MkdirAll(pidsRoot, 0o755); err != nil {
		return err
	}
	sweepCgroups()
	dir := filepath.Join(pidsRoot, strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatUint(max, 10)), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0o644)
}

// sweepCgroups removes the empty cgroups of programs that ended (rmdir fails on the others).
func sweepCgroups() {
	entries, _ := os.ReadDir(pidsRoot)
	for _, e := range entries {
		if e.IsDir() {
			unix.Rmdir(filepath.Join(pidsRoot, e.Name()))
		}
	}
}

// killCgroup kills every process in the cgroup of the program that was pid, then removes it.
func killCgroup(pid int) {
	dir := filepath.Join(pidsRoot, strconv.Itoa(pid))
	for range 3 {
		data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			return
		}
		members := strings.Fields(string(data))
		if len(members) == 0 {
			break
		}
		for _, m := range members {
			if p, err := strconv.Atoi(m); err == nil {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
	}
	unix.Rmdir(dir)
}

// isCgroup reports whether dir is on a cgroup filesystem (v1 or v2): a folder of a plain
// tmpfs in its place takes pids.max as a file and limits nothing.
func isCgroup(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	return st.Type == unix.CGROUP_SUPER_MAGIC || st.Type == unix.CGROUP2_SUPER_MAGIC
}

// cgroupsUsable reports whether pids cgroups can be made here.
func cgroupsUsable() bool {
	if !isCgroup(filepath.Dir(pidsRoot)) {
		return false
	}
	if err := os.MkdirAll(pidsRoot, 0o755); err != nil {
		return false
	}
	return unix.Access(pidsRoot, unix.W_OK) == nil
}
