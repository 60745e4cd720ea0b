package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/gemhost/gem/internal/fsx"
	"google.golang.org/genai"
)

// Chats are the conversations the user saved by name (/chat save <tag>), per project as in
// Gemini CLI: $GEM_HOME/chats/<hash of the workspace>/<tag>.json.
type Chats struct{ Dir string }

// ChatsFor is the chats of one workspace under gemHome.
func ChatsFor(gemHome, workspace string) Chats {
	sum := sha256.Sum256([]byte(workspace))
	return Chats{Dir: filepath.Join(gemHome, "chats", hex.EncodeToString(sum[:8]))}
}

// Chat is one saved conversation.
type Chat struct {
	Tag     string           `json:"tag"`
	Model   string           `json:"model"`
	Saved   time.Time        `json:"saved"`
	History []*genai.Content `json:"history"`
	// Messages counts History (List leaves the history out).
	Messages int `json:"-"`
}

var tagPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// TagError is a chat tag that cannot name a file.
type TagError struct{ Tag string }

func (e *TagError) Error() string {
	return fmt.Sprintf("chat tag %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", e.Tag)
}

// ErrNoChat is a tag no chat was saved under.
var ErrNoChat = errors.New("no chat saved under this tag")

func (c Chats) path(tag string) (string, error) {
	if !tagPattern.MatchString(tag) {
		return "", &TagError{Tag: tag}
	}
	return filepath.Join(c.Dir, tag+".json"), nil
}

// Save writes s's history under tag (replacing a chat saved under it before); it reports
// whether there was one.
func (c Chats) Save(tag string, s *Session) (replaced bool, err error) {
	path, err := c.path(tag)
	if err != nil {
		return false, err
	}
	_, statErr := os.Stat(path)
	data, err := json.MarshalIndent(Chat{Tag: tag, Model: s.Model, Saved: time.Now().UTC(), History: s.History}, "", " ")
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return false, err
	}
	return statErr == nil, fsx.WriteFileAtomic(path, data, 0o600)
}

// Load reads the chat saved under tag.
func (c Chats) Load(tag string) (*Chat, error) {
	path, err := c.path(tag)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%q: %w", tag, ErrNoChat)
	}
	if err != nil {
		return nil, err
	}
	var ch Chat
	if err := json.Unmarshal(data, &ch); err != nil {
		return nil, fmt.Errorf("chat %s is damaged: %w", path, err)
	}
	return &ch, nil
}

// Delete removes the chat saved under tag.
func (c Chats) Delete(tag string) error {
	path, err := c.path(tag)
	if err != nil {
		return err
	}
	if err := os.Remove(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%q: %w", tag, ErrNoChat)
	} else if err != nil {
		return err
	}
	return nil
}

// List returns the saved chats, newest first (their histories left out).
func (c Chats) List() ([]Chat, error) {
	files, err := filepath.Glob(filepath.Join(c.Dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Chat
	for _, f := range files {
		if ch, err := c.Load(strings.TrimSuffix(filepath.Base(f), ".json")); err == nil {
			ch.Messages, ch.History = len(ch.History), nil
			out = append(out, *ch)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Saved.After(out[j].Saved) })
	return out, nil
}
