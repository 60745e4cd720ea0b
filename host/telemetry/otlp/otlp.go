// Package otlp exports host/telemetry's spans, and the metrics made from them, over OTLP
// with the OpenTelemetry Go SDK, as the settings' telemetry key says (Gemini CLI's keys:
// registry/settings.Telemetry). Only the CLI links it: a program built on gem's SDK records
// nothing unless it installs a recorder itself.
//
// Choices where Gemini CLI's are not gem's: telemetry.target "local" only — "gcp" (Gemini
// CLI's direct export to Google Cloud) is refused with an error naming the key, and the
// answer is a collector that forwards there; telemetry.outfile, useCollector, useCliAuth and
// traces are not read; no logs are exported (spans and metrics only); logPrompts is off by
// default. The endpoint and protocol follow Gemini CLI: default grpc to
// http://localhost:4317; http posts to <endpoint>/v1/traces and /v1/metrics; grpc takes the
// endpoint's origin. Export never retries and every export and the final flush have short
// deadlines (ExportTimeout, FlushTimeout), so a dead collector costs gem at most one warning
// and a bounded wait at exit.
package otlp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/gemhost/gem/host/telemetry"
	"github.com/gemhost/gem/registry/settings"
)

// Defaults, as Gemini CLI's.
const (
	DefaultEndpoint = "http://localhost:4317"
	DefaultProtocol = "grpc"
)

// ExportTimeout bounds one export; FlushTimeout the flush at exit.
const (
	ExportTimeout = 2 * time.Second
	FlushTimeout  = 2 * time.Second
)

// SettingError is a telemetry setting gem cannot follow.
type SettingError struct {
	Key, Value, Origin string
	Valid              string // the values it takes
	Reason             string
}

func (e *SettingError) Error() string {
	from := ""
	if e.Origin != "" {
		from = " (" + e.Origin + ")"
	}
	msg := fmt.Sprintf("%s %q%s: %s", e.Key, e.Value, from, e.Reason)
	if e.Valid != "" {
		msg += "; use " + e.Valid
	}
	return msg
}

// Target is where spans and metrics go, checked.
type Target struct {
	Protocol   string // grpc or http
	Endpoint   string // as given (or the default)
	LogPrompts bool
}

// Check checks t (telemetry on) against what gem can do; origin names where each key came
// from (settings.Settings.Origin).
func Check(t settings.Telemetry, origin map[string]string) (Target, error) {
	switch t.Target {
	case "", "local":
	case "gcp":
		return Target{}, &SettingError{Key: "telemetry.target", Value: t.Target, Origin: origin["telemetry.target"], Valid: `"local"`,
			Reason: "gem does not export to Google Cloud directly; export to a local OpenTelemetry Collector (telemetry.otlpEndpoint) that forwards there"}
	default:
		return Target{}, &SettingError{Key: "telemetry.target", Value: t.Target, Origin: origin["telemetry.target"], Valid: `"local"`, Reason: "not a telemetry target"}
	}
	out := Target{Protocol: t.Protocol, Endpoint: strings.Trim(t.Endpoint, `"'`), LogPrompts: t.LogPrompts}
	if out.Protocol == "" {
		out.Protocol = DefaultProtocol
	}
	if out.Protocol != "grpc" && out.Protocol != "http" {
		return Target{}, &SettingError{Key: "telemetry.otlpProtocol", Value: t.Protocol, Origin: origin["telemetry.otlpProtocol"], Valid: `"grpc" or "http"`, Reason: "not an OTLP protocol"}
	}
	if out.Endpoint == "" {
		out.Endpoint = DefaultEndpoint
	}
	u, err := url.Parse(out.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Target{}, &SettingError{Key: "telemetry.otlpEndpoint", Value: redacted(out.Endpoint), Origin: origin["telemetry.otlpEndpoint"], Valid: "an http:// or https:// URL such as " + DefaultEndpoint, Reason: "not a URL"}
	}
	return out, nil
}

// Exporter is telemetry being exported; Shutdown flushes and ends it.
type Exporter struct {
	traces  *sdktrace.TracerProvider
	metrics *sdkmetric.MeterProvider
	rec     *recorder
	target  Target

	mu    sync.Mutex
	first error // the first export error, said once at Shutdown
}

// Start starts exporting to target and installs the recorder (telemetry.Install); version is
// gem's, the service.version of what it sends; no exported string holds one of redact
// (telemetry.Config.Redact: the environment's secrets).
func Start(ctx context.Context, target Target, version string, redact ...string) (*Exporter, error) {
	spans, metrics, err := exporters(ctx, target)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "gem"), attribute.String("service.version", version))
	e := &Exporter{target: target}
	// The SDK's errors (a dead collector) are kept, not printed: Shutdown says the first.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(e.keep))
	e.traces = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(spans, sdktrace.WithExportTimeout(ExportTimeout)))
	e.metrics = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics, sdkmetric.WithInterval(10*time.Second), sdkmetric.WithTimeout(ExportTimeout))))
	e.rec, err = newRecorder(e.traces.Tracer("gem"), e.metrics.Meter("gem"))
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	e.rec.sessions.Add(ctx, 1)
	telemetry.Install(e.rec, telemetry.Config{LogPrompts: target.LogPrompts, Redact: redact})
	return e, nil
}

func (e *Exporter) keep(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.first == nil {
		e.first = err
	}
}

// Shutdown uninstalls the recorder and flushes what is left, within FlushTimeout; the error
// says why something could not be sent (the first reason only).
func (e *Exporter) Shutdown() error {
	if e == nil {
		return nil
	}
	telemetry.Install(nil, telemetry.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), FlushTimeout)
	defer cancel()
	err := errors.Join(e.traces.Shutdown(ctx), e.metrics.Shutdown(ctx))
	e.mu.Lock()
	if e.first != nil {
		err = e.first
	}
	e.mu.Unlock()
	if err != nil {
		return fmt.Errorf("telemetry: could not export to %s (%s): %w", redacted(e.target.Endpoint), e.target.Protocol, err)
	}
	return nil
}

// redacted is endpoint for a message: a password in it (http://user:token@host) as xxxxx.
func redacted(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.User != nil {
		return u.Redacted()
	}
	// Not a URL Go reads as one with a user ("http://u:p@[::1", "u:p@host:4317"): what
	// comes before the last @ of the part before the path is hidden.
	prefix, rest := "", endpoint
	if i := strings.Index(endpoint, "://"); i >= 0 {
		prefix, rest = endpoint[:i+3], endpoint[i+3:]
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		return prefix + "xxxxx" + rest[at:]
	}
	return endpoint
}

// exporters makes the span and metric exporters of target: no retry (a dead collector must
// not hold gem), a short timeout.
func exporters(ctx context.Context, t Target) (sdktrace.SpanExporter, sdkmetric.Exporter, error) {
	if t.Protocol == "http" {
		base := strings.TrimSuffix(t.Endpoint, "/")
		spans, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(base+"/v1/traces"),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}), otlptracehttp.WithTimeout(ExportTimeout))
		if err != nil {
			return nil, nil, err
		}
		metrics, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(base+"/v1/metrics"),
			otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}), otlpmetrichttp.WithTimeout(ExportTimeout))
		return spans, metrics, err
	}
	u, _ := url.Parse(t.Endpoint)
	origin := u.Scheme + "://" + u.Host
	spans, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(origin),
		otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}), otlptracegrpc.WithTimeout(ExportTimeout))
	if err != nil {
		return nil, nil, err
	}
	metrics, err := otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(origin),
		otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: false}), otlpmetricgrpc.WithTimeout(ExportTimeout))
	return spans, metrics, err
}
