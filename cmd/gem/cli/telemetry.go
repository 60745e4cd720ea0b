package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/host/telemetry/otlp"
	"github.com/gemhost/gem/internal/buildinfo"
)

// startTelemetry starts exporting the model side's spans and metrics when the settings'
// telemetry.enabled is on (docs/telemetry.md); nil when it is off, where nothing is made.
func startTelemetry(ctx context.Context, s *session) (*otlp.Exporter, error) {
	st := s.settings()
	if !st.Telemetry.Enabled {
		return nil, nil
	}
	target, err := otlp.Check(st.Telemetry, st.Origin)
	if err != nil {
		return nil, err
	}
	return otlp.Start(ctx, target, buildinfo.Version, environmentSecrets(s.environ)...)
}

// notSecret are variables outside the sandbox's allowlist whose value gem exports as the
// setting it is (GEMINI_MODEL: the model's name).
var notSecret = []string{"GEMINI_MODEL"}

// environmentSecrets are the values no exported attribute may hold: those of the variables a
// sandboxed program does not inherit either (sandbox.Allowed: keys, tokens, and anything
// else not known to be harmless), 8 characters or more, but notSecret's. A trusted project's
// settings can name one where gem exports it ("model": {"name": "gemini-${GITHUB_TOKEN}"}).
func environmentSecrets(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if len(value) >= 8 && !sandbox.Allowed(name) && !slices.Contains(notSecret, name) {
			out = append(out, value)
		}
	}
	return out
}

// stopTelemetry flushes what is left (within otlp.FlushTimeout: a dead collector does not
// hold gem) and says, once, why it could not be sent.
func stopTelemetry(s *session, e *otlp.Exporter) {
	if err := e.Shutdown(); err != nil {
		s.warn("%v", err)
	}
}
