// Package notes is the notes-mcp sample's store: notes with a title, a body and tags, kept in
// one JSON file that is rewritten atomically (temporary file, then rename), so a crash never
// leaves half a file.
package notes

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Note is one note.
type Note struct {
	ID      int       `json:"id"`
	Title   string    `json:"title"`
	Body    string    `json:"body"`
	Tags    []string  `json:"tags,omitempty"`
	Created time.Time `json:"created"`
}

// Store is the notes in one file.
type Store struct {
	path string
	mu   sync.Mutex
}

type file struct {
	Next  int    `json:"next"`
	Notes []Note `json:"notes"`
}

// ErrNotFound is a note id that does not exist.
var ErrNotFound = errors.New("no such note")

// Open uses the file at path (created on the first write).
func Open(path string) *Store { return &Store{path: path} }

// Path is where the notes are kept.
func (s *Store) Path() string { return s.path }

func (s *Store) load() (*file, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return &file{Next: 1}, nil
	}
	if err != nil {
		return nil, err
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s is not a notes file: %w (move it away to start afresh)", s.path, err)
	}
	if f.Next < 1 {
		f.Next = 1
	}
	return &f, nil
}

func (s *Store) save(f *file) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".notes-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}

// Add stores a new note and returns it.
func (s *Store) Add(title, body string, tags []string) (Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return Note{}, err
	}
	n := Note{ID: f.Next, Title: title, Body: body, Tags: tags, Created: time.Now().UTC().Truncate(time.Second)}
	f.Next++
	f.Notes = append(f.Notes, n)
	return n, s.save(f)
}

// Get returns one note.
func (s *Store) Get(id int) (Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return Note{}, err
	}
	for _, n := range f.Notes {
		if n.ID == id {
			return n, nil
		}
	}
	return Note{}, fmt.Errorf("%w: %d", ErrNotFound, id)
}

// List returns the notes with tag (all when tag is empty), oldest first.
func (s *Store) List(tag string) ([]Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	out := []Note{}
	for _, n := range f.Notes {
		if tag == "" || slices.Contains(n.Tags, tag) {
			out = append(out, n)
		}
	}
	return out, nil
}

// Search returns the notes whose title, body or tags contain every word of query (case
// folded), the ones with the most title hits first.
func (s *Store) Search(query string) ([]Note, error) {
	all, err := s.List("")
	if err != nil {
		return nil, err
	}
	words := strings.Fields(strings.ToLower(query))
	type hit struct {
		n     Note
		title int
	}
	var hits []hit
	for _, n := range all {
		text := strings.ToLower(n.Title + "\n" + n.Body + "\n" + strings.Join(n.Tags, " "))
		ok, title := true, 0
		for _, w := range words {
			if !strings.Contains(text, w) {
				ok = false
				break
			}
			if strings.Contains(strings.ToLower(n.Title), w) {
				title++
			}
		}
		if ok {
			hits = append(hits, hit{n, title})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].title > hits[j].title })
	out := make([]Note, len(hits))
	for i, h := range hits {
		out[i] = h.n
	}
	return out, nil
}

// Delete removes a note.
func (s *Store) Delete(id int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.load()
	if err != nil {
		return err
	}
	i := slices.IndexFunc(f.Notes, func(n Note) bool { return n.ID == id })
	if i < 0 {
		return fmt.Errorf("%w: %d", ErrNotFound, id)
	}
	f.Notes = slices.Delete(f.Notes, i, i+1)
	return s.save(f)
}
