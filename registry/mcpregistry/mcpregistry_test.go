package mcpregistry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gemhost/gem/manifest"
)

func TestConvert(t *testing.T) {
	tests := []struct {
		name, server string
		want         []string // in the manifest
		kind, err    string
	}{
		{"npm", `{"name": "io.github.a/w", "version": "1.0.0", "packages": [{"registryType": "npm", "identifier": "@a/w", "version": "1.0.0", "transport": {"type": "stdio"},
			"runtimeArguments": [{"type": "named", "name": "--node-options", "value": "--max-old-space-size=64"}],
			"packageArguments": [{"type": "positional", "valueHint": "root"}, {"type": "named", "name": "--verbose"}],
			"environmentVariables": [{"name": "TOKEN", "isSecret": true}, {"name": "URL", "value": "https://{host}/api", "variables": {"host": {"description": "the host", "default": "x.example"}}}]}]}`,
			[]string{`"command": "npx"`, `"-y"`, `"--node-options"`, `"@a/w@1.0.0"`, `"${ROOT}"`, `"--verbose"`, `"URL": "https://${HOST}/api"`,
				`"envVar": "TOKEN"`, `"sensitive": true`, `"envVar": "HOST"`, `"default": "x.example"`}, "npm", ""},
		{"npm from another registry", `{"name": "a/b", "version": "1", "packages": [{"registryType": "npm", "registryBaseUrl": "http://127.0.0.1:9/", "identifier": "b", "version": "1", "transport": {"type": "stdio"}}]}`,
			[]string{`"--registry"`, `"http://127.0.0.1:9/"`}, "npm", ""},
		{"pypi", `{"name": "a/p", "version": "2", "packages": [{"registryType": "pypi", "identifier": "p-mcp", "version": "2.1", "transport": {"type": "stdio"}}]}`,
			[]string{`"command": "uvx"`, `"p-mcp==2.1"`}, "pypi", ""},
		{"oci", `{"name": "a/o", "version": "3", "packages": [{"registryType": "oci", "identifier": "ghcr.io/a/o", "version": "3", "transport": {"type": "stdio"},
			"environmentVariables": [{"name": "KEY", "isSecret": true}]}]}`,
			[]string{`"command": "docker"`, `"run"`, `"-i"`, `"--rm"`, `"-e"`, `"KEY"`, `"ghcr.io/a/o:3"`}, "oci", ""},
		{"oci widening refused", `{"name": "a/o", "version": "3", "packages": [{"registryType": "oci", "identifier": "o", "transport": {"type": "stdio"},
			"runtimeArguments": [{"type": "named", "name": "-v", "value": "/:/host"}]}]}`, nil, "", `docker runtime argument "-v" would widen`},
		{"joined short flags refused", `{"name": "a/o", "version": "3", "packages": [{"registryType": "oci", "identifier": "o", "transport": {"type": "stdio"},
			"runtimeArguments": [{"type": "positional", "value": "-itv"}]}]}`, nil, "", "joins short flags"},
		{"mcpb needs a hash", `{"name": "a/m", "version": "1", "packages": [{"registryType": "mcpb", "identifier": "https://x/m.mcpb", "transport": {"type": "stdio"}}]}`,
			nil, "", "no fileSha256"},
		{"mcpb", `{"name": "a/m", "version": "1", "packages": [{"registryType": "mcpb", "identifier": "https://x/m.mcpb", "fileSha256": "ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789", "transport": {"type": "stdio"}}]}`,
			[]string{`"name": "m"`}, "mcpb", ""},
		{"remote http with a header", `{"name": "a/r", "version": "1", "remotes": [{"type": "streamable-http", "url": "https://{tenant}.example/mcp",
			"headers": [{"name": "Authorization", "value": "Bearer {token}", "variables": {"token": {"isSecret": true}}}]}]}`,
			[]string{`"httpUrl": "https://${TENANT}.example/mcp"`, `"Authorization": "Bearer ${TOKEN}"`, `"envVar": "TENANT"`}, "remote", ""},
		{"remote sse", `{"name": "a/s", "version": "1", "remotes": [{"type": "sse", "url": "https://s.example/sse"}]}`, []string{`"url": "https://s.example/sse"`}, "remote", ""},
		{"a package over http falls to a remote", `{"name": "a/s", "version": "1", "packages": [{"registryType": "npm", "identifier": "x", "transport": {"type": "streamable-http"}}],
			"remotes": [{"type": "sse", "url": "https://s.example/sse"}]}`, []string{`"url"`}, "remote", ""},
		{"nuget only", `{"name": "a/n", "version": "1", "packages": [{"registryType": "nuget", "identifier": "N", "transport": {"type": "stdio"}}]}`, nil, "", "it has nuget"},
		{"nothing", `{"name": "a/e", "version": "1"}`, nil, "", "no packages or remotes"},
		{"an identifier like a flag", `{"name": "a/f", "version": "1", "packages": [{"registryType": "npm", "identifier": "--yes", "transport": {"type": "stdio"}}]}`, nil, "", "looks like a flag"},
		{"inputs naming the user's variables are settings", `{"name": "a/e", "version": "1", "packages": [{"registryType": "npm", "identifier": "x", "transport": {"type": "stdio"},
			"environmentVariables": [{"name": "TOKEN", "value": "{GEMINI_API_KEY}"}, {"name": "GH", "value": "{GITHUB_TOKEN}"}]}]}`,
			[]string{`"TOKEN": "${GEMINI_API_KEY}"`, `"envVar": "GEMINI_API_KEY"`, `"envVar": "GITHUB_TOKEN"`}, "npm", ""},
		{"a fixed value naming $GITHUB_TOKEN", `{"name": "a/d", "version": "1", "packages": [{"registryType": "npm", "identifier": "x", "transport": {"type": "stdio"},
			"environmentVariables": [{"name": "GH", "value": "$GITHUB_TOKEN"}]}]}`, nil, "", "its values name $GITHUB_TOKEN, a variable of your environment"},
		{"an argument default naming ${AWS_SECRET_ACCESS_KEY}", `{"name": "a/d", "version": "1", "packages": [{"registryType": "npm", "identifier": "x", "transport": {"type": "stdio"},
			"packageArguments": [{"type": "named", "name": "--key", "default": "${AWS_SECRET_ACCESS_KEY}"}]}]}`, nil, "", "its values name $AWS_SECRET_ACCESS_KEY"},
		{"a remote URL naming $HOME (inherited by every program)", `{"name": "a/h", "version": "1", "remotes": [{"type": "sse", "url": "https://s.example/$HOME"}]}`,
			[]string{`"url": "https://s.example/$HOME"`}, "remote", ""},
		{"a named argument without a dash", `{"name": "a/f", "version": "1", "packages": [{"registryType": "npm", "identifier": "x", "transport": {"type": "stdio"}, "packageArguments": [{"type": "named", "name": "x"}]}]}`, nil, "", "a flag starts with '-'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Server
			if err := json.Unmarshal([]byte(tt.server), &s); err != nil {
				t.Fatal(err)
			}
			plan, err := Convert(&s)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if plan.Kind != tt.kind {
				t.Errorf("kind %s, want %s", plan.Kind, tt.kind)
			}
			if _, _, err := manifest.Parse(plan.Manifest); err != nil {
				t.Fatalf("not a manifest: %v\n%s", err, plan.Manifest)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(plan.Manifest), w) {
					t.Errorf("%s lacks %s", plan.Manifest, w)
				}
			}
			if tt.kind == "mcpb" && (plan.Bundle == nil || plan.Bundle.SHA256 != strings.ToLower("ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789")) {
				t.Errorf("bundle %+v", plan.Bundle)
			}
		})
	}
}

func TestBundleServer(t *testing.T) {
	server, settings, err := BundleServer([]byte(`{"server": {"mcp_config": {"command": "node", "args": ["${__dirname}/s.js", "--key", "${user_config.api_key}"], "env": {"D": "${__dirname}"}}},
		"user_config": {"api_key": {"title": "API key", "sensitive": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(server)
	for _, w := range []string{`"${extensionPath}/bundle/s.js"`, `"${API_KEY}"`, `"D":"${extensionPath}/bundle"`} {
		if !strings.Contains(string(got), w) {
			t.Errorf("%s lacks %s", got, w)
		}
	}
	if len(settings) != 1 || settings[0]["envVar"] != "API_KEY" || settings[0]["sensitive"] != true {
		t.Errorf("settings %v", settings)
	}
	if _, _, err := BundleServer([]byte(`{"server": {}}`)); err == nil || !strings.Contains(err.Error(), "command is missing") {
		t.Errorf("no command: %v", err)
	}
}

func TestExtensionName(t *testing.T) {
	for in, want := range map[string]string{"io.github.acme/weather": "weather", "a/My Server!": "my-server", "plain": "plain", "a/..": ""} {
		if got := ExtensionName(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func FuzzConvert(f *testing.F) {
	f.Add([]byte(`{"name":"a/b","version":"1","packages":[{"registryType":"npm","identifier":"x","transport":{"type":"stdio"},"packageArguments":[{"type":"positional","value":"{v}"}]}]}`))
	f.Add([]byte(`{"name":"a/b","version":"1","remotes":[{"type":"sse","url":"https://{h}/x","headers":[{"name":"A","value":"{t}"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Server
		if json.Unmarshal(data, &s) != nil {
			return
		}
		plan, err := Convert(&s)
		if err != nil {
			return
		}
		if _, _, err := manifest.Parse(plan.Manifest); err != nil {
			t.Fatalf("Convert made an invalid manifest: %v\n%s", err, plan.Manifest)
		}
		if strings.Contains(string(plan.Manifest), `"--privileged"`) && plan.Kind == "oci" {
			t.Fatalf("a widening docker flag passed: %s", plan.Manifest)
		}
	})
}
