package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/gemhost/gem/internal/fsx"
)

// Session is a conversation.
type Session struct {
	ID      string           `json:"id"`
	Model   string           `json:"model"`
	Created time.Time        `json:"created"`
	Updated time.Time        `json:"updated"`
	History []*genai.Content `json:"history"`
	// ActiveSkills are the skills activated in the conversation: their instructions join the
	// system instruction of every request from then on (kept with the session).
	ActiveSkills []string `json:"activeSkills,omitempty"`
	// Pending is the last turn when it waits for approvals (kept with the session, so
	// another process may decide them: ResumeTurn).
	Pending *PendingTurn `json:"pending,omitempty"`
	// ApprovalMode is the policy's mode when the conversation was last saved
	// (Conversation.Save); a client that resumes the session may restore it (gem acp does,
	// gem -p and the shell take their flag).
	ApprovalMode string `json:"approvalMode,omitempty"`
	// nextContext goes with the next prompt (SessionStart hooks' additionalContext).
	nextContext []string
	// attached are the files (images) that go with the next prompt (Attach).
	attached []*genai.Part
	// LastPromptTokens is the size of the last request, as the API counted it.
	LastPromptTokens int   `json:"lastPromptTokens,omitempty"`
	Usage            Usage `json:"usage"`
	path             string
}

// AttachMax is the largest file Attach takes (the Gemini API takes at most 20 MB of inline
// data in a request).
const AttachMax = 10 << 20

// attachable are the MIME types of the images the Gemini models read inline.
var attachable = []string{"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}

// AttachError is a file Attach refuses.
type AttachError struct {
	MIMEType string
	Size     int
}

func (e *AttachError) Error() string {
	if !slices.Contains(attachable, e.MIMEType) {
		return fmt.Sprintf("an attachment of type %q: the model reads images of %s", e.MIMEType, strings.Join(attachable, ", "))
	}
	return fmt.Sprintf("an attachment of %d bytes: at most %d", e.Size, AttachMax)
}

// Image is an image attached to a prompt.
type Image struct {
	MIMEType string
	Data     []byte
}

// Attach adds images to the next prompt (sent inline, kept in the history as the model saw
// them): all of them, or none when one is refused.
func (s *Session) Attach(images ...Image) error {
	for _, im := range images {
		if !slices.Contains(attachable, im.MIMEType) || len(im.Data) > AttachMax {
			return &AttachError{MIMEType: im.MIMEType, Size: len(im.Data)}
		}
	}
	for _, im := range images {
		s.attached = append(s.attached, &genai.Part{InlineData: &genai.Blob{MIMEType: im.MIMEType, Data: im.Data}})
	}
	return nil
}

// Path is the file the session is saved to (hooks get it as transcript_path).
func (s *Session) Path() string { return s.path }

// Sessions stores sessions in a folder.
type Sessions struct{ Dir string }

// New starts a session.
func (ss Sessions) New(model string) *Session {
	now := time.Now().UTC()
	id := newSessionID(now)
	return &Session{ID: id, Model: model, Created: now, Updated: now, path: filepath.Join(ss.Dir, id+".json")}
}

// sessionIDs makes the ids of this process's sessions unique: a program (the SDK, gem acp)
// opens several in the same second.
var sessionIDs struct {
	sync.Mutex
	stamp string
	same  int
}

// newSessionID is the time, the process (a short pid) and, for a second session of the
// process in the same second, its number: names sort as the sessions were made.
func newSessionID(now time.Time) string {
	stamp := now.Format("20060102-150405") + fmt.Sprintf("-%04x", os.Getpid()&0xffff)
	sessionIDs.Lock()
	defer sessionIDs.Unlock()
	if stamp != sessionIDs.stamp {
		sessionIDs.stamp, sessionIDs.same = stamp, 0
		return stamp
	}
	sessionIDs.same++
	return fmt.Sprintf("%s-%03d", stamp, sessionIDs.same)
}

// Load reads a session by id, or the newest with "latest".
func (ss Sessions) Load(id string) (*Session, error) {
	if id == "latest" {
		files := ss.files()
		if len(files) == 0 {
			return nil, fmt.Errorf("no session to resume in %s", ss.Dir)
		}
		id = strings.TrimSuffix(filepath.Base(files[0]), ".json")
	}
	path := filepath.Join(ss.Dir, filepath.Base(id)+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w (gem sessions lists them)", id, err)
	}
	var s Session
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("session %s is damaged: %w", path, err)
	}
	s.path = path
	return &s, nil
}

// files are the sessions' files, the last saved first (the name, which sorts as the
// sessions were made, breaks ties): "latest" is the session used last, not the one made
// last (a program may work in several).
func (ss Sessions) files() []string {
	files, _ := filepath.Glob(filepath.Join(ss.Dir, "*.json"))
	mtime := map[string]time.Time{}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			mtime[f] = st.ModTime()
		}
	}
	sort.Slice(files, func(i, j int) bool {
		if !mtime[files[i]].Equal(mtime[files[j]]) {
			return mtime[files[i]].After(mtime[files[j]])
		}
		return files[i] > files[j]
	})
	return files
}

// List returns the sessions, the last saved first.
func (ss Sessions) List() ([]*Session, error) {
	var out []*Session
	for _, f := range ss.files() {
		if s, err := ss.Load(strings.TrimSuffix(filepath.Base(f), ".json")); err == nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// Save writes the session atomically.
func (s *Session) Save() error {
	s.Updated = time.Now().UTC()
	data, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	return fsx.WriteFileAtomic(s.path, data, 0o600)
}

// sessionKey carries the session of a tool call in its context (SessionOf).
type sessionKey struct{}

// SessionOf is the session whose turn made the tool call running under ctx (nil outside a
// turn): the SDK's SessionContext reads it.
func SessionOf(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}
