package manifest

import "testing"

var benchManifest = []byte(`{"name":"x","version":"1.0.0","description":"d","contextFileName":"GEMINI.md",
"settings":[{"name":"k","description":"d","envVar":"K","sensitive":true}],
"mcpServers":{"a":{"command":"node","args":["s.js"],"env":{"A":"1"},"cwd":"x","timeout":1000,"trust":true,"includeTools":["t"]}},
"commands":{"hi":{"type":"executable","binary":"${extensionPath}/bin/hi","description":"h","subcommands":["a"],"env":{"B":"2"}}},
"plugins":{"p":{"binary":"${extensionPath}/bin/p","description":"d","env":{"C":"3"}}}}`)

func BenchmarkParseManifest(b *testing.B) {
	for b.Loop() {
		if _, _, err := Parse(benchManifest); err != nil {
			b.Fatal(err)
		}
	}
}
