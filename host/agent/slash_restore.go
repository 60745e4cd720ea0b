package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/gemhost/gem/host/checkpoint"
	"github.com/gemhost/gem/internal/termsafe"
)

// restoreCommand is /restore: with no argument the workspace's checkpoints, with one the files and
// the conversation brought back to it (Gemini CLI's /restore; checkpointing in the settings).
func restoreCommand(ctx context.Context, c *Conversation, w io.Writer, args []string) error {
	if len(args) == 0 {
		list, err := c.Checkpoints()
		if err != nil {
			return err
		}
		if c.Agent.Checkpoints == nil {
			fmt.Fprintln(w, "Checkpointing is off: set general.checkpointing.enabled to true in settings.json to keep a checkpoint before each edit.")
			return nil
		}
		if len(list) == 0 {
			fmt.Fprintln(w, "No checkpoints in this project yet: one is taken before each write_file or replace.")
			return nil
		}
		tw := table(w)
		for i, cp := range list {
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", i+1, termsafe.Cell(cp.ID), cp.Tool, termsafe.Cell(cp.File))
		}
		tw.Flush()
		fmt.Fprintln(w, "/restore <id or number> brings the files and the conversation back to one.")
		return nil
	}
	if len(args) != 1 {
		return fmt.Errorf("usage: /restore [<id>] (/restore lists them)")
	}
	id := args[0]
	if n, err := strconv.Atoi(id); err == nil { // the number /restore lists it under
		list, err := c.Checkpoints()
		if err != nil {
			return err
		}
		if n < 1 || n > len(list) {
			return fmt.Errorf("no checkpoint %d: /restore lists %d", n, len(list))
		}
		id = list[n-1].ID
	}
	cp, err := c.Restore(ctx, id)
	if _, ok := errors.AsType[*checkpoint.NotFoundError](err); ok {
		return fmt.Errorf("%w: /restore lists them", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Restored the files and the conversation to %s.\n", termsafe.Cell(cp.ID))
	if cp.Prompt != "" {
		fmt.Fprintf(w, "Your prompt then: %s\n", termsafe.Cell(cp.Prompt))
	}
	fmt.Fprintf(w, "The call then: %s %s\n", cp.Tool, termsafe.Cell(string(cp.Args)))
	return c.Save()
}
