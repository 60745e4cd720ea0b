package agent

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gemhost/gem/host/telemetry"
	"github.com/gemhost/gem/internal/fakegemini"
)

// spans is a telemetry.Recorder that keeps every attribute it gets, by span kind.
type spans struct {
	mu    sync.Mutex
	attrs map[telemetry.Kind][]telemetry.Attr
}

type spanOf struct {
	r    *spans
	kind telemetry.Kind
}

func (r *spans) Start(_ telemetry.Handle, kind telemetry.Kind, _ time.Time, attrs []telemetry.Attr) telemetry.Handle {
	h := &spanOf{r, kind}
	h.Set(attrs)
	return h
}

func (h *spanOf) Set(attrs []telemetry.Attr) {
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	h.r.attrs[h.kind] = append(h.r.attrs[h.kind], attrs...)
}

func (h *spanOf) End(time.Time) {}

// TestTelemetryToolErrorTypeIsACategory: a plugin's error carries a type of its choosing (a
// real plugin process, told to fail with a file's content as its type, as a program kept off
// the network could); the tool call's span exports pluginsdk's types as they are and any other
// as "other", never the plugin's string.
func TestTelemetryToolErrorTypeIsACategory(t *testing.T) {
	for _, c := range []struct{ typ, want string }{{"hunter2-9c41e7 from ~/.netrc", "other"}, {"timeout", "timeout"}, {"", "execution"}} {
		w := newWorld(t, "", "")
		a, _ := w.agent(t, []fakegemini.Reply{chunks(call("fail", fmt.Sprintf(`{"type":%q}`, c.typ))), chunks(text("It failed."))})
		r := &spans{attrs: map[telemetry.Kind][]telemetry.Attr{}}
		telemetry.Install(r, telemetry.Config{})
		_, _, err := a.Turn(context.Background(), Sessions{Dir: t.TempDir()}.New("gemini-test"), "fail please")
		telemetry.Install(nil, telemetry.Config{})
		if err != nil {
			t.Fatal(err)
		}
		var got []any
		for _, at := range r.attrs[telemetry.KindToolCall] {
			if at.Key == telemetry.ErrorType {
				got = append(got, at.Value)
			}
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("a plugin's error of type %q: the span's %s is %v, want [%s]", c.typ, telemetry.ErrorType, got, c.want)
		}
	}
}
