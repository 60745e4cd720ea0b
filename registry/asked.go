package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemhost/gem/internal/fsx"
)

// FirstAsk reports whether key (one line) is not in file yet (gem never asked that question),
// and adds it: a question is asked once, whatever the answer.
func FirstAsk(file, key string) bool {
	data, _ := os.ReadFile(file)
	if slices.Contains(strings.Split(string(data), "\n"), key) {
		return false
	}
	if os.MkdirAll(filepath.Dir(file), 0o700) == nil {
		if f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			fmt.Fprintln(f, key)
			f.Close()
		}
	}
	return true
}

// FirstWorkspaceAsk reports whether gem has not asked yet whether x's program may change the
// project, and records that it now has ($GEM_HOME/workspace-asked). Keyed by the extension's
// identity (name, folder and install source), as grants are: the next extension given that
// name is asked again; uninstalling x forgets it (ForgetWorkspaceAsks).
func FirstWorkspaceAsk(env Env, x *Extension, program string) bool {
	t := TargetOf(x)
	key := strings.Join([]string{x.Name, filepath.Clean(t.Dir), t.Source, program}, "\t")
	if strings.ContainsAny(key, "\n") {
		return false
	}
	return FirstAsk(env.WorkspaceAskedFile(), key)
}

// ForgetWorkspaceAsks removes what FirstWorkspaceAsk recorded for the extension name in folder
// dir (and nothing of a same-name extension in another folder); true when it removed any.
func ForgetWorkspaceAsks(env Env, name, dir string) (bool, error) {
	file := env.WorkspaceAskedFile()
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	prefix := name + "\t" + filepath.Clean(dir) + "\t"
	lines := strings.Split(string(data), "\n")
	kept := slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return strings.HasPrefix(l, prefix) })
	if len(kept) == len(lines) {
		return false, nil
	}
	return true, fsx.WriteFileAtomic(file, []byte(strings.Join(kept, "\n")), 0o600)
}
