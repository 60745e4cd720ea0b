package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestPidsCgroupIsACgroup: the pids cgroup step writes pids.max into a cgroup, or fails: on
// a machine whose /sys/fs/cgroup is a plain tmpfs without the pids controller (here: one
// mounted in a private mount namespace, unshare -m), it made folders and files there and
// reported success, the process count unlimited; the probe said pids cgroups were usable.
func TestPidsCgroupIsACgroup(t *testing.T) {
	if os.Getenv("GEM_TEST_PIDS_TMPFS") == "1" {
		err := pidsCgroup(7)
		if err == nil || cgroupsUsable() {
			t.Fatalf("on a tmpfs: pidsCgroup = %v, cgroupsUsable = %v (want an error, and false)", err, cgroupsUsable())
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root (a private mount namespace)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare(1)")
	}
	self, _ := os.Executable()
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c",
		`mount -t tmpfs none /sys/fs/cgroup && exec "$0" -test.run '^TestPidsCgroupIsACgroup$' -test.v`, self)
	cmd.Env = append(os.Environ(), "GEM_TEST_PIDS_TMPFS=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestPidsCgroupIsACgroup") {
		t.Errorf("in a private mount namespace with a tmpfs on /sys/fs/cgroup: %v\n%s", err, out)
	}
}
