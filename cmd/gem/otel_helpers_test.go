package main

import (
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gemhost/gem/internal/otelcollect"
)

func init() {
	// otelcollect FILE: the OpenTelemetry Collector's own OTLP receiver on 127.0.0.1 until the
	// script ends, appending what it receives to FILE as JSON lines (internal/otelcollect: one
	// per span and per metric data point); $OTLP_HTTP and $OTLP_GRPC are its endpoints.
	scriptCmds["otelcollect"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: otelcollect file")
		}
		c, err := otelcollect.Start(ts.MkAbs(args[0]))
		ts.Check(err)
		ts.Defer(func() { c.Close() })
		ts.Setenv("OTLP_HTTP", "http://"+c.HTTP)
		ts.Setenv("OTLP_GRPC", "http://"+c.GRPC)
	}
}
