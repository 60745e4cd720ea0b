package cli

import (
	"context"

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
	return otlp.Start(ctx, target, buildinfo.Version)
}

// stopTelemetry flushes what is left (within otlp.FlushTimeout: a dead collector does not
// hold gem) and says, once, why it could not be sent.
func stopTelemetry(s *session, e *otlp.Exporter) {
	if err := e.Shutdown(); err != nil {
		s.warn("%v", err)
	}
}
