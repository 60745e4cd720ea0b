package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/testhome"
)

// TestExplain: a sandboxed tool's failure that the sandbox caused names the cause (for the
// model) and keeps it for the front end's advice, whatever the tool's source (Catalog.Call
// reads every backend's); failures the sandbox did not cause stay as they were.
func TestExplain(t *testing.T) {
	home := testhome.Dir(t, "explain-")
	data, other := filepath.Join(home, "data"), filepath.Join(home, "other-ext")
	os.MkdirAll(data, 0o755)
	os.MkdirAll(other, 0o755)
	pol := &sandbox.Policy{Write: []string{data}}
	cases := []struct {
		name, msg string
		p         *sandbox.Policy
		want      string // "" : left as is
	}{
		{"denied outside what it may write", "EACCES: permission denied, open '" + home + "/.bashrc'", pol, "its sandbox denied it " + home + "/.bashrc"},
		{"hidden by the view", "[Errno 2] No such file or directory: '" + other + "/memory.jsonl'", pol, "its sandbox denied it " + other + "/memory.jsonl"},
		{"the network it lacks", "getaddrinfo ENOTFOUND example.com", pol, "it tried to reach the network"},
		{"denied where it may write: not the sandbox", "EACCES: permission denied, open '" + data + "/x'", pol, ""},
		{"really missing", "No such file or directory: '" + data + "/x'", pol, ""},
		{"a core tool (no sandbox)", "EACCES: permission denied, open '/etc/shadow'", nil, ""},
		{"nothing to do with the sandbox", "no such note: 42", pol, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := &ResultError{Type: ErrorExecution, Message: c.msg}
			e.explain("ext", c.p)
			if c.want == "" {
				if e.Message != c.msg || e.Sandbox != nil {
					t.Errorf("changed: %q, %v", e.Message, e.Sandbox)
				}
				return
			}
			if !strings.HasPrefix(e.Message, c.msg) || !strings.Contains(e.Message, c.want) || e.Sandbox == nil || e.Sandbox.Extension != "ext" {
				t.Errorf("got %q (%v), want the message with %q", e.Message, e.Sandbox, c.want)
			}
		})
	}
}
