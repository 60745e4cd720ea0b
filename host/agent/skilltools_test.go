package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/testhome"
)

// TestSkillToolsOf: which files of a skill's tools/ folder are tools, under which names,
// described how; a sidecar that cannot be read leaves its tool out with an error naming
// the file and the fix.
func TestSkillToolsOf(t *testing.T) {
	type file struct {
		name, text string
		mode       os.FileMode
	}
	cases := []struct {
		name    string
		files   []file
		link    bool // tools/ is a link to a folder of tools
		want    map[string]tools.Kind
		desc    string // a description one tool has
		wantErr string
	}{
		{name: "an executable without a sidecar", files: []file{{"fill.py", "#!/bin/sh\n", 0o755}},
			want: map[string]tools.Kind{"pdf_fill": tools.KindExecute}, desc: "Runs fill.py of the skill pdf"},
		{name: "a sidecar describes it", files: []file{{"fill.sh", "#!/bin/sh\n", 0o755}, {"fill.json", `{"description": "Fills forms", "kind": "edit", "inputSchema": {"type": "object"}}`, 0o644}},
			want: map[string]tools.Kind{"pdf_fill": tools.KindEdit}, desc: "Fills forms"},
		{name: "what is not an executable file is no tool", files: []file{{"README.md", "hi", 0o644}, {".hidden", "#!/bin/sh\n", 0o755}, {"notes.json", "{}", 0o644}},
			want: map[string]tools.Kind{}},
		{name: "characters a function name may not hold", files: []file{{"split pages.sh", "#!/bin/sh\n", 0o755}},
			want: map[string]tools.Kind{"pdf_split_pages": tools.KindExecute}},
		{name: "a sidecar that is no JSON", files: []file{{"fill", "#!/bin/sh\n", 0o755}, {"fill.json", "{", 0o644}},
			want: map[string]tools.Kind{}, wantErr: "tools/fill.json: unexpected end of JSON input: write {"},
		{name: "an unknown kind", files: []file{{"fill", "#!/bin/sh\n", 0o755}, {"fill.json", `{"kind": "run"}`, 0o644}},
			want: map[string]tools.Kind{}, wantErr: `tools/fill.json: kind "run": use one of`},
		{name: "two files, one name", files: []file{{"fill.py", "#!/bin/sh\n", 0o755}, {"fill.sh", "#!/bin/sh\n", 0o755}},
			want: map[string]tools.Kind{"pdf_fill": tools.KindExecute}, wantErr: "is the tool pdf_fill already: rename one"},
		{name: "tools/ as a link is none", files: []file{{"fill", "#!/bin/sh\n", 0o755}}, link: true,
			want: map[string]tools.Kind{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			skill := filepath.Join(testhome.Dir(t, "skilltools-"), "pdf")
			dir := filepath.Join(skill, "tools")
			if c.link {
				dir = filepath.Join(filepath.Dir(skill), "elsewhere")
				os.MkdirAll(skill, 0o755)
				os.Symlink(dir, filepath.Join(skill, "tools"))
			}
			os.MkdirAll(dir, 0o755)
			for _, f := range c.files {
				if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.text), f.mode); err != nil {
					t.Fatal(err)
				}
			}
			got, errs := skillToolsOf(Skill{Name: "pdf", Path: filepath.Join(skill, "SKILL.md")})
			kinds := map[string]tools.Kind{}
			descs := ""
			for _, tl := range got {
				kinds[tl.Spec.Name] = tl.Spec.Kind
				descs += tl.Spec.Description + "\n"
			}
			if len(kinds) != len(c.want) {
				t.Errorf("tools %v, want %v", kinds, c.want)
			}
			for name, kind := range c.want {
				if kinds[name] != kind {
					t.Errorf("tool %s: kind %q, want %q (tools: %v)", name, kinds[name], kind, kinds)
				}
			}
			if !strings.Contains(descs, c.desc) {
				t.Errorf("descriptions %q lack %q", descs, c.desc)
			}
			var msgs []string
			for _, err := range errs {
				msgs = append(msgs, err.Error())
			}
			if all := strings.Join(msgs, "\n"); (c.wantErr == "") != (all == "") || !strings.Contains(all, c.wantErr) {
				t.Errorf("errors %q, want one with %q", all, c.wantErr)
			}
		})
	}
}
