package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gemhost/gem/host/tools"
)

// batchLine is one call of gem tools call --batch.
type batchLine struct {
	ID   json.RawMessage `json:"id,omitempty"`
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args,omitempty"`
}

type batchOut struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Tool   string          `json:"tool"`
	Result *tools.Result   `json:"result,omitempty"`
	Error  *batchError     `json:"error,omitempty"`
}

type batchError struct {
	Type    string `json:"type"` // invalid_input, invalid_arguments, denied, call_failed
	Message string `json:"message"`
}

// toolsBatch is gem tools call --batch: one call a stdin line, one result a stdout line,
// in one session. A signal ends it between lines.
func toolsBatch(ctx context.Context, s *session, o toolsCallOptions) error {
	reg, err := s.openTools(ctx, s.cliServices(o.Yes), o.callFlags)
	if err != nil {
		return err
	}
	defer reg.Close()
	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		in := bufio.NewScanner(s.io.In)
		in.Buffer(make([]byte, 64<<10), 64<<20)
		for in.Scan() {
			select {
			case lines <- in.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr <- in.Err()
		close(lines)
	}()
	out := newJSONEncoder(s.stdout, true)
	failed, n := 0, 0
	for {
		var line string
		var ok bool
		select {
		case line, ok = <-lines:
		case <-ctx.Done():
			return ctx.Err()
		}
		if !ok {
			break
		}
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		n++
		o := batchCall(ctx, reg, n, line)
		if o.Error != nil || (o.Result != nil && o.Result.Error != nil) {
			failed++
		}
		if err := out.Encode(o); err != nil {
			return err
		}
	}
	if err := <-readErr; err != nil {
		return fmt.Errorf("reading calls from stdin: %w", err)
	}
	if failed > 0 {
		return exitError{code: 1, msg: fmt.Sprintf("%d of %d calls failed", failed, n)}
	}
	return nil
}

// batchCall runs line n of a batch.
func batchCall(ctx context.Context, reg *tools.Catalog, n int, line string) batchOut {
	var call batchLine
	if err := json.Unmarshal([]byte(line), &call); err != nil || call.Tool == "" {
		msg := fmt.Sprintf("line %d: want {\"tool\": name, \"args\": {...}}", n)
		if err != nil {
			msg += ": " + err.Error()
		}
		return batchOut{Error: &batchError{Type: "invalid_input", Message: msg}}
	}
	o := batchOut{ID: call.ID, Tool: call.Tool}
	res, err := reg.Call(ctx, call.Tool, call.Args, tools.CallOptions{})
	if err != nil {
		o.Error = &batchError{Type: batchErrorType(err), Message: err.Error()}
		return o
	}
	o.Result = res
	return o
}

// batchErrorType is the type field of a failed batch line.
func batchErrorType(err error) string {
	switch {
	case errors.Is(err, tools.ErrInvalidArguments):
		return "invalid_arguments"
	case errors.Is(err, tools.ErrDenied):
		return "denied"
	}
	return "call_failed"
}
