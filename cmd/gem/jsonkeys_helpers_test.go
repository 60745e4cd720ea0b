package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// jsonkeys [-lines] A B: the two JSON documents have the same keys at the same places
	// (values aside; arrays by their elements' keys). With -lines they are JSON lines, compared
	// event type by event type (the "type" field). Differences are listed.
	scriptCmds["jsonkeys"] = func(ts *testscript.TestScript, neg bool, args []string) {
		lines := len(args) > 0 && args[0] == "-lines"
		if lines {
			args = args[1:]
		}
		if len(args) != 2 {
			ts.Fatalf("usage: jsonkeys [-lines] A B")
		}
		a, b := keyPaths(ts, ts.ReadFile(args[0]), lines), keyPaths(ts, ts.ReadFile(args[1]), lines)
		var diff []string
		for k := range a {
			if !b[k] {
				diff = append(diff, "only in "+args[0]+": "+k)
			}
		}
		for k := range b {
			if !a[k] {
				diff = append(diff, "only in "+args[1]+": "+k)
			}
		}
		sort.Strings(diff)
		if len(diff) > 0 && !neg {
			ts.Fatalf("the keys differ:\n%s", strings.Join(diff, "\n"))
		}
		if len(diff) == 0 && neg {
			ts.Fatalf("the keys are the same")
		}
	}
}

// keyPaths lists the key paths of a JSON document ("stats.tools.byName.read_file.count"),
// or of JSON lines, each prefixed by its "type".
func keyPaths(ts *testscript.TestScript, text string, lines bool) map[string]bool {
	out := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				out[prefix+k] = true
				walk(prefix+k+".", e)
			}
		case []any:
			for _, e := range x {
				walk(prefix+"[].", e)
			}
		}
	}
	docs := []string{text}
	if lines {
		docs = strings.Split(strings.TrimSpace(text), "\n")
	}
	for _, d := range docs {
		if strings.TrimSpace(d) == "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(d), &v); err != nil {
			ts.Fatalf("not JSON: %v\n%s", err, d)
		}
		prefix := ""
		if m, ok := v.(map[string]any); ok && lines {
			prefix = fmt.Sprint(m["type"]) + ":"
		}
		walk(prefix, v)
	}
	return out
}
