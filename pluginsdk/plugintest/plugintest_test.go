package plugintest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/pluginsdk"
	"github.com/gemhost/gem/pluginsdk/plugintest"
)

type greetArgs struct {
	Name  string `json:"name" jsonschema:"who to greet"`
	Times int    `json:"times,omitempty"`
}

func testPlugin() pluginsdk.Plugin {
	return pluginsdk.Plugin{Name: "test", Tools: []pluginsdk.Tool{
		pluginsdk.NewTool("greet", "Greets", pluginsdk.KindRead, func(ctx context.Context, a greetArgs) (pluginsdk.Result, error) {
			return pluginsdk.Result{Text: strings.Repeat("Hello, "+a.Name+"!", max(a.Times, 1)), Structured: a}, nil
		}),
		pluginsdk.NewTool("delete", "Deletes after asking", pluginsdk.KindDelete, func(ctx context.Context, a struct {
			Path string `json:"path"`
		}) (pluginsdk.Result, error) {
			pluginsdk.Progress(ctx, "checking "+a.Path, -1)
			pluginsdk.Log(ctx, "info", "asked to delete "+a.Path)
			ok, err := pluginsdk.Confirm(ctx, "Delete "+a.Path+"?", "it cannot be undone")
			if err != nil {
				return pluginsdk.Result{}, err
			}
			if !ok {
				return pluginsdk.Result{}, &pluginsdk.ToolError{Type: "permission_denied", Message: "the user declined"}
			}
			return pluginsdk.Text("deleted " + a.Path), nil
		}),
		pluginsdk.NewTool("count", "Streams numbers", pluginsdk.KindOther, func(ctx context.Context, a struct {
			To int `json:"to"`
		}) (pluginsdk.Result, error) {
			for i := 1; i <= a.To; i++ {
				select {
				case <-ctx.Done():
					return pluginsdk.Result{}, ctx.Err()
				case <-time.After(time.Millisecond):
				}
				pluginsdk.Output(ctx, fmt.Sprint(i))
			}
			return pluginsdk.Text("counted"), nil
		}).Streaming(),
	}}
}

// TestInProcess: schema derivation, validation before the handler, structured results,
// streaming, host services and cancellation, all over a real in-process gRPC connection.
func TestInProcess(t *testing.T) {
	c := plugintest.InProcess(t, testPlugin())
	if len(c.Tools) != 3 || !strings.Contains(string(c.Tools[0].InputSchema), `"required":["name"]`) || !c.Tools[2].Streams {
		t.Fatalf("tools: %v", c.Tools)
	}
	tests := []struct {
		tool, args       string
		text, structured string
		errType          pluginsdk.ErrorType
	}{
		{"greet", `{"name":"gem","times":2}`, "Hello, gem!Hello, gem!", `{"name":"gem","times":2}`, ""},
		{"greet", `{}`, "", "", "invalid_arguments"},
		{"greet", `{"name":1}`, "", "", "invalid_arguments"},
		{"greet", `{"name":"x","extra":true}`, "", "", "invalid_arguments"},
		{"nosuch", `{}`, "", "", "not_found"},
		{"delete", `{"path":"a.txt"}`, "", "", "permission_denied"},
	}
	for _, tt := range tests {
		r := c.Call(t, tt.tool, tt.args)
		if r.Text != tt.text || r.Structured != tt.structured || (r.Error == nil) != (tt.errType == "") || (r.Error != nil && r.Error.Type != tt.errType) {
			t.Errorf("%s %s: %+v", tt.tool, tt.args, r)
		}
	}
	if got := strings.Join(c.Host.Asked, "|"); got != "Delete a.txt?: it cannot be undone" {
		t.Errorf("asked: %q", got)
	}
	if strings.Join(c.Host.Reported, "|") != "checking a.txt" || strings.Join(c.Host.Logs, "|") != "info: asked to delete a.txt" {
		t.Errorf("progress %q logs %q", c.Host.Reported, c.Host.Logs)
	}
	c.Host.Approve = true
	if r := c.Call(t, "delete", `{"path":"b"}`); r.Text != "deleted b" {
		t.Errorf("approved: %+v", r)
	}
	if r := c.Call(t, "count", `{"to":3}`); r.Text != "counted" || strings.Join(r.Updates, ",") != "1,2,3" {
		t.Errorf("streaming: %+v", r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.CallContext(ctx, "count", `{"to":100000}`); !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(fmt.Sprint(err), "DeadlineExceeded") {
		t.Errorf("cancelled call: %v", err)
	}
}

// TestSubprocess builds a real plugin binary from source and drives it as gem does.
func TestSubprocess(t *testing.T) {
	dir := t.TempDir()
	root, _ := filepath.Abs("..")
	src := `package main

import (
	"context"

	"github.com/gemhost/gem/pluginsdk"
)

func main() {
	pluginsdk.Serve(pluginsdk.Plugin{Name: "sub", Tools: []pluginsdk.Tool{
		pluginsdk.NewTool("pid", "Says hello", pluginsdk.KindRead, func(ctx context.Context, a struct{}) (pluginsdk.Result, error) {
			ok, err := pluginsdk.Confirm(ctx, "ok?", "")
			if err != nil {
				return pluginsdk.Result{}, err
			}
			if ok {
				return pluginsdk.Text("approved"), nil
			}
			return pluginsdk.Text("declined"), nil
		}),
	}})
}
`
	gomod := "module example.com/sub\n\ngo 1.26.0\n\nrequire github.com/gemhost/gem/pluginsdk v0.0.0\n\nreplace github.com/gemhost/gem/pluginsdk => " + root + "\n"
	for name, data := range map[string]string{"main.go": src, "go.mod": gomod} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
	os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
	t.Setenv("GOFLAGS", "-mod=mod")
	p := plugintest.Start(t, plugintest.Build(t, dir))
	if p.Pid == 0 || len(p.Tools) != 1 {
		t.Fatalf("pid %d tools %v", p.Pid, p.Tools)
	}
	if r := p.Call(t, "pid", `{}`); r.Text != "declined" {
		t.Fatalf("declined: %+v", r)
	}
	p.Host.Approve = true
	if r := p.Call(t, "pid", `{}`); r.Text != "approved" {
		t.Fatalf("approved: %+v", r)
	}
}

// TestTypedToolAndLogger: a tool with a typed result declares its output schema and answers with
// structured output whose JSON is the text; its typed error reaches the host with its type;
// Logger's records reach the host's log with their attributes.
func TestTypedToolAndLogger(t *testing.T) {
	type in struct {
		Word string `json:"word"`
	}
	type out struct {
		Word   string `json:"word"`
		Length int    `json:"length"`
	}
	measure := pluginsdk.NewTool("measure", "Measures a word", pluginsdk.KindRead, func(ctx context.Context, a in) (out, error) {
		pluginsdk.Logger(ctx).With("tool", "measure").Info("measuring", "word", a.Word)
		if a.Word == "" {
			return out{}, pluginsdk.Errorf(pluginsdk.InvalidArguments, "an empty word")
		}
		return out{a.Word, len(a.Word)}, nil
	})
	c := plugintest.InProcess(t, pluginsdk.Plugin{Name: "typed", Tools: []pluginsdk.Tool{measure}})
	if len(c.Tools) != 1 || !strings.Contains(string(c.Tools[0].OutputSchema), `"length"`) {
		t.Fatalf("tools: %v", c.Tools)
	}
	res := c.Call(t, "measure", `{"word":"gem"}`)
	if res.Error != nil || res.Text != `{"word":"gem","length":3}` || res.Structured != res.Text {
		t.Fatalf("result: %+v", res)
	}
	if got := strings.Join(c.Host.Logs, "\n"); !strings.Contains(got, "info: measuring tool=measure word=gem") {
		t.Errorf("logs: %q", got)
	}
	if res := c.Call(t, "measure", `{"word":""}`); res.Error == nil || res.Error.Type != "invalid_arguments" || res.Error.Message != "an empty word" {
		t.Errorf("typed error: %+v", res)
	}
}
