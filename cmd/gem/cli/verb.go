package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/plural"
)

// argRule is how many positional arguments a verb takes, and what they are, for the
// usage error.
type argRule struct {
	min, max int // max < 0: no limit
	what     string
}

func noArgs() argRule                    { return argRule{0, 0, "no arguments"} }
func exactly(n int, what string) argRule { return argRule{n, n, what} }

func (a argRule) check(c *cli.Context) error {
	n := c.NArg()
	if n >= a.min && (a.max < 0 || n <= a.max) {
		return nil
	}
	name := c.Command.HelpName // "gem ext list"
	if a.max == 0 {
		return usagef("%s takes no arguments (got %q)", name, c.Args().First())
	}
	return usagef("%s needs %s, got %s: %s %s", name, a.what, plural.Count(n, "argument"), name, c.Command.ArgsUsage)
}

// runCancellable runs fn with a context SIGINT and SIGTERM cancel; a run ended that way is
// exit 130.
func runCancellable(parent context.Context, fn func(ctx context.Context) error) error {
	if parent == nil {
		parent = context.Background()
	}
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // the next signal has its default effect
	}()
	err := fn(ctx)
	if ctx.Err() != nil && parent.Err() == nil {
		return exitError{code: 130, msg: ""}
	}
	return err
}

// newJSONEncoder is gem's one JSON encoder: no HTML escaping ("<folder>", not
// "\u003cfolder\u003e"), indented for documents, one line each for streams (JSON lines).
func newJSONEncoder(w io.Writer, lines bool) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if !lines {
		enc.SetIndent("", "  ")
	}
	return enc
}

// render prints a verb's result: v as JSON with --json, else the human form.
func render(s *session, asJSON bool, v any, human func() error) error {
	if asJSON {
		return newJSONEncoder(s.stdout, false).Encode(v)
	}
	return human()
}

// printJSON prints v as one indented JSON document.
func printJSON(s *session, v any) error { return newJSONEncoder(s.stdout, false).Encode(v) }

// orEmpty gives an empty list for nil, so JSON shows [] rather than null.
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
