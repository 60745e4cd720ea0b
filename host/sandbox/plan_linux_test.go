package sandbox

import (
	"fmt"

	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gemhost/gem/internal/testuser"
)

// TestFactsAreTheProbes: ProbeFacts is the one reading of the kernel, and says what each
// probe says (the applier's own checks use the same probes).
func TestFactsAreTheProbes(t *testing.T) {
	f := ProbeFacts()
	ns, why := Namespaces()
	if f.Namespaces != ns || f.NamespacesWhy != why || f.LandlockABI != LandlockABI() || f.Seccomp != seccompUsable() ||
		f.Supervisor() != guardUsable() || f.Root != (os.Geteuid() == 0) || f.Helper != HelperPath() || f.Disabled != Disabled() {
		t.Errorf("facts %+v disagree with the probes: namespaces %v (%s), Landlock %d, seccomp %v, guard %v", f, ns, why, LandlockABI(), seccompUsable(), guardUsable())
	}
}

// TestPlanIsWhatRuns: what the helper really sets up for a program (its namespaces, its
// capabilities, its seccomp filter, as /proc shows them from inside) is what MakePlan says
// on this machine, for a program without the network, with it, and with the workspace.
// Run as root and (TestPlanAsNormalUser) as a normal user: the plans differ.
func TestPlanIsWhatRuns(t *testing.T) {
	self := map[string]string{}
	for _, ns := range []string{"pid", "net", "user"} {
		self[ns], _ = os.Readlink("/proc/self/ns/" + ns)
	}
	for _, c := range []struct {
		name               string
		network, workspace bool
	}{{"no network", false, false}, {"network", true, false}, {"workspace", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			ws, ext, data, tmp := outsideTmp(t), outsideTmp(t), outsideTmp(t), outsideTmp(t)
			pol := ForExtension(Access{Extension: ext, Workspace: ws, WriteWorkspace: c.workspace, Data: data, Temp: tmp, Network: c.network})
			plan := Program{Name: "test", Policy: &pol}.Plan(false)
			if plan.Launch != LaunchHelper {
				t.Skipf("launch %q here: nothing runs through the helper", plan.Launch)
			}
			out, err := run(t, &pol, ws, `for n in pid net user; do echo "$n $(readlink /proc/self/ns/$n)"; done; grep -E '^(CapEff|Seccomp|NoNewPrivs):' /proc/self/status`)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			seen := map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if f := strings.Fields(line); len(f) == 2 {
					seen[strings.TrimSuffix(f[0], ":")] = f[1]
				}
			}
			netns := plan.NetNS == NetNSClone || plan.NetNS == NetNSHelper || (plan.NetNS == NetNSApply && plan.Facts.Root)
			for _, x := range []struct {
				what       string
				got, wants bool
			}{
				{"a PID namespace of its own", seen["pid"] != self["pid"], plan.Namespaces},
				{"a network namespace of its own", seen["net"] != self["net"], netns},
				{"a user namespace of its own", seen["user"] != self["user"], plan.UserNamespace},
				{"no capability", seen["CapEff"] == "0000000000000000", plan.DropCaps || !plan.Facts.Root},
				{"a seccomp filter", seen["Seccomp"] == "2", plan.Seccomp.Load},
				{"no_new_privs", seen["NoNewPrivs"] == "1", true},
			} {
				if x.got != x.wants {
					t.Errorf("%s: the program has it %v, the plan says %v\n%s", x.what, x.got, x.wants, out)
				}
			}
		})
	}
}

// TestPlanAsNormalUser runs TestPlanIsWhatRuns and TestFactsAreTheProbes again as an
// unprivileged user (when the tests run as root).
func TestPlanAsNormalUser(t *testing.T) {
	testuser.RunTests(t, "TestPlanIsWhatRuns", "TestFactsAreTheProbes")
}

// TestMountSetattrProbe: this kernel (≥ 5.12: the read-only view runs here) has
// mount_setattr, and the probe says so; without it Namespaces says why not.
func TestMountSetattrProbe(t *testing.T) {
	var uts unix.Utsname
	if err := unix.Uname(&uts); err != nil {
		t.Fatal(err)
	}
	release := unix.ByteSliceToString(uts.Release[:])
	var major, minor int
	fmt.Sscanf(release, "%d.%d", &major, &minor)
	want := major > 5 || major == 5 && minor >= 12
	if got := mountSetattrProbe(); got != want {
		t.Errorf("mountSetattrProbe() = %v on Linux %s, want %v", got, release, want)
	}
}
