package agent

import (
	"time"

	"google.golang.org/genai"
)

// Usage counts tokens as the API reports them (usage metadata).
type Usage struct {
	Prompt   int `json:"prompt"`
	Output   int `json:"output"`
	Cached   int `json:"cached,omitempty"`
	Thoughts int `json:"thoughts,omitempty"`
	Tool     int `json:"tool,omitempty"` // the prompt tokens of tool results (toolUsePromptTokenCount)
	Total    int `json:"total"`
}

func (u *Usage) plus(o Usage) {
	u.Prompt += o.Prompt
	u.Output += o.Output
	u.Cached += o.Cached
	u.Thoughts += o.Thoughts
	u.Tool += o.Tool
	u.Total += o.Total
}

func (u *Usage) add(m *genai.GenerateContentResponseUsageMetadata) {
	if m == nil {
		return
	}
	u.Prompt += int(m.PromptTokenCount)
	u.Output += int(m.CandidatesTokenCount)
	u.Cached += int(m.CachedContentTokenCount)
	u.Thoughts += int(m.ThoughtsTokenCount)
	u.Tool += int(m.ToolUsePromptTokenCount)
	u.Total += int(m.TotalTokenCount)
}

// Stats count what a turn did.
type Stats struct {
	Requests  int           `json:"requests"`
	ToolCalls int           `json:"toolCalls"`
	ToolTime  time.Duration `json:"toolTimeNs"`
	Failed    int           `json:"failedToolCalls"`
	Tokens    Usage         `json:"tokens"`
	// Models are the requests by model (a subagent may use another): Gemini CLI's stats
	// are kept by model.
	Models map[string]*ModelStats `json:"models,omitempty"`
}

// ModelStats are the requests made to one model.
type ModelStats struct {
	Requests int           `json:"requests"`
	Errors   int           `json:"errors"`
	Latency  time.Duration `json:"latencyNs"`
	Tokens   Usage         `json:"tokens"`
}

// model is m's entry, made on first use.
func (st *Stats) model(m string) *ModelStats {
	if st.Models == nil {
		st.Models = map[string]*ModelStats{}
	}
	if st.Models[m] == nil {
		st.Models[m] = &ModelStats{}
	}
	return st.Models[m]
}

// merge adds a subagent's stats.
func (st *Stats) merge(o Stats) {
	st.Requests += o.Requests
	st.ToolCalls += o.ToolCalls
	st.Failed += o.Failed
	st.Tokens.plus(o.Tokens)
	for name, m := range o.Models {
		mine := st.model(name)
		mine.Requests += m.Requests
		mine.Errors += m.Errors
		mine.Latency += m.Latency
		mine.Tokens.plus(m.Tokens)
	}
}
