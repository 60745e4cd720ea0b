package sdk

import (
	"context"
	"iter"
	"sync"

	"google.golang.org/genai"

	"github.com/gemhost/gem/host/agent"
	"github.com/gemhost/gem/internal/config"
)

// DefaultModel is the model an agent uses when neither Options.Model nor the settings'
// model.name names one.
const DefaultModel = agent.DefaultModel

// APIError is a request the Gemini API refused, or that did not reach it (Kind
// APINetwork): a turn's error wraps it (errors.As).
type APIError = agent.APIError

// APIErrorKind is what an APIError is about.
type APIErrorKind = agent.APIErrorKind

// The kinds of API errors.
const (
	APIAuth    = agent.APIAuth    // the key (or credentials) refused
	APIModel   = agent.APIModel   // no such model, or not for this key
	APIQuota   = agent.APIQuota   // rate limited or out of quota
	APIServer  = agent.APIServer  // the API's own failure
	APIRequest = agent.APIRequest // the request refused otherwise
	APINetwork = agent.APINetwork // no answer: DNS, connection, proxy, TLS
)

// ErrorType names a failed turn's error as Gemini CLI's JSON output does:
// GeminiAPIError:<kind> for an APIError, else Error (the result event's error type too).
func ErrorType(err error) string { return agent.ErrorType(err) }

// Model is the model an agent's requests go to and what answers them. Gemini (a genai
// client configuration: the Gemini API with a key, Vertex AI with a project and location,
// another base URL) and GeminiClient (a *genai.Client of the program's) reach Google's
// APIs; a program implements Model itself to stand in for them — a test that scripts the
// model's answers needs no server.
type Model interface {
	// Name is the model's name, as sessions record it ("": the settings' model.name, else
	// gem's default).
	Name() string
	// GenerateContentStream streams the answer of model (Name's, or what Session.SetModel,
	// a subagent or a BeforeModel hook chose) to contents, as genai's
	// Models.GenerateContentStream does: each response a chunk of the answer (text, function
	// calls), usage metadata in the last.
	GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error]
}

// Gemini is the model name on the backend cfg configures: the Gemini API (APIKey;
// HTTPOptions.BaseURL for another endpoint) or Vertex AI (Backend genai.BackendVertexAI with
// Project and Location and the application's default credentials, or Credentials, or an
// express-mode APIKey). A nil cfg is the environment's, read through Options.Getenv as gem
// reads it: GEMINI_API_KEY or GOOGLE_API_KEY, and GEM_GEMINI_BASE_URL. NewAgent makes the
// client. Requests to the Gemini API with a key go out through gem's own encoder of the
// API's wire format (the fast path); others through genai.
func Gemini(name string, cfg *genai.ClientConfig) Model { return &gemini{name: name, cfg: cfg} }

// GeminiClient is the model name on a genai client of the program's (its backend, HTTP
// client and options as the program made them).
func GeminiClient(name string, c *genai.Client) Model { return &gemini{name: name, client: c} }

// gemini is Gemini's and GeminiClient's Model: its client is made by NewAgent (open), or at
// its first direct use, from the process's environment.
type gemini struct {
	name   string
	cfg    *genai.ClientConfig
	client *genai.Client

	once   sync.Once
	direct agent.ModelClient
	err    error
}

func (g *gemini) Name() string { return g.name }

func (g *gemini) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	g.once.Do(func() { g.direct, g.err = g.open(ctx, config.Getenv) })
	if g.err != nil {
		return func(yield func(*genai.GenerateContentResponse, error) bool) { yield(nil, g.err) }
	}
	return g.direct.GenerateContentStream(ctx, model, contents, cfg)
}

// open makes the model's client (getenv: the environment a nil configuration is read from).
func (g *gemini) open(ctx context.Context, getenv func(string) string) (agent.ModelClient, error) {
	if g.client != nil {
		return agent.GenaiClient(g.client), nil
	}
	cfg := g.cfg
	if cfg == nil {
		var err error
		if cfg, err = agent.EnvClientConfig(getenv); err != nil {
			return nil, err
		}
	}
	return agent.OpenGenai(ctx, *cfg)
}

// modelClient is the backend of m for an agent: a Gemini's client made now, or the
// program's own Model as it is.
func modelClient(ctx context.Context, m Model, getenv func(string) string) (agent.ModelClient, error) {
	if g, ok := m.(*gemini); ok {
		return g.open(ctx, getenv)
	}
	return m, nil
}
