package validate

import (
	"strings"
	"testing"

	"github.com/gemhost/gem/manifest"
)

func TestManifest(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // "severity path" of every expected problem, in order
	}{
		{"valid", `{"name":"ok-1","version":"1.0.0"}`, nil},
		{"missing name and version", `{}`, []string{"error name", "error version"}},
		{"bad name", `{"name":"a b","version":"1.0.0"}`, []string{"error name"}},
		{"name from env var", `{"name":"$N","version":"1.0.0"}`, nil},
		{"non-semver version", `{"name":"a","version":"v1"}`, []string{"warning version"}},
		{"unknown field", `{"name":"a","version":"1.0.0","mcpServer":{}}`, []string{"warning mcpServer"}},
		{"command type", `{"name":"a","version":"1.0.0","commands":{"c":{"type":"shell","binary":"x"}}}`, []string{"error commands.c.type"}},
		{"command traversal", `{"name":"a","version":"1.0.0","commands":{"c":{"type":"executable","binary":"${extensionPath}/a/../../x"}}}`, []string{"error commands.c.binary"}},
		{"command inside after dotdot", `{"name":"a","version":"1.0.0","commands":{"c":{"type":"executable","binary":"${extensionPath}/a/../x"}}}`, nil},
		{"relative binary", `{"name":"a","version":"1.0.0","commands":{"c":{"type":"executable","binary":"bin/x"}}}`, nil},
		{"bad hash", `{"name":"a","version":"1.0.0","plugins":{"p":{"binary":"p","sha256":{"linux":"00"}}}}`, []string{"error plugins.p.sha256.linux", "error plugins.p.sha256.linux"}},
		{"mcp no transport", `{"name":"a","version":"1.0.0","mcpServers":{"s":{}}}`, []string{"error mcpServers.s"}},
		{"mcp bad url", `{"name":"a","version":"1.0.0","mcpServers":{"s":{"httpUrl":"ftp://x"}}}`, []string{"error mcpServers.s.httpUrl"}},
		{"mcp oauth endpoints", `{"name":"a","version":"1.0.0","mcpServers":{"s":{"httpUrl":"https://m.example.com/mcp","oauth":{"authorizationUrl":"https://auth.example.com/a","tokenUrl":"https://auth.example.com/t","clientId":"c"}}}}`, nil},
		{"mcp oauth token endpoint elsewhere", `{"name":"a","version":"1.0.0","mcpServers":{"s":{"httpUrl":"https://m.example.com/mcp","oauth":{"authorizationUrl":"https://auth.example.com/a","tokenUrl":"https://evil.example/t"}}}}`, []string{"error mcpServers.s.oauth.tokenUrl"}},
		{"mcp oauth scopes not a list", `{"name":"a","version":"1.0.0","mcpServers":{"s":{"httpUrl":"https://m.example.com/mcp","oauth":{"scopes":"x"}}}}`, []string{"error mcpServers.s.oauth.scopes"}},
		{"mcp oauth not an object", `{"name":"a","version":"1.0.0","mcpServers":{"s":{"httpUrl":"https://m.example.com/mcp","oauth":"on"}}}`, []string{"error mcpServers.s.oauth"}},
		{"mcp oauth with a variable, checked at sign-in", `{"name":"a","version":"1.0.0","mcpServers":{"s":{"httpUrl":"https://m.example.com/mcp","oauth":{"authorizationUrl":"${AUTH}/a","tokenUrl":"${AUTH}/t"}}}}`, nil},
		{"settings", `{"name":"a","version":"1.0.0","settings":[{"envVar":"A"},{"name":"n","description":"d","envVar":"A"}]}`,
			[]string{"error settings[0].name", "warning settings[0].description", "error settings[1].envVar"}},
		{"engines", `{"name":"a","version":"1.0.0","engines":{"gem":"~>"}}`, []string{"error engines.gem"}},
		{"context escape", `{"name":"a","version":"1.0.0","contextFileName":"../x.md"}`, []string{"error contextFileName"}},
		{"sandbox", `{"name":"a","version":"1.0.0","sandbox":{"env":["1X"],"write":["/"]}}`, []string{"error sandbox.env[0]", "warning sandbox.write[0]"}},
		{"sandbox paths absolute once expanded", `{"name":"a","version":"1.0.0","sandbox":{"read":["${extensionPath}/../../.ssh","$HOME/.cache/a","${XDG_CACHE_HOME:-/tmp}/a","/opt/a","${/}srv","C:\\data"],"write":["${extensionData}/db","${workspacePath}/out"]}}`, nil},
		{"sandbox paths relative", `{"name":"a","version":"1.0.0","sandbox":{"read":["../../.ssh","~/.cache/a","~","${platform}/x"],"write":["cache"]}}`,
			[]string{"error sandbox.read[0]", "error sandbox.read[1]", "error sandbox.read[2]", "error sandbox.read[3]", "error sandbox.write[0]"}},
		{"plugin sandbox path relative", `{"name":"a","version":"1.0.0","plugins":{"p":{"binary":"p","sandbox":{"write":["out"]}}}}`, []string{"error plugins.p.sandbox.write[0]"}},
		{"wrong type reported once", `{"name":"a","version":2}`, []string{"error version"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, lp, err := manifest.Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			env := func(n string) (string, bool) { return "from-env", n == "N" }
			ps := Manifest(m, lp, env)
			var got []string
			for _, p := range ps {
				got = append(got, p.Severity.String()+" "+p.Path)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q\nwant %q\n%s", got, tt.want, ps.Error())
			}
		})
	}
}

func FuzzManifest(f *testing.F) {
	f.Add([]byte(`{"name":"a","version":"1.0.0","commands":{"c":{"type":"executable","binary":"${extensionPath}/x"}}}`))
	f.Add([]byte(`{"name":"$X","engines":{"gem":">=1 <"},"settings":[{"envVar":"A"},{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, lp, err := manifest.Parse(data)
		if err != nil {
			return
		}
		_ = Manifest(m, lp, nil).Error()
	})
}
