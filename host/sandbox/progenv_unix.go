//go:build unix

package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/gemhost/gem/internal/config"
)

// The program's environment and the helper's: the helper runs with the user's rights until
// the view, Landlock and seccomp hold (and, with the guard, stays beside the program
// unconfined), so what a manifest's env sets must not act in it. An LD_PRELOAD library named
// there would run in the helper, in a process that can still write ~/.ssh, and GEM_SANDBOX*
// or GODEBUG there would change how the helper confines the program. So the helper gets gem's
// own switches only (helperEnv) and reads the program's environment from a descriptor
// (programEnvFile, Policy.EnvFD), applied only by the exec of the program itself.

// helperSwitches are the variables the helper runs with, from gem's own environment: the
// user's process-wide switches the helper reads (the program's policy carries the rest).
var helperSwitches = []string{"GEM_SANDBOX_STRICT", "GEM_SANDBOX_NAMESPACES"}

// helperEnv is the helper's own environment: gem's values of helperSwitches, nothing of the
// program's.
func helperEnv() []string {
	env := []string{}
	for _, k := range helperSwitches {
		if v := config.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// envFileName names the descriptors that carry a program's environment.
const envFileName = "gem program environment"

// programEnvFile is env, NUL-separated, in an anonymous file opened at its start, for the
// helper to read (readProgramEnv).
func programEnvFile(env []string) (*os.File, error) {
	f, err := anonymousFile()
	if err != nil {
		return nil, fmt.Errorf("passing the program's environment: %w", err)
	}
	var b bytes.Buffer
	for _, kv := range env {
		if strings.IndexByte(kv, 0) >= 0 {
			continue // no exec could pass it
		}
		b.WriteString(kv)
		b.WriteByte(0)
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return nil, fmt.Errorf("passing the program's environment: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("passing the program's environment: %w", err)
	}
	return f, nil
}

// readProgramEnv reads and closes the environment programEnvFile wrote, as the helper's
// descriptor fd.
func readProgramEnv(fd int) ([]string, error) {
	f := os.NewFile(uintptr(fd), envFileName)
	if f == nil {
		return nil, fmt.Errorf("no descriptor %d for the program's environment", fd)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading the program's environment: %w", err)
	}
	env := []string{}
	for _, kv := range strings.Split(string(data), "\x00") {
		if kv != "" {
			env = append(env, kv)
		}
	}
	return env, nil
}

// passEnv gives cmd the environment of its program s: through the descriptor Command left
// for it when cmd runs the helper (the file returned, for the caller to close once cmd
// started), else as cmd's own environment.
func passEnv(cmd *exec.Cmd, s Program) (*os.File, error) {
	last := len(cmd.ExtraFiles) - 1
	if !(len(cmd.Args) > 2 && cmd.Args[1] == HelperArg && cmd.Args[2] != prestartArg) || last < 0 || cmd.ExtraFiles[last] != nil {
		if s.Env != nil {
			cmd.Env = s.Env
		}
		return nil, nil
	}
	f, err := programEnvFile(s.Env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	cmd.ExtraFiles[last] = f
	return f, nil
}
