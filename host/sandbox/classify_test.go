package sandbox

import "testing"

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
