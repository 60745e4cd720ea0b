package agent

// google_web_search is Gemini CLI's web search: the query goes to the model in a request of
// its own with Google Search grounding (tools: [{googleSearch: {}}]), and the answer comes
// back with citation markers ([1], [2][3]) after the text each grounding support covers and
// a Sources list of the grounding chunks (title and URI), as Gemini CLI formats it. It is a
// core tool (offered with them, named in settings' tools.core, hidden by tools.exclude) of
// kind search: read-only, allowed without a question in every approval mode — the query
// goes only to the Gemini API, which already has the conversation. Its requests go to the
// model of Gemini CLI's web-search alias (gemini-3-flash-preview, or what settings'
// modelConfigs name), not the session's, as in Gemini CLI.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/registry/settings"
)

const webSearchName = "google_web_search"

var webSearchSpec = tools.Spec{
	Name:        webSearchName,
	Description: "Searches the web with Google Search (through the Gemini API) and returns an answer citing its sources ([n] markers and a Sources list). Use it for current events or facts you do not know.",
	Kind:        tools.KindSearch,
	InputSchema: json.RawMessage(`{"type":"object","required":["query"],"properties":{"query":{"type":"string","description":"the search query"}}}`),
}

// webSearch reports whether google_web_search is offered: with the core tools, unless
// settings leave it out or an extension's tool has the name.
func (a *Agent) webSearch() bool {
	if a.Client == nil || !a.Tools.CoreOffers(webSearchName) || (a.only != nil && !a.only.allows(webSearchName)) {
		return false
	}
	_, taken := a.Tools.Lookup(webSearchName)
	return !taken
}

// webSearchFunc is google_web_search as the agent runs it.
func (a *Agent) webSearchFunc() tools.Func {
	return tools.Func{Spec: webSearchSpec, Extension: "gem", Run: a.runWebSearch}
}

func (a *Agent) runWebSearch(ctx context.Context, args json.RawMessage) (*tools.Result, error) {
	var in struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return &tools.Result{Text: "the query is empty", Error: &tools.ResultError{Type: tools.ErrorInvalidArguments, Message: "the query is empty"}}, nil
	}
	contents := []*genai.Content{genai.NewContentFromText(in.Query, genai.RoleUser)}
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{{GoogleSearch: &genai.GoogleSearch{}}}}
	var text strings.Builder
	var meta *genai.GroundingMetadata
	for resp, err := range a.Client.GenerateContentStream(ctx, cmp.Or(a.WebSearchModel, settings.DefaultWebSearchModel), contents, config) {
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return nil, err
			}
			msg := fmt.Sprintf("web search for %q: %v", in.Query, describeAPIError(err))
			return &tools.Result{Text: msg, Error: &tools.ResultError{Type: tools.ErrorExecution, Message: msg}}, nil
		}
		if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
			continue
		}
		c := resp.Candidates[0]
		if c.Content != nil {
			for _, p := range c.Content.Parts {
				if !p.Thought {
					text.WriteString(p.Text)
				}
			}
		}
		if c.GroundingMetadata != nil {
			meta = c.GroundingMetadata
		}
	}
	if strings.TrimSpace(text.String()) == "" {
		return &tools.Result{Text: fmt.Sprintf("No search results or information found for query: %q", in.Query)}, nil
	}
	answer := citeGrounding(text.String(), meta)
	return &tools.Result{Text: fmt.Sprintf("Web search results for %q:\n\n%s", in.Query, answer), Display: fmt.Sprintf("Search results for %q returned.", in.Query)}, nil
}

// citeGrounding is text with each grounding support's chunks cited ([i+1] for chunk i)
// at the end of the segment it covers (a byte offset into the text, as the API counts),
// then the chunks listed as Sources: "[n] title (uri)". Without chunks it is text.
func citeGrounding(text string, meta *genai.GroundingMetadata) string {
	if meta == nil || len(meta.GroundingChunks) == 0 {
		return text
	}
	type insertion struct {
		at     int
		marker string
	}
	var ins []insertion
	for _, s := range meta.GroundingSupports {
		if s == nil || s.Segment == nil || len(s.GroundingChunkIndices) == 0 {
			continue
		}
		var m strings.Builder
		for _, i := range s.GroundingChunkIndices {
			fmt.Fprintf(&m, "[%d]", i+1)
		}
		ins = append(ins, insertion{min(max(int(s.Segment.EndIndex), 0), len(text)), m.String()})
	}
	// Later offsets first, so earlier ones still point where they did (at one offset the
	// later support's marker comes first, as in Gemini CLI).
	slices.SortStableFunc(ins, func(x, y insertion) int { return y.at - x.at })
	for _, x := range ins {
		text = text[:x.at] + x.marker + text[x.at:]
	}
	var b strings.Builder
	b.WriteString(text)
	b.WriteString("\n\nSources:")
	for i, c := range meta.GroundingChunks {
		title, uri := "Untitled", "No URI"
		if c != nil && c.Web != nil {
			title, uri = cmp.Or(c.Web.Title, title), cmp.Or(c.Web.URI, uri)
		}
		fmt.Fprintf(&b, "\n[%d] %s (%s)", i+1, title, uri)
	}
	return b.String()
}
