//go:build unix

package sandbox

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func shSpec(script string) Program {
	return Program{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Name: "test"}
}

// TestRunContext: exit codes as a shell reports them, output captured, and a context that
// ends stops the child and everything it started.
func TestRunContext(t *testing.T) {
	tests := []struct {
		name, script string
		timeout      time.Duration
		wantCode     int
		wantOut      string
		wantErr      bool
	}{
		{"success", "echo hi", 0, 0, "hi\n", false},
		{"exit code", "echo out; exit 3", 0, 3, "out\n", false},
		{"signal", "kill -TERM $$", 0, 128 + int(syscall.SIGTERM), "", false},
		{"stdin", "cat", 0, 0, "fed\n", false},
		{"timeout", "sleep 30", 200 * time.Millisecond, -1, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			var out strings.Builder
			t0 := time.Now()
			code, err := RunContext(ctx, shSpec(tt.script), Streams{Stdin: strings.NewReader("fed\n"), Stdout: &out}, 400*time.Millisecond)
			if code != tt.wantCode || out.String() != tt.wantOut || (err != nil) != tt.wantErr {
				t.Errorf("code %d, output %q, err %v; want %d, %q, error %v", code, out.String(), err, tt.wantCode, tt.wantOut, tt.wantErr)
			}
			if time.Since(t0) > 5*time.Second {
				t.Errorf("took %v", time.Since(t0))
			}
		})
	}
}

// TestStop: a child that exits when its stdin closes ends without a signal; one that ignores
// stdin ends at SIGTERM; one that ignores both is killed; in every case what it started in
// the background is gone too.
func TestStop(t *testing.T) {
	tests := []struct {
		name, script string
		wantCode     int
	}{
		{"exits at EOF", "cat >/dev/null; exit 7", 7},
		{"exits at SIGTERM", "trap 'exit 5' TERM; while :; do sleep 0.05; done", 5},
		{"ignores SIGTERM", "trap '' TERM; while :; do sleep 0.05; done", 128 + int(syscall.SIGKILL)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			pidR, pidW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			// A grandchild in the background reports its pid and sleeps on.
			script := "(exec 3>&-; trap '' TERM; exec sleep 60) & echo $! >&3; exec 3>&-; " + tt.script
			spec := shSpec(script)
			cmd, err := Command(spec)
			if err != nil {
				t.Fatal(err)
			}
			cmd.ExtraFiles = []*os.File{pidW}
			cmd.Stdin = r
			p, err := StartCommand(cmd, spec)
			r.Close()
			pidW.Close()
			if err != nil {
				t.Fatal(err)
			}
			p.stdin = w
			data, _ := io.ReadAll(pidR)
			grandchild, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			if grandchild == 0 {
				t.Fatalf("no grandchild pid: %q", data)
			}
			p.Stop(400 * time.Millisecond)
			if got := p.ExitCode(); got != tt.wantCode {
				t.Errorf("exit code %d, want %d", got, tt.wantCode)
			}
			p.Stop(time.Second) // a second Stop returns at once
			for deadline := time.Now().Add(2 * time.Second); alive(grandchild); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the grandchild %d outlived Stop", grandchild)
				}
			}
		})
	}
}

// alive reports whether pid runs (a zombie waiting for its reaper does not).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, after, _ := strings.Cut(string(data), ") ")
	return !strings.HasPrefix(after, "Z")
}
