package otlp

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gemhost/gem/host/telemetry"
)

// docSection is the table rows (lines starting "| `") of docs/telemetry.md's section title.
func docSection(t *testing.T, title string) string {
	t.Helper()
	data, err := os.ReadFile("../../../docs/telemetry.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("docs/telemetry.md has no ## %s section", title)
	}
	rest, _, _ = strings.Cut(rest, "\n## ")
	var rows []string
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "| `") {
			rows = append(rows, line)
		}
	}
	return strings.Join(rows, "\n")
}

func quoted(names []string) string {
	var q []string
	for _, n := range names {
		q = append(q, "`"+n+"`")
	}
	return strings.Join(q, ", ")
}

// TestDocsListWhatIsExported keeps docs/telemetry.md's tables equal to the allowlist
// (telemetry.Allowed) and the metrics (Metrics): what the guide says may be exported is what
// can be.
func TestDocsListWhatIsExported(t *testing.T) {
	var spans []string
	for _, k := range []telemetry.Kind{telemetry.KindTurn, telemetry.KindAPIRequest, telemetry.KindToolCall, telemetry.KindLaunch} {
		spans = append(spans, fmt.Sprintf("| `%s` | %s |", k, quoted(telemetry.Allowed[k])))
	}
	if len(spans) != len(telemetry.Allowed) {
		t.Fatalf("telemetry.Allowed has %d kinds, the check lists %d", len(telemetry.Allowed), len(spans))
	}
	if got, want := docSection(t, "Spans"), strings.Join(spans, "\n"); got != want {
		t.Errorf("docs/telemetry.md's span table differs from telemetry.Allowed; it should read:\n%s", want)
	}
	var metrics []string
	for _, m := range Metrics {
		kind := "counter"
		if m.Latency {
			kind = "histogram"
		}
		gemini := "—"
		if m.GeminiCLI != "" {
			gemini = "`" + m.GeminiCLI + "`"
		}
		metrics = append(metrics, fmt.Sprintf("| `%s` | %s (%s) | %s | `%s` span; %s | %s |", m.Name, kind, m.Unit, m.Description, m.Kind, quoted(m.Attrs), gemini))
	}
	if got, want := docSection(t, "Metrics"), strings.Join(metrics, "\n"); !strings.HasSuffix(got, want) {
		t.Errorf("docs/telemetry.md's metric table does not end with Metrics; its last rows should read:\n%s", want)
	}
}
