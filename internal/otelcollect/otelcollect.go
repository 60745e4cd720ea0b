// Package otelcollect is test support: the OpenTelemetry Collector's own OTLP receiver
// (go.opentelemetry.io/collector/receiver/otlpreceiver) on 127.0.0.1, gRPC and HTTP, writing
// what it receives to a file as JSON lines — one line per span and per metric data point,
// with the resource's and the span's attributes — for tests to read.
package otelcollect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
)

// Line is one received span or metric data point.
type Line struct {
	Signal     string         `json:"signal"` // span, metric
	Name       string         `json:"name"`
	Parent     bool           `json:"parent,omitempty"` // a span with a parent
	Attributes map[string]any `json:"attributes,omitempty"`
	Resource   map[string]any `json:"resource,omitempty"`
	Value      float64        `json:"value,omitempty"` // a sum's value, a histogram's count
}

// Collector is a running receiver.
type Collector struct {
	GRPC, HTTP string // host:port of each protocol
	traces     receiver.Traces
	metrics    receiver.Metrics

	mu   sync.Mutex
	path string
}

// Start starts the receiver, appending what it gets to path (made when something comes).
func Start(path string) (*Collector, error) {
	c := &Collector{path: path}
	var err error
	if c.GRPC, err = freeAddr(); err != nil {
		return nil, err
	}
	if c.HTTP, err = freeAddr(); err != nil {
		return nil, err
	}
	factory := otlpreceiver.NewFactory()
	cfg := factory.CreateDefaultConfig().(*otlpreceiver.Config)
	cfg.Protocols.GRPC.GetOrInsertDefault().NetAddr.Endpoint = c.GRPC
	cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = c.HTTP

	tc, err := consumer.NewTraces(c.consumeTraces)
	if err != nil {
		return nil, err
	}
	mc, err := consumer.NewMetrics(c.consumeMetrics)
	if err != nil {
		return nil, err
	}
	set := receivertest.NewNopSettings(factory.Type())
	ctx := context.Background()
	if c.traces, err = factory.CreateTraces(ctx, set, cfg, tc); err != nil {
		return nil, err
	}
	if c.metrics, err = factory.CreateMetrics(ctx, set, cfg, mc); err != nil {
		return nil, err
	}
	// One receiver serves both signals (the factory shares it by config): started once.
	if err := c.traces.Start(ctx, componenttest.NewNopHost()); err != nil {
		return nil, fmt.Errorf("otlp receiver: %w", err)
	}
	return c, nil
}

// freeAddr is a free port on 127.0.0.1 (the receiver takes an address, not a listener).
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Close stops the receiver.
func (c *Collector) Close() error {
	err := c.traces.Shutdown(context.Background())
	c.metrics.Shutdown(context.Background())
	return err
}

func (c *Collector) write(l Line) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out, err := os.OpenFile(c.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = out.Write(append(data, '\n'))
	return errors.Join(err, out.Close())
}

func (c *Collector) consumeTraces(_ context.Context, td ptrace.Traces) error {
	for _, rs := range td.ResourceSpans().All() {
		res := rs.Resource().Attributes().AsRaw()
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				if err := c.write(Line{Signal: "span", Name: s.Name(), Parent: !s.ParentSpanID().IsEmpty(), Attributes: s.Attributes().AsRaw(), Resource: res}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (c *Collector) consumeMetrics(_ context.Context, md pmetric.Metrics) error {
	for _, rm := range md.ResourceMetrics().All() {
		res := rm.Resource().Attributes().AsRaw()
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				for _, p := range points(m) {
					if err := c.write(Line{Signal: "metric", Name: m.Name(), Attributes: p.attrs.AsRaw(), Resource: res, Value: p.value}); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

type point struct {
	attrs pcommon.Map
	value float64
}

// points are m's data points: a sum's values, a histogram's counts.
func points(m pmetric.Metric) []point {
	var out []point
	switch m.Type() {
	case pmetric.MetricTypeSum:
		for _, p := range m.Sum().DataPoints().All() {
			v := p.DoubleValue()
			if p.ValueType() == pmetric.NumberDataPointValueTypeInt {
				v = float64(p.IntValue())
			}
			out = append(out, point{p.Attributes(), v})
		}
	case pmetric.MetricTypeHistogram:
		for _, p := range m.Histogram().DataPoints().All() {
			out = append(out, point{p.Attributes(), float64(p.Count())})
		}
	case pmetric.MetricTypeGauge:
		for _, p := range m.Gauge().DataPoints().All() {
			out = append(out, point{p.Attributes(), p.DoubleValue()})
		}
	}
	return out
}
