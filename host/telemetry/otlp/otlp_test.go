package otlp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/host/telemetry"
	"github.com/gemhost/gem/internal/otelcollect"
	"github.com/gemhost/gem/registry/settings"
)

const secret = "s3cr3t-7f1c9a"

// record records what the agent and the launcher would: a turn with a tool call under it,
// an API request and a launch, each also offered attributes that must not pass.
func record() {
	ctx, turn := telemetry.Start(context.Background(), telemetry.KindTurn, telemetry.Attr{Key: telemetry.Model, Value: "gemini-test"},
		telemetry.Attr{Key: telemetry.Prompt, Value: "my key is " + secret}, telemetry.Attr{Key: "gem.args", Value: secret})
	rctx, req := telemetry.Start(ctx, telemetry.KindAPIRequest, telemetry.Attr{Key: telemetry.Model, Value: "gemini-test"})
	req.End(telemetry.Attr{Key: telemetry.InputTokens, Value: 12}, telemetry.Attr{Key: telemetry.Status, Value: "ok"})
	_ = rctx
	cctx, call := telemetry.Start(ctx, telemetry.KindToolCall, telemetry.Attr{Key: telemetry.ToolName, Value: "read_file"})
	telemetry.SetIn(cctx, telemetry.KindToolCall, telemetry.Attr{Key: telemetry.Decision, Value: "approved"}, telemetry.Attr{Key: "result", Value: secret})
	call.End(telemetry.Attr{Key: telemetry.Success, Value: true})
	_, launch := telemetry.Start(context.Background(), telemetry.KindLaunch, telemetry.Attr{Key: telemetry.Program, Value: "sh"}, telemetry.Attr{Key: "env", Value: []string{"TOKEN=" + secret}})
	launch.End()
	turn.End(telemetry.Attr{Key: telemetry.Outcome, Value: "ok"})
}

func readLines(t *testing.T, path string) (lines []otelcollect.Line, raw string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		var l otelcollect.Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	return lines, string(data)
}

// TestExportToCollector: spans and metrics reach the OpenTelemetry Collector's OTLP receiver
// over http and grpc, with their allowed attributes, and nothing the allowlist drops (the
// secret in a prompt, arguments, results, the environment) nor the prompt without logPrompts.
func TestExportToCollector(t *testing.T) {
	for _, protocol := range []string{"http", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "otel.jsonl")
			c, err := otelcollect.Start(path)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			addr := map[string]string{"http": c.HTTP, "grpc": c.GRPC}[protocol]
			target, err := Check(settings.Telemetry{Enabled: true, Endpoint: "http://" + addr, Protocol: protocol}, nil)
			if err != nil {
				t.Fatal(err)
			}
			e, err := Start(context.Background(), target, "test")
			if err != nil {
				t.Fatal(err)
			}
			record()
			if err := e.Shutdown(); err != nil {
				t.Fatal(err)
			}
			lines, raw := readLines(t, path)
			if strings.Contains(raw, secret) {
				t.Errorf("the collector received the secret:\n%s", raw)
			}
			want := map[string]bool{"span gem.turn": false, "span gem.tool_call": false, "span gem.api_request": false, "span gem.sandbox.launch": false,
				"metric gem.turn.count": false, "metric gem.tool.call.count": false, "metric gem.tool.call.latency": false, "metric gem.api.request.count": false,
				"metric gem.token.usage": false, "metric gem.session.count": false, "metric gem.sandbox.launch.count": false}
			for _, l := range lines {
				want[l.Signal+" "+l.Name] = true
				if l.Name == "gem.tool_call" && (l.Attributes[telemetry.Decision] != "approved" || l.Attributes[telemetry.Success] != true || !l.Parent) {
					t.Errorf("tool call span: %+v", l)
				}
				if l.Resource["service.name"] != "gem" {
					t.Errorf("resource: %+v", l.Resource)
				}
			}
			for k, seen := range want {
				if !seen {
					t.Errorf("%s not received:\n%s", k, raw)
				}
			}
		})
	}
}

// TestLogPrompts: with telemetry.logPrompts the turn carries the prompt's text.
func TestLogPrompts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "otel.jsonl")
	c, err := otelcollect.Start(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e, err := Start(context.Background(), Target{Protocol: "http", Endpoint: "http://" + c.HTTP, LogPrompts: true}, "test")
	if err != nil {
		t.Fatal(err)
	}
	record()
	if err := e.Shutdown(); err != nil {
		t.Fatal(err)
	}
	lines, raw := readLines(t, path)
	found := false
	for _, l := range lines {
		if l.Name == "gem.turn" {
			found = l.Attributes[telemetry.Prompt] == "my key is "+secret
			if _, ok := l.Attributes["gem.args"]; ok {
				t.Errorf("gem.args exported: %+v", l)
			}
		}
	}
	if !found {
		t.Errorf("no turn with the prompt:\n%s", raw)
	}
}

// TestDeadCollector: a collector that is not there costs a bounded wait at Shutdown and one
// error naming the endpoint.
func TestDeadCollector(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	for _, protocol := range []string{"http", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			e, err := Start(context.Background(), Target{Protocol: protocol, Endpoint: "http://" + addr}, "test")
			if err != nil {
				t.Fatal(err)
			}
			record()
			t0 := time.Now()
			err = e.Shutdown()
			if d := time.Since(t0); d > FlushTimeout+time.Second {
				t.Errorf("Shutdown took %v", d)
			}
			if err == nil || !strings.Contains(err.Error(), addr) {
				t.Errorf("Shutdown: %v, want an error naming %s", err, addr)
			}
		})
	}
}

// TestSilentCollector: a collector that takes the connection and never answers holds
// Shutdown no longer than FlushTimeout.
func TestSilentCollector(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // kept open, never read or answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	for _, protocol := range []string{"http", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			e, err := Start(context.Background(), Target{Protocol: protocol, Endpoint: "http://" + ln.Addr().String()}, "test")
			if err != nil {
				t.Fatal(err)
			}
			record()
			t0 := time.Now()
			err = e.Shutdown()
			if d := time.Since(t0); d > FlushTimeout+time.Second {
				t.Errorf("Shutdown took %v", d)
			}
			if err == nil {
				t.Error("Shutdown: no error from a collector that never answered")
			}
		})
	}
}

// TestCheck: the settings gem can follow, and the errors naming the key and value of those
// it cannot.
func TestCheck(t *testing.T) {
	cases := []struct {
		in      settings.Telemetry
		want    Target
		errKey  string
		errText string
	}{
		{settings.Telemetry{Enabled: true}, Target{Protocol: "grpc", Endpoint: DefaultEndpoint}, "", ""},
		{settings.Telemetry{Enabled: true, Target: "local", Protocol: "http", Endpoint: `"http://127.0.0.1:4318"`, LogPrompts: true}, Target{Protocol: "http", Endpoint: "http://127.0.0.1:4318", LogPrompts: true}, "", ""},
		{settings.Telemetry{Enabled: true, Target: "gcp"}, Target{}, "telemetry.target", `telemetry.target "gcp" (/etc/s.json): gem does not export to Google Cloud directly`},
		{settings.Telemetry{Enabled: true, Target: "cloud"}, Target{}, "telemetry.target", `not a telemetry target; use "local"`},
		{settings.Telemetry{Enabled: true, Protocol: "udp"}, Target{}, "telemetry.otlpProtocol", `telemetry.otlpProtocol "udp"`},
		{settings.Telemetry{Enabled: true, Endpoint: "localhost:4317"}, Target{}, "telemetry.otlpEndpoint", "not a URL"},
	}
	for _, c := range cases {
		got, err := Check(c.in, map[string]string{"telemetry.target": "/etc/s.json"})
		var se *SettingError
		switch {
		case c.errKey == "" && (err != nil || got != c.want):
			t.Errorf("Check(%+v) = %+v, %v; want %+v", c.in, got, err, c.want)
		case c.errKey != "" && (!errors.As(err, &se) || se.Key != c.errKey || !strings.Contains(err.Error(), c.errText)):
			t.Errorf("Check(%+v): %v; want a %s error saying %q", c.in, err, c.errKey, c.errText)
		}
	}
}

// TestCheckKeepsTheEndpointsPassword: an endpoint gem refuses (not http(s), or not a URL at
// all) is named in the error without the password it holds.
func TestCheckKeepsTheEndpointsPassword(t *testing.T) {
	for _, endpoint := range []string{"ftp://gem:tok3n-9c41e7@127.0.0.1:4317", "http://gem:tok3n-9c41e7@[::1", "gem:tok3n-9c41e7@127.0.0.1:4317"} {
		_, err := Check(settings.Telemetry{Enabled: true, Endpoint: endpoint}, nil)
		if err == nil || strings.Contains(err.Error(), "tok3n-9c41e7") || !strings.Contains(err.Error(), "telemetry.otlpEndpoint") {
			t.Errorf("Check(%q): %v; want a telemetry.otlpEndpoint error without the password", endpoint, err)
		}
	}
}

// TestDeadCollectorKeepsTheEndpointsPassword: an endpoint with a password in it
// (http://user:token@host) is named without it in the error the CLI prints.
func TestDeadCollectorKeepsTheEndpointsPassword(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	for _, protocol := range []string{"http", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			e, err := Start(context.Background(), Target{Protocol: protocol, Endpoint: "http://gem:tok3n-9c41e7@" + addr}, "test")
			if err != nil {
				t.Fatal(err)
			}
			record()
			err = e.Shutdown()
			if err == nil || strings.Contains(err.Error(), "tok3n-9c41e7") || !strings.Contains(err.Error(), addr) {
				t.Errorf("Shutdown: %v, want an error naming %s without the password", err, addr)
			}
		})
	}
}
