package claude

import (
	"strings"
	"testing"
)

func TestParseMarketplace(t *testing.T) {
	tests := []struct {
		name, in string
		want     []PluginSource // the plugins' sources, in order
		err      string
	}{
		{"every kind", `{"name": "tools", "owner": {"name": "Ann"}, "plugins": [
			{"name": "a", "source": "./plugins/a"},
			{"name": "b", "source": {"source": "github", "repo": "ann/b", "ref": "v1", "sha": "0123abc"}},
			{"name": "c", "source": {"source": "url", "url": "https://git.example/c.git"}},
			{"name": "d", "source": {"source": "git-subdir", "url": "file:///srv/mono.git", "path": "tools/d/", "ref": "main"}},
			{"name": "e", "source": {"source": "npm", "package": "@ann/e", "version": "1.2.3"}}]}`,
			[]PluginSource{{Kind: "relative", Path: "plugins/a"}, {Kind: "github", Repo: "ann/b", Ref: "v1", SHA: "0123abc"},
				{Kind: "url", URL: "https://git.example/c.git"}, {Kind: "git-subdir", URL: "file:///srv/mono.git", Path: "tools/d", Ref: "main"},
				{Kind: "npm", Package: "@ann/e", Version: "1.2.3"}}, ""},
		{"pluginRoot under bare names", `{"name": "m", "metadata": {"pluginRoot": "./plugins"}, "plugins": [{"name": "a", "source": "a"}, {"name": "b", "source": "./b"}]}`,
			[]PluginSource{{Kind: "relative", Path: "plugins/a"}, {Kind: "relative", Path: "b"}}, ""},
		{"a path out", `{"name": "m", "plugins": [{"name": "a", "source": "./../../etc"}]}`, nil, `plugins[0].source: path "./../../etc" leads out of the marketplace`},
		{"an absolute path", `{"name": "m", "plugins": [{"name": "a", "source": "/etc"}]}`, nil, `plugins[0].source: path "/etc": give a path relative`},
		{"pluginRoot out", `{"name": "m", "metadata": {"pluginRoot": "../x"}, "plugins": []}`, nil, "metadata.pluginRoot"},
		{"subdir out", `{"name": "m", "plugins": [{"name": "a", "source": {"source": "git-subdir", "url": "https://x/y.git", "path": "../z"}}]}`, nil, `path "../z": name a folder inside`},
		{"bad repo", `{"name": "m", "plugins": [{"name": "a", "source": {"source": "github", "repo": "https://github.com/a/b"}}]}`, nil, "give owner/name"},
		{"bad sha", `{"name": "m", "plugins": [{"name": "a", "source": {"source": "github", "repo": "a/b", "sha": "HEAD"}}]}`, nil, `sha "HEAD"`},
		{"ref like a flag", `{"name": "m", "plugins": [{"name": "a", "source": {"source": "url", "url": "https://x/y.git", "ref": "--upload-pack=evil"}}]}`, nil, "does not start with '-'"},
		{"url not git", `{"name": "m", "plugins": [{"name": "a", "source": {"source": "url", "url": "ext::sh -c evil"}}]}`, nil, "give an https, ssh or file git URL"},
		{"npm flag", `{"name": "m", "plugins": [{"name": "a", "source": {"source": "npm", "package": "--registry=evil"}}]}`, nil, "give an npm package name"},
		{"unknown kind", `{"name": "m", "plugins": [{"name": "a", "source": {"source": "svn"}}]}`, nil, `source "svn"`},
		{"twice", `{"name": "m", "plugins": [{"name": "a", "source": "./a"}, {"name": "a", "source": "./b"}]}`, nil, `"a" is listed twice`},
		{"bad name", `{"name": "../m", "plugins": []}`, nil, `name: "../m"`},
		{"plugin name", `{"name": "m", "plugins": [{"name": "a/b", "source": "./a"}]}`, nil, `plugins[0].name`},
		{"not JSON", `{`, nil, "not JSON of a marketplace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseMarketplace([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), MarketplaceFile) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Plugins) != len(tt.want) {
				t.Fatalf("%d plugins", len(m.Plugins))
			}
			for i, w := range tt.want {
				if m.Plugins[i].Source != w {
					t.Errorf("%d: %+v, want %+v", i, m.Plugins[i].Source, w)
				}
			}
		})
	}
}

func TestPluginSourceString(t *testing.T) {
	for _, tt := range []struct {
		s    PluginSource
		want string
	}{
		{PluginSource{Kind: "relative", Path: "plugins/a"}, "plugins/a"},
		{PluginSource{Kind: "github", Repo: "a/b", Ref: "v1", SHA: "abc1234"}, "github:a/b@v1 (sha abc1234)"},
		{PluginSource{Kind: "git-subdir", URL: "file:///m.git", Path: "x"}, "file:///m.git//x"},
		{PluginSource{Kind: "npm", Package: "p", Version: "1.0.0"}, "npm:p@1.0.0"},
	} {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}

func FuzzParseMarketplace(f *testing.F) {
	f.Add([]byte(`{"name":"m","plugins":[{"name":"a","source":"./a"},{"name":"b","source":{"source":"git-subdir","url":"file:///x","path":"y"}}]}`))
	f.Add([]byte(`{"name":"m","metadata":{"pluginRoot":"p"},"plugins":[{"name":"a","source":"a/../../b"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMarketplace(data)
		if err != nil {
			return
		}
		for _, p := range m.Plugins {
			if p.Source.Kind == "relative" || p.Source.Kind == "git-subdir" {
				if strings.HasPrefix(p.Source.Path, "/") || p.Source.Path == ".." || strings.HasPrefix(p.Source.Path, "../") {
					t.Fatalf("a path out accepted: %q", p.Source.Path)
				}
			}
			if strings.HasPrefix(p.Source.Ref, "-") {
				t.Fatalf("a ref like a flag accepted: %q", p.Source.Ref)
			}
		}
	})
}
