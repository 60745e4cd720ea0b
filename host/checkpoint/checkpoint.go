// Package checkpoint keeps a workspace's checkpoints, as Gemini CLI's checkpointing does: before
// a tool edits the workspace, a snapshot of its files is committed to a shadow git repository
// outside the project (paths.Layout.CheckpointDir: $GEM_HOME/history/<workspace key>/git, where
// Gemini CLI keeps ~/.gemini/history/<project hash>), and beside it, in checkpoints/<id>.json,
// the conversation at that point and the tool call about to run. Restore brings the files back
// to a snapshot: files the snapshot has are written as they were, files made since that it has
// not are removed; what the workspace's .gitignore files ignore is neither snapshotted nor
// touched (the project's .git folder never is).
//
// git is run by gem itself (this is gem's own state, not a program of an extension), on the
// shadow repository (GIT_DIR) with the workspace as its work tree, never reading the
// project's git config nor the user's or the system's (GIT_CONFIG_NOSYSTEM,
// GIT_CONFIG_GLOBAL=/dev/null), with no hook (core.hooksPath=/dev/null) and no fsmonitor: a
// project cannot make a checkpoint run anything. The caller's GIT_* variables are dropped.
package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gemhost/gem/internal/fsx"
)

// Checkpoint is one snapshot of the workspace, with what the conversation was then.
type Checkpoint struct {
	ID      string          `json:"id"`      // its name: time, file and tool (Gemini CLI's form)
	Created time.Time       `json:"created"` // when it was taken
	Tool    string          `json:"tool"`    // the tool call about to run
	Args    json.RawMessage `json:"args,omitempty"`
	File    string          `json:"file,omitempty"` // the file the call edits, when it names one
	Commit  string          `json:"commit"`         // the snapshot in the shadow repository
	// History is the conversation at that point (the caller's encoding), Prompt the prompt
	// of the turn that made the call.
	History json.RawMessage `json:"history,omitempty"`
	Prompt  string          `json:"prompt,omitempty"`
}

// NotFoundError is a checkpoint id that the workspace has not.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string { return "no checkpoint " + e.ID }

// GitError is a git command that failed.
type GitError struct {
	Args   []string
	Output string
	Err    error
}

func (e *GitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Err, strings.TrimSpace(e.Output))
}
func (e *GitError) Unwrap() error { return e.Err }

// Store is the checkpoints of one workspace.
type Store struct {
	dir     string   // paths.Layout.CheckpointDir of the workspace
	work    string   // the workspace
	environ []string // git's environment, its GIT_* variables dropped
}

// Open is the store kept in dir (paths.Layout.CheckpointDir) of workspace work; git runs
// with environ (the caller's environment, GIT_* dropped). Nothing is made before the first
// Save.
func Open(dir, work string, environ []string) *Store {
	environ = slices.DeleteFunc(slices.Clone(environ), func(kv string) bool { return strings.HasPrefix(kv, "GIT_") })
	return &Store{dir: dir, work: work, environ: environ}
}

func (s *Store) gitDir() string  { return filepath.Join(s.dir, "git") }
func (s *Store) metaDir() string { return filepath.Join(s.dir, "checkpoints") }

// gitConfig is what every git command is run with: no hook, no fsmonitor, no signing, a
// fixed author, and no line-ending or attribute conversions from elsewhere.
var gitConfig = []string{
	"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false",
	"-c", "commit.gpgsign=false", "-c", "user.name=gem", "-c", "user.email=gem@localhost",
	"-c", "core.autocrlf=false", "-c", "core.attributesFile=/dev/null", "-c", "core.excludesFile=/dev/null",
}

func (s *Store) git(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append(slices.Clone(gitConfig), args...)...)
	cmd.Dir = s.work
	cmd.Env = append(slices.Clip(s.environ),
		"GIT_DIR="+s.gitDir(), "GIT_WORK_TREE="+s.work, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), &GitError{Args: args, Output: out.String(), Err: err}
	}
	return out.String(), nil
}

// init makes the shadow repository when there is none.
func (s *Store) init(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(s.gitDir(), "HEAD")); err == nil {
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	_, err := s.git(ctx, "init", "--quiet", "--initial-branch=checkpoints")
	return err
}

// unsafeName is what an id's file and tool parts may not hold.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Save snapshots the workspace and records c with it (its ID, Created and Commit set).
func (s *Store) Save(ctx context.Context, c Checkpoint) (Checkpoint, error) {
	if err := s.init(ctx); err != nil {
		return c, err
	}
	if _, err := s.git(ctx, "add", "-A", "--", "."); err != nil {
		return c, err
	}
	c.Created = time.Now().UTC()
	c.ID = strings.NewReplacer(":", "-", ".", "_").Replace(c.Created.Format("2006-01-02T15:04:05.000Z"))
	if c.File != "" {
		c.ID += "-" + unsafeName.ReplaceAllString(filepath.Base(c.File), "_")
	}
	c.ID += "-" + unsafeName.ReplaceAllString(c.Tool, "_")
	if _, err := s.git(ctx, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", c.ID); err != nil {
		return c, err
	}
	head, err := s.git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return c, err
	}
	c.Commit = strings.TrimSpace(head)
	data, err := json.Marshal(c)
	if err != nil {
		return c, err
	}
	if err := os.MkdirAll(s.metaDir(), 0o700); err != nil {
		return c, fmt.Errorf("checkpoints: %w", err)
	}
	return c, fsx.WriteFileAtomic(filepath.Join(s.metaDir(), c.ID+".json"), data, 0o600)
}

// List is the workspace's checkpoints, oldest first.
func (s *Store) List() ([]Checkpoint, error) {
	entries, err := os.ReadDir(s.metaDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	var out []Checkpoint
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		c, err := s.Get(id)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Checkpoint) int { return a.Created.Compare(b.Created) })
	return out, nil
}

// Get is checkpoint id.
func (s *Store) Get(id string) (Checkpoint, error) {
	var c Checkpoint
	if id == "" || id != filepath.Base(id) || strings.HasPrefix(id, ".") {
		return c, &NotFoundError{ID: id}
	}
	data, err := os.ReadFile(filepath.Join(s.metaDir(), id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return c, &NotFoundError{ID: id}
	}
	if err != nil {
		return c, fmt.Errorf("checkpoint %s: %w", id, err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("checkpoint %s: %w", id, err)
	}
	return c, nil
}

// Restore brings the workspace's files back to checkpoint id's snapshot and returns it:
// the snapshot's files are written as they were, files it has not are removed (what
// .gitignore ignores stays as it is).
func (s *Store) Restore(ctx context.Context, id string) (Checkpoint, error) {
	c, err := s.Get(id)
	if err != nil {
		return c, err
	}
	for _, args := range [][]string{
		{"read-tree", c.Commit},        // the index is the snapshot
		{"checkout-index", "-a", "-f"}, // its files written
		{"clean", "-f", "-d", "-q"},    // what it has not removed (ignored files kept)
	} {
		if _, err := s.git(ctx, args...); err != nil {
			return c, err
		}
	}
	return c, nil
}
