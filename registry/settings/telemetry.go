package settings

import "fmt"

// Telemetry is the telemetry key of the settings (Gemini CLI's telemetry.enabled, .target,
// .otlpEndpoint, .otlpProtocol, .logPrompts), with the environment's overrides applied:
// GEMINI_TELEMETRY_ENABLED, GEMINI_TELEMETRY_TARGET, GEMINI_TELEMETRY_OTLP_ENDPOINT (else
// OTEL_EXPORTER_OTLP_ENDPOINT), GEMINI_TELEMETRY_OTLP_PROTOCOL and
// GEMINI_TELEMETRY_LOG_PROMPTS, as Gemini CLI's resolveTelemetrySettings layers them (a
// boolean variable is true when it is "true" or "1", false for any other value). Values are
// kept as written: host/telemetry checks them when telemetry is on (an unknown target or
// protocol is an error there, as in Gemini CLI). A project's settings file cannot set
// otlpEndpoint or logPrompts (they say where, and how much, gem sends about the user's
// sessions): a warning says so.
type Telemetry struct {
	Enabled    bool   `json:"enabled,omitempty"`
	Target     string `json:"target,omitempty"`
	Endpoint   string `json:"otlpEndpoint,omitempty"`
	Protocol   string `json:"otlpProtocol,omitempty"`
	LogPrompts bool   `json:"logPrompts,omitempty"`
}

// telemetryKey is what a settings file holds under telemetry.
type telemetryKey struct {
	Enabled      *bool   `json:"enabled"`
	Target       *string `json:"target"`
	OTLPEndpoint *string `json:"otlpEndpoint"`
	OTLPProtocol *string `json:"otlpProtocol"`
	LogPrompts   *bool   `json:"logPrompts"`
}

// telemetryFields are the telemetry keys: their setting name, where a file holds them and
// where Settings keeps them, and whether a project's file may set them.
var telemetryFields = []struct {
	key       string
	str       func(f *telemetryKey) *string
	flag      func(f *telemetryKey) *bool
	toStr     func(t *Telemetry) *string
	toFlag    func(t *Telemetry) *bool
	workspace bool
}{
	{"telemetry.enabled", nil, func(f *telemetryKey) *bool { return f.Enabled }, nil, func(t *Telemetry) *bool { return &t.Enabled }, true},
	{"telemetry.target", func(f *telemetryKey) *string { return f.Target }, nil, func(t *Telemetry) *string { return &t.Target }, nil, true},
	{"telemetry.otlpEndpoint", func(f *telemetryKey) *string { return f.OTLPEndpoint }, nil, func(t *Telemetry) *string { return &t.Endpoint }, nil, false},
	{"telemetry.otlpProtocol", func(f *telemetryKey) *string { return f.OTLPProtocol }, nil, func(t *Telemetry) *string { return &t.Protocol }, nil, true},
	{"telemetry.logPrompts", nil, func(f *telemetryKey) *bool { return f.LogPrompts }, nil, func(t *Telemetry) *bool { return &t.LogPrompts }, false},
}

// mergeTelemetry applies the telemetry keys of one file.
func (s *Settings) mergeTelemetry(from File, f *telemetryKey) {
	for _, k := range telemetryFields {
		set := (k.str != nil && k.str(f) != nil) || (k.flag != nil && k.flag(f) != nil)
		if !set {
			continue
		}
		if from.Scope == "workspace" && !k.workspace {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s is ignored in a project's settings (it says where and how much gem exports about your sessions): set it in your own or the system settings", from.Path, k.key))
			continue
		}
		if k.str != nil {
			*k.toStr(&s.Telemetry) = *k.str(f)
		} else {
			*k.toFlag(&s.Telemetry) = *k.flag(f)
		}
		s.Origin[k.key] = from.Path
	}
}

// telemetryEnv are Gemini CLI's telemetry variables, in the order they are applied (a later
// one for the same key wins: GEMINI_TELEMETRY_OTLP_ENDPOINT over OTEL_EXPORTER_OTLP_ENDPOINT).
var telemetryEnv = []struct {
	Var, Key string
	set      func(t *Telemetry, v string)
}{
	{"GEMINI_TELEMETRY_ENABLED", "telemetry.enabled", func(t *Telemetry, v string) { t.Enabled = envFlag(v) }},
	{"GEMINI_TELEMETRY_TARGET", "telemetry.target", func(t *Telemetry, v string) { t.Target = v }},
	{"OTEL_EXPORTER_OTLP_ENDPOINT", "telemetry.otlpEndpoint", func(t *Telemetry, v string) { t.Endpoint = v }},
	{"GEMINI_TELEMETRY_OTLP_ENDPOINT", "telemetry.otlpEndpoint", func(t *Telemetry, v string) { t.Endpoint = v }},
	{"GEMINI_TELEMETRY_OTLP_PROTOCOL", "telemetry.otlpProtocol", func(t *Telemetry, v string) { t.Protocol = v }},
	{"GEMINI_TELEMETRY_LOG_PROMPTS", "telemetry.logPrompts", func(t *Telemetry, v string) { t.LogPrompts = envFlag(v) }},
}

// envFlag is Gemini CLI's parseBooleanEnvFlag: "true" or "1" is true, anything else false.
func envFlag(v string) bool { return v == "true" || v == "1" }

// applyTelemetryEnv applies telemetryEnv; Origin names the variable as "$VAR".
func (s *Settings) applyTelemetryEnv(getenv func(string) string) {
	for _, o := range telemetryEnv {
		if v := getenv(o.Var); v != "" {
			o.set(&s.Telemetry, v)
			s.Origin[o.Key] = "$" + o.Var
		}
	}
}
