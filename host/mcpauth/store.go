package mcpauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/secrets"
)

// Record is what a sign-in leaves: the client gem signed in as, the endpoints, the token.
type Record struct {
	Server       string           `json:"server"`
	Resource     string           `json:"resource"` // the server's URL: the token goes there only
	ClientID     string           `json:"client_id"`
	ClientSecret string           `json:"client_secret,omitempty"`
	AuthURL      string           `json:"auth_url"`
	TokenURL     string           `json:"token_url"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style,omitempty"`
	Scopes       []string         `json:"scopes,omitempty"`
	Audiences    []string         `json:"audiences,omitempty"` // sent with every refresh
	Token        *oauth2.Token    `json:"token"`
	SignedIn     time.Time        `json:"signed_in"`
}

// config is the oauth2 configuration that refreshes the record's token.
func (r *Record) config() *oauth2.Config {
	return &oauth2.Config{ClientID: r.ClientID, ClientSecret: r.ClientSecret, Scopes: r.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: r.AuthURL, TokenURL: r.TokenURL, AuthStyle: r.AuthStyle}}
}

// Store keeps the records of every extension, sealed, one file per extension.
type Store struct {
	Env registry.Env
}

// storeMu serialises the read-modify-write of a store's files within gem.
var storeMu sync.Mutex

func recordKey(server, resource string) string { return server + " " + resource }

func aad(extension string) string { return "mcp-oauth\x00" + extension }

// StoreError is a token file gem cannot read or write.
type StoreError struct {
	Extension string
	Err       error
}

func (e *StoreError) Error() string {
	return fmt.Sprintf("the MCP sign-ins of %s: %v", e.Extension, e.Err)
}

func (e *StoreError) Unwrap() error { return e.Err }

func (s Store) read(extension string) (map[string]*Record, error) {
	if !registry.PlainName(extension) {
		return nil, &StoreError{extension, errors.New("not a plain extension name")}
	}
	plain, err := secrets.Open(s.Env, s.Env.MCPTokensFile(extension), aad(extension))
	if err != nil {
		return nil, &StoreError{extension, err}
	}
	m := map[string]*Record{}
	if plain != nil {
		if err := json.Unmarshal(plain, &m); err != nil {
			return nil, &StoreError{extension, err}
		}
	}
	return m, nil
}

func (s Store) write(extension string, m map[string]*Record) error {
	var plain []byte
	if len(m) > 0 {
		plain, _ = json.Marshal(m)
	}
	if err := secrets.Seal(s.Env, s.Env.MCPTokensFile(extension), aad(extension), plain); err != nil {
		return &StoreError{extension, err}
	}
	return nil
}

// Load returns the record of server of extension for resource, or nil when gem has not
// signed in to that server at that URL.
func (s Store) Load(extension, server, resource string) (*Record, error) {
	storeMu.Lock()
	defer storeMu.Unlock()
	m, err := s.read(extension)
	if err != nil {
		return nil, err
	}
	return m[recordKey(server, resource)], nil
}

// Save keeps r for extension (replacing the server's record for the same resource).
func (s Store) Save(extension string, r *Record) error {
	storeMu.Lock()
	defer storeMu.Unlock()
	m, err := s.read(extension)
	if err != nil {
		return err
	}
	m[recordKey(r.Server, r.Resource)] = r
	return s.write(extension, m)
}

// Delete forgets every record of server of extension (every resource) and reports whether
// there was one.
func (s Store) Delete(extension, server string) (bool, error) {
	storeMu.Lock()
	defer storeMu.Unlock()
	m, err := s.read(extension)
	if err != nil {
		return false, err
	}
	found := false
	for k, r := range m {
		if r.Server == server {
			delete(m, k)
			found = true
		}
	}
	if !found {
		return false, nil
	}
	return true, s.write(extension, m)
}
