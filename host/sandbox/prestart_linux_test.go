package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/internal/testhome"
)

// TestPrestartedHelper: a helper started before its program (gem run's) runs it with the
// program's environment, folder and exit code, in the view and namespaces of the helper
// started for it (a network of its own when the policy has none, no home), reports a failed
// exec as exec in place would, and leaves nothing running when it is discarded.
func TestPrestartedHelper(t *testing.T) {
	if ok, why := Namespaces(); !ok {
		t.Skip("no namespaces: " + why)
	}
	ext, ws, data := testhome.Dir(t, "gem-prestart-"), testhome.Dir(t, "gem-prestart-"), testhome.Dir(t, "gem-prestart-")
	os.WriteFile(filepath.Join(ws, "in-project"), []byte("here\n"), 0o644)
	policy := func(network bool) *Policy {
		p := ForExtension(Access{Extension: ext, Workspace: ws, Data: data, Network: network})
		return &p
	}
	script := `echo "FOO=$FOO"; pwd; cat in-project; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' '; echo; exit 3`
	cases := []struct {
		name    string
		network bool
		want    []string
		notWant []string
	}{
		{"no network", false, []string{"FOO=bar", ws, "here", "lo "}, nil},
		{"network", true, []string{"FOO=bar", ws, "here"}, []string{"lo "}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			h := Prestart(nil, &out, &out)
			if h == nil {
				t.Fatal("no helper prestarted though namespaces are here")
			}
			prog := Program{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PATH=/usr/bin:/bin", "FOO=bar"}, Dir: ws, Name: "test", Policy: policy(c.network)}
			code, err := runPrestarted(prog, h, prog.Plan(true))
			if err != nil || code != 3 {
				t.Fatalf("code %d, err %v, output:\n%s", code, err, out.String())
			}
			lines := strings.Split(out.String(), "\n")
			for _, w := range c.want {
				if !slices.Contains(lines, w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range c.notWant {
				if slices.Contains(lines, w) {
					t.Errorf("output has %q (the host's network is more than lo):\n%s", w, out.String())
				}
			}
		})
	}
	t.Run("exec fails", func(t *testing.T) {
		var out bytes.Buffer
		h := Prestart(nil, &out, &out)
		prog := Program{Path: filepath.Join(ext, "missing"), Dir: ws, Name: "test", Policy: policy(false)}
		code, err := runPrestarted(prog, h, prog.Plan(true))
		if code != 127 || err == nil || !strings.Contains(err.Error(), "is gone") {
			t.Fatalf("code %d, err %v, output:\n%s", code, err, out.String())
		}
	})
	t.Run("guarded, streams as files", func(t *testing.T) {
		// The helper outlives the program as its guard's supervisor; gem returns the
		// program's code when it ends (reportExit), and nothing it left behind still runs.
		out, err := os.Create(filepath.Join(data, "out"))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		h := Prestart(nil, out, out)
		if h == nil || !h.direct {
			t.Fatalf("helper %v: not told it may report the exit (files as streams)", h)
		}
		p := ForExtension(Access{Extension: ext, Workspace: ws, WriteWorkspace: true, Data: data})
		marker := "31.4159" + strconv.Itoa(os.Getpid())
		prog := Program{Path: "/bin/sh", Args: []string{"-c", "sleep " + marker + " & echo started; exit 5"}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: ws, Name: "test", Policy: &p}
		plan := prog.Plan(true)
		if !plan.Seccomp.Guard {
			t.Skip("no guard here")
		}
		code, err := runPrestarted(prog, h, plan)
		if err != nil || code != 5 {
			got, _ := os.ReadFile(out.Name())
			t.Fatalf("code %d, err %v, output:\n%s", code, err, got)
		}
		if got, _ := os.ReadFile(out.Name()); string(got) != "started\n" {
			t.Errorf("output %q, want the program's", got)
		}
		deadline := time.Now().Add(2 * time.Second)
		for left := runningWith(marker); len(left) > 0; left = runningWith(marker) {
			if time.Now().After(deadline) {
				t.Fatalf("the program's background child still runs: %v", left)
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	t.Run("discarded", func(t *testing.T) {
		h := Prestart(nil, nil, nil)
		pid := h.proc.Pid()
		h.Discard()
		h.Discard() // twice is fine
		if !h.proc.Exited() {
			t.Fatal("the discarded helper still runs")
		}
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("process %d is still there", pid)
	})
}

// runningWith lists the processes, not yet ended, whose command line holds marker.
func runningWith(marker string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(f) > 0 && f[0] != "Z" && f[0] != "X" {
			out = append(out, e.Name())
		}
	}
	return out
}
