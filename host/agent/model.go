package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	"google.golang.org/genai"
)

// ModelClient streams a model's answers: the one method of genai's Models (a
// *genai.Client's) that an agent calls. GenaiClient is a genai client with gem's own wire
// encoding where it applies (wire.go); a program may stand in for the API with its own
// (the SDK's Model: a test without a server, another backend).
type ModelClient interface {
	GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error]
}

// GenaiClient is c as a ModelClient: a request goes out through gem's own encoder when it
// covers it (the Gemini API with a key, the fields gem sets), else through genai (Vertex AI,
// HTTP options gem does not apply).
func GenaiClient(c *genai.Client) ModelClient { return genaiClient{c} }

type genaiClient struct{ c *genai.Client }

func (g genaiClient) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return generateStream(ctx, g.c, model, contents, config)
}

// EnvClientConfig is the Gemini API's client configuration in the environment getenv reads:
// the key in GEMINI_API_KEY (or GOOGLE_API_KEY, ErrNoAPIKey when neither is set), and
// GEM_GEMINI_BASE_URL to point it elsewhere (a test's fake).
func EnvClientConfig(getenv func(string) string) (*genai.ClientConfig, error) {
	key := cmp.Or(getenv("GEMINI_API_KEY"), getenv("GOOGLE_API_KEY"))
	if key == "" {
		return nil, ErrNoAPIKey
	}
	cfg := &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI}
	cfg.HTTPOptions.BaseURL = getenv("GEM_GEMINI_BASE_URL")
	return cfg, nil
}

// ErrNoAPIKey: neither GEMINI_API_KEY nor GOOGLE_API_KEY is set.
var ErrNoAPIKey = errors.New("no Gemini API key: GEMINI_API_KEY (or GOOGLE_API_KEY) is not set")

// OpenGenai is the genai client of cfg (a copy: genai fills in what the process's
// environment adds) as a ModelClient.
func OpenGenai(ctx context.Context, cfg genai.ClientConfig) (ModelClient, error) {
	c, err := genai.NewClient(ctx, &cfg)
	if err != nil {
		return nil, fmt.Errorf("the Gemini client: %w", err)
	}
	return GenaiClient(c), nil
}

// NewClient connects to the Gemini API as the environment says (EnvClientConfig). The
// channel it returns closes as the first request goes out (Config.FirstRequest).
func NewClient(ctx context.Context, getenv func(string) string) (ModelClient, <-chan struct{}, error) {
	cfg, err := EnvClientConfig(getenv)
	if err != nil {
		return nil, nil, err
	}
	m, err := OpenGenai(ctx, *cfg)
	if err != nil {
		return nil, nil, err
	}
	m, sent := FirstRequest(m)
	return m, sent, nil
}

// FirstRequest is m with a channel that closes as m's first request starts
// (Config.FirstRequest: MCP servers whose tool lists are cached start after it).
func FirstRequest(m ModelClient) (ModelClient, <-chan struct{}) {
	f := &firstRequest{m: m, sent: make(chan struct{})}
	return f, f.sent
}

type firstRequest struct {
	m    ModelClient
	once sync.Once
	sent chan struct{}
}

func (f *firstRequest) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		f.once.Do(func() { close(f.sent) })
		for r, err := range f.m.GenerateContentStream(ctx, model, contents, config) {
			if !yield(r, err) {
				return
			}
		}
	}
}

// ErrorType names a failed turn's error as Gemini CLI's JSON output does (JsonError's
// type): GeminiAPIError:<kind> for the API's (APIError), else Error.
func ErrorType(err error) string {
	if api, ok := errors.AsType[*APIError](err); ok {
		return "GeminiAPIError:" + string(api.Kind)
	}
	return "Error"
}
