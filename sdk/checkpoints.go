package sdk

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gemhost/gem/host/checkpoint"
)

// Checkpoint is a snapshot of the workspace taken before a core tool edited it (write_file,
// replace), when the settings' general.checkpointing.enabled is true (Gemini CLI's
// checkpointing): Restore brings the files and the conversation back to it.
type Checkpoint struct {
	ID      string // the name Restore takes: time, file and tool
	Created time.Time
	Tool    string          // the call about to run then
	Args    json.RawMessage // its arguments
	File    string          // the file it edits
	Prompt  string          // the prompt of the turn that made the call
}

func checkpointOf(c checkpoint.Checkpoint) Checkpoint {
	return Checkpoint{ID: c.ID, Created: c.Created, Tool: c.Tool, Args: c.Args, File: c.File, Prompt: c.Prompt}
}

// Checkpoints are the workspace's checkpoints, oldest first (none while checkpointing is
// off).
func (s *Session) Checkpoints() ([]Checkpoint, error) {
	all, err := s.conv.Checkpoints()
	var out []Checkpoint
	for _, c := range all {
		out = append(out, checkpointOf(c))
	}
	return out, err
}

// Restore brings the workspace's files back to checkpoint id (files made since are removed,
// what .gitignore ignores is left alone) and the conversation to the start of the turn that
// made the call; it returns the checkpoint, whose Prompt and tool call a client may offer
// again.
func (s *Session) Restore(ctx context.Context, id string) (Checkpoint, error) {
	c, err := s.conv.Restore(ctx, id)
	if err != nil {
		return Checkpoint{}, err
	}
	s.last = nil
	return checkpointOf(c), s.conv.Save()
}
