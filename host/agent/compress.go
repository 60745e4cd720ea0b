package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"
)

// DefaultCompressAt is the share of the model's input limit at which the history is
// compressed (Gemini CLI's default threshold).
const DefaultCompressAt = 0.7

// keepShare is the share of the history (newest contents) kept as it is when compressing.
const keepShare = 0.3

// TokenLimitOf is the input limit of a Gemini model: 1,048,576 tokens for the 1.5, 2.x and
// later models gem knows, and the same for names it does not.
func TokenLimitOf(model string) int {
	if strings.HasPrefix(model, "gemini-1.5-pro") {
		return 2_097_152
	}
	return 1_048_576
}

// compressPrompt asks the model for the summary that replaces the older history.
const compressPrompt = `The conversation so far is about to be replaced by your summary of it. Write that summary as a <state_snapshot> element: the user's overall goal, the key facts and decisions, the files and commands involved with what was learned about them, what was done, and what is left to do. Be complete about what matters to continue the work and brief about the rest. Answer with the <state_snapshot> element only.`

// needsCompression reports whether the last request reached the compression threshold.
func (a *Agent) needsCompression(s *Session) bool {
	limit := a.TokenLimit
	if limit <= 0 {
		limit = TokenLimitOf(a.model())
	}
	at := a.CompressAt
	if at <= 0 {
		at = DefaultCompressAt
	}
	return s.LastPromptTokens > 0 && float64(s.LastPromptTokens) >= at*float64(limit)
}

// ErrNothingToCompress is a history too short to compress.
var ErrNothingToCompress = errors.New("the conversation is too short to compress")

// Compress replaces the older part of the history by the model's summary of it, keeping the
// newest contents (about keepShare of them, from a prompt of the user on, so a function call
// is never split from its response). The PreCompress hooks run first (trigger "auto" or
// "manual"); they cannot stop it.
func (a *Agent) Compress(ctx context.Context, s *Session, trigger string) error {
	split := -1
	for i := int(float64(len(s.History)) * (1 - keepShare)); i < len(s.History); i++ {
		if i > 0 && isUserText(s.History[i]) {
			split = i
			break
		}
	}
	if split <= 0 {
		if trigger == "manual" {
			return ErrNothingToCompress
		}
		s.LastPromptTokens = 0 // do not try again at every step
		return nil
	}
	a.Hooks.Run(ctx, "PreCompress", hookInput(s, "trigger", trigger))
	older := append(append([]*genai.Content{}, s.History[:split]...), genai.NewContentFromText(compressPrompt, genai.RoleUser))
	config := &genai.GenerateContentConfig{AutomaticContinuation: genai.Ptr(false),
		SystemInstruction: genai.NewContentFromText("You summarize conversations for a coding agent so that it can continue them.", genai.RoleUser)}
	saved := a.Events.Text
	a.Events.Text = nil // the summary is not shown
	summary, usage, err := a.generateWithRetry(ctx, a.model(), older, config)
	a.Events.Text = saved
	s.Usage.add(usage)
	if err != nil {
		return fmt.Errorf("compressing the conversation: %w", err)
	}
	before := len(s.History)
	kept := s.History[split:]
	s.History = append([]*genai.Content{
		genai.NewContentFromText(textOf(summary), genai.RoleUser),
		genai.NewContentFromText("Got it. Thanks for the additional context!", genai.RoleModel),
	}, kept...)
	s.LastPromptTokens = 0
	if a.Events.Compressed != nil {
		a.Events.Compressed(trigger, before, len(s.History))
	}
	return nil
}

// isUserText reports whether c is a prompt of the user (not a function response).
func isUserText(c *genai.Content) bool {
	if c.Role != genai.RoleUser || len(c.Parts) == 0 {
		return false
	}
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return false
		}
	}
	return true
}
