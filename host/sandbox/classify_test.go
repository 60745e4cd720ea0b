package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gemhost/gem/internal/testhome"
)

func TestClassify(t *testing.T) {
	off := &Policy{}
	on := &Policy{Network: true}
	reader := &Policy{Workspace: "/home/u/proj"}
	writer := &Policy{Workspace: "/home/u/proj", Guard: true}
	cases := []struct {
		stderr []string
		pol    *Policy
		kind   string
		detail string
	}{
		{[]string{"npm error code EAI_AGAIN", "npm error request to https://registry.npmjs.org/x failed"}, off, "network", ""},
		{[]string{"npm error code EAI_AGAIN"}, on, "", ""},
		{[]string{"Error: EACCES: permission denied, mkdir '/home/u/.npm/_cacache'"}, on, "path", "/home/u/.npm/_cacache"},
		{[]string{"PermissionError: [Errno 13] Permission denied: '/home/u/.cache/uv'"}, off, "path", "/home/u/.cache/uv"},
		{[]string{"/usr/bin/env: 'node': No such file or directory"}, off, "toolchain", "node"},
		{[]string{"sh: 1: uvx: not found"}, off, "toolchain", "uvx"},
		{[]string{"panic: nil map"}, off, "", ""},
		// the project, read but not changed: the workspace capability is what it lacks
		{[]string{"Error: EACCES: permission denied, open '/home/u/proj/out.txt'"}, reader, "workspace", "/home/u/proj/out.txt"},
		// a protected name: nothing to grant; a program that has the capability: a denied path
		{[]string{"Error: EACCES: permission denied, open '/home/u/proj/.git/config'"}, reader, "protected", "/home/u/proj/.git/config"},
		{[]string{"Error: EACCES: permission denied, open '/home/u/proj/.git/config'"}, writer, "protected", "/home/u/proj/.git/config"},
		{[]string{"Error: EACCES: permission denied, open '/home/u/proj/out.txt'"}, writer, "path", "/home/u/proj/out.txt"},
	}
	for _, c := range cases {
		f := Classify(c.stderr, c.pol)
		if f.Kind != c.kind || f.Detail != c.detail {
			t.Errorf("Classify(%q) = %+v, want %s %s", c.stderr, f, c.kind, c.detail)
		}
	}
}

// TestHidden: "no such file" names a path the sandbox's view hid only when its folder exists
// on the host and the policy reaches neither it nor the workspace holding it.
func TestHidden(t *testing.T) {
	home := testhome.Dir(t, "hidden-")
	other := filepath.Join(home, "other-ext")
	os.MkdirAll(other, 0o755)
	granted := filepath.Join(home, "granted")
	os.MkdirAll(granted, 0o755)
	ws := filepath.Join(home, "proj")
	os.MkdirAll(ws, 0o755)
	p := &Policy{Read: []string{granted}, Write: []string{filepath.Join(home, "data")}, Workspace: ws}
	cases := []struct {
		name, text, want string
	}{
		{"python, hidden folder", "[Errno 2] No such file or directory: '" + other + "/memory.jsonl'", other + "/memory.jsonl"},
		{"node, hidden folder", "ENOENT: no such file or directory, open '" + other + "/x.json'", other + "/x.json"},
		{"granted folder: really missing", "[Errno 2] No such file or directory: '" + granted + "/x'", ""},
		{"data folder: really missing", "No such file or directory: '" + home + "/data/x'", ""},
		{"the workspace: really missing", "No such file or directory: '" + ws + "/x'", ""},
		{"no folder on the host either", "No such file or directory: '" + home + "/nowhere/x'", ""},
		{"no path", "No such file or directory", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Hidden(c.text, p)
			if f.Detail != c.want || (c.want != "") != (f.Kind == FailedPath) {
				t.Errorf("Hidden = %+v, want path %q", f, c.want)
			}
		})
	}
}
