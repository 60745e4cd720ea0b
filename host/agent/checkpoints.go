package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/gemhost/gem/host/checkpoint"
	"google.golang.org/genai"
)

// Checkpointing (settings' general.checkpointing.enabled, as Gemini CLI's): before a core tool
// that edits the workspace runs (tools.EditTools: write_file, replace — not save_memory, not
// an extension's shell tool, as in Gemini CLI), the workspace is snapshotted with the
// conversation and the tool call (host/checkpoint). The snapshot is taken once the BeforeTool
// hooks let the call through, before the policy asks about it (Gemini CLI's moment too); when
// it cannot be taken, the edit is refused. Restore brings the files back and the conversation
// to the start of the turn that made the call: the history before its prompt (so the next
// prompt follows a whole exchange), the prompt and the call returned to be shown, or asked
// again.

// checkpointFor takes the checkpoint of a call of the tool name, when checkpointing is on
// and the tool edits the workspace.
func (a *Agent) checkpointFor(ctx context.Context, s *Session, name string, args json.RawMessage) error {
	if a.Checkpoints == nil || a.Tools == nil || !a.Tools.EditsWorkspace(name) {
		return nil
	}
	c := checkpoint.Checkpoint{Tool: name, Args: args}
	var named map[string]any
	if json.Unmarshal(args, &named) == nil {
		for _, k := range []string{"file_path", "absolute_path", "path"} {
			if f, ok := named[k].(string); ok {
				c.File = f
				break
			}
		}
	}
	if a.checkpointOf != nil {
		s = a.checkpointOf
	}
	if s != nil {
		start := turnStart(s.History)
		history, err := json.Marshal(s.History[:start])
		if err != nil {
			return err
		}
		c.History = history
		if start < len(s.History) {
			c.Prompt = promptText(s.History[start])
		}
	}
	if _, err := a.Checkpoints.Save(ctx, c); err != nil {
		return fmt.Errorf("the checkpoint before this edit failed, so the edit was not made: %w", err)
	}
	return nil
}

// turnStart is the index of the prompt that began the last turn: the last user content that
// is not function responses (len(history) when there is none).
func turnStart(history []*genai.Content) int {
	for i := len(history) - 1; i >= 0; i-- {
		c := history[i]
		if c == nil || c.Role != genai.RoleUser {
			continue
		}
		responses := false
		for _, p := range c.Parts {
			responses = responses || p.FunctionResponse != nil
		}
		if !responses {
			return i
		}
	}
	return len(history)
}

func promptText(c *genai.Content) string {
	var b strings.Builder
	for _, p := range c.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// openCheckpoints is the checkpoint store of the catalog's workspace when on is set (nil
// otherwise); without git it is off, with a warning.
func openCheckpoints(on bool, dir func(workspace string) string, workspace string, environ []string, warn func(error)) *checkpoint.Store {
	if !on || workspace == "" {
		return nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		warn(errors.New("checkpointing is on in the settings but git is not on PATH: no checkpoint is taken; install git"))
		return nil
	}
	return checkpoint.Open(dir(workspace), workspace, environ)
}

// Checkpoints are the workspace's checkpoints, oldest first (none when checkpointing is off).
func (c *Conversation) Checkpoints() ([]checkpoint.Checkpoint, error) {
	if c.Agent.Checkpoints == nil {
		return nil, nil
	}
	return c.Agent.Checkpoints.List()
}

// CheckpointingOffError is /restore when checkpointing is off.
type CheckpointingOffError struct{}

func (CheckpointingOffError) Error() string {
	return "checkpointing is off: set general.checkpointing.enabled to true in settings.json"
}

// Restore brings the workspace's files back to checkpoint id and the conversation to the
// start of the turn that took it, and returns it (its Prompt and tool call to show).
func (c *Conversation) Restore(ctx context.Context, id string) (checkpoint.Checkpoint, error) {
	if c.Agent.Checkpoints == nil {
		return checkpoint.Checkpoint{}, CheckpointingOffError{}
	}
	cp, err := c.Agent.Checkpoints.Get(id)
	if err != nil {
		return cp, err
	}
	var history []*genai.Content
	if len(cp.History) > 0 {
		if err := json.Unmarshal(cp.History, &history); err != nil {
			return cp, fmt.Errorf("checkpoint %s: its conversation: %w", id, err)
		}
	}
	if cp, err = c.Agent.Checkpoints.Restore(ctx, id); err != nil {
		return cp, err
	}
	c.RestoreHistory(history)
	c.Session.Pending = nil
	return cp, nil
}
