package telemetry

import (
	"context"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// TestOffCostsNothing: with no recorder installed (telemetry off, the default) a span is nil,
// its methods do nothing, and recording allocates nothing and starts no goroutine.
func TestOffCostsNothing(t *testing.T) {
	Install(nil, Config{})
	goroutines := runtime.NumGoroutine()
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		c, span := Start(ctx, KindTurn)
		span.Set()
		SetIn(c, KindTurn)
		span.End()
		if c != ctx || span != nil || On() {
			t.Fatal("a span was made with telemetry off")
		}
	})
	if allocs != 0 {
		t.Errorf("recording with telemetry off allocates %v times per span", allocs)
	}
	if n := runtime.NumGoroutine(); n != goroutines {
		t.Errorf("goroutines: %d, then %d", goroutines, n)
	}
}

// TestFilter: only the attributes a kind allows pass, with a value of an exported type; the
// prompt's text only with LogPrompts; empty strings are dropped.
func TestFilter(t *testing.T) {
	cases := []struct {
		name string
		kind Kind
		cfg  Config
		in   []Attr
		want []Attr
	}{
		{"allowed ones only (gem.tool_calls is a turn's)", KindToolCall, Config{}, []Attr{{ToolName, "read_file"}, {Success, true}, {ToolCalls, 3}}, []Attr{{ToolName, "read_file"}, {Success, true}}},
		{"arguments and results never", KindToolCall, Config{}, []Attr{{"gem.args", `{"path": "secret"}`}, {"result", "secret"}}, nil},
		{"the prompt without logPrompts", KindTurn, Config{}, []Attr{{Prompt, "secret"}, {PromptLength, 6}}, []Attr{{PromptLength, int64(6)}}},
		{"the prompt with logPrompts", KindTurn, Config{LogPrompts: true}, []Attr{{Prompt, "hi"}}, []Attr{{Prompt, "hi"}}},
		{"no value holding a secret of the environment", KindTurn, Config{Redact: []string{"ghp_s3cret9c41"}}, []Attr{{Model, "gemini-ghp_s3cret9c41"}, {Outcome, "ok"}}, []Attr{{Outcome, "ok"}}},
		{"nor a list", KindLaunch, Config{Redact: []string{"ghp_s3cret9c41"}}, []Attr{{Mechanisms, []string{"Landlock", "x-ghp_s3cret9c41"}}, {Program, "sh"}}, []Attr{{Program, "sh"}}},
		{"a launch's mechanisms, not its environment", KindLaunch, Config{}, []Attr{{Mechanisms, []string{"Landlock files"}}, {"env", []string{"TOKEN=x"}}, {Extension, ""}}, []Attr{{Mechanisms, []string{"Landlock files"}}}},
		{"values of other types", KindTurn, Config{}, []Attr{{Model, struct{ S string }{"secret"}}, {Model, []byte("secret")}}, nil},
	}
	for _, c := range cases {
		if got := Filter(c.kind, c.cfg, c.in); !reflect.DeepEqual(got, c.want) && (len(got) != 0 || len(c.want) != 0) {
			t.Errorf("%s: Filter = %v, want %v", c.name, got, c.want)
		}
	}
}

// recorded is a Recorder that keeps what it gets.
type recorded struct{ spans []*span }

type span struct {
	parent *span
	kind   Kind
	attrs  []Attr
	ended  bool
}

func (r *recorded) Start(parent Handle, kind Kind, _ time.Time, attrs []Attr) Handle {
	s := &span{kind: kind, attrs: attrs}
	if p, ok := parent.(*span); ok {
		s.parent = p
	}
	r.spans = append(r.spans, s)
	return s
}
func (s *span) Set(attrs []Attr) { s.attrs = append(s.attrs, attrs...) }
func (s *span) End(time.Time)    { s.ended = true }

// TestSpansNest: a span started under another in ctx is its child; SetIn reaches the span of
// its kind only.
func TestSpansNest(t *testing.T) {
	r := &recorded{}
	Install(r, Config{})
	defer Install(nil, Config{})
	ctx, turn := Start(context.Background(), KindTurn)
	cctx, call := Start(ctx, KindToolCall, Attr{ToolName, "t"})
	SetIn(cctx, KindToolCall, Attr{Decision, "approved"})
	SetIn(cctx, KindTurn, Attr{Outcome, "ok"}) // not the span in cctx: ignored
	call.End()
	turn.End()
	if len(r.spans) != 2 || r.spans[1].parent != r.spans[0] || !r.spans[0].ended || !r.spans[1].ended {
		t.Fatalf("spans: %+v", r.spans)
	}
	if want := []Attr{{ToolName, "t"}, {Decision, "approved"}}; !reflect.DeepEqual(r.spans[1].attrs, want) {
		t.Errorf("call's attributes: %v, want %v", r.spans[1].attrs, want)
	}
	if len(r.spans[0].attrs) != 0 {
		t.Errorf("turn's attributes: %v", r.spans[0].attrs)
	}
}
