package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// UserOption is one option of a choice the model asks the user to make.
type UserOption struct {
	Label       string `json:"label" jsonschema:"the option, in 1-5 words"`
	Description string `json:"description" jsonschema:"what choosing it means"`
}

// UserQuestion is one of the model's questions to the user (ask_user).
type UserQuestion struct {
	Question    string       `json:"question" jsonschema:"the whole question, ending with a question mark"`
	Header      string       `json:"header" jsonschema:"a very short label (Auth method, Library)"`
	Type        string       `json:"type" jsonschema:"choice (options), text (free form) or yesno"`
	Options     []UserOption `json:"options,omitempty" jsonschema:"for choice: 2-4 options (the user may also type their own answer)"`
	MultiSelect bool         `json:"multiSelect,omitempty" jsonschema:"for choice: several options may be chosen"`
	Placeholder string       `json:"placeholder,omitempty" jsonschema:"a hint for the typed answer"`
}

// UserAsker is a Prompter that takes the model's questions whole (a form of the client's,
// a program's callback) instead of as lines of text: ask_user gives each question to AskUser,
// which returns the answer as the model reads it (the labels chosen, the text typed, yes or
// no).
type UserAsker interface {
	AskUser(ctx context.Context, q UserQuestion) (string, error)
}

// askUser puts the model's questions to the user, one at a time, and returns
// "header: answer" lines. On a terminal a choice is answered by number (several, comma
// separated, with multiSelect) or in the user's own words; a UserAsker gets each question
// whole.
func (c *coreBackend) askUser(ctx context.Context, a askUserArgs) (string, error) {
	if len(a.Questions) == 0 || len(a.Questions) > 4 {
		return "", fmt.Errorf("questions: give one to four, not %d", len(a.Questions))
	}
	var asker UserAsker
	if c.services != nil {
		asker, _ = c.services.Prompt.(UserAsker)
	}
	if asker == nil && (c.services == nil || c.services.Prompt == nil || !c.services.Prompt.CanPrompt()) {
		return "", errors.New("there is no terminal to ask the user on: decide yourself, or end your answer with what you need to know")
	}
	var out strings.Builder
	for _, q := range a.Questions {
		var answer string
		var err error
		if asker != nil {
			answer, err = c.services.askWhole(ctx, asker, q)
		} else {
			answer, err = c.services.answer(ctx, TerminalQuestion(q))
			answer = Chosen(q, strings.TrimSpace(answer))
		}
		if err != nil {
			return "", fmt.Errorf("the user could not be asked: %w", err)
		}
		if answer == "" {
			answer = "(no answer)"
		}
		fmt.Fprintf(&out, "%s: %s\n", q.Header, answer)
	}
	return out.String(), nil
}

// TerminalQuestion is q as lines of text, as a terminal asks it: "[header] question", a
// choice's options numbered (Chosen reads the answer typed).
func TerminalQuestion(q UserQuestion) string {
	var b strings.Builder
	if q.Header != "" {
		fmt.Fprintf(&b, "[%s] ", q.Header)
	}
	b.WriteString(q.Question)
	switch q.Type {
	case "yesno":
		b.WriteString(" (yes/no)")
	case "text":
		if q.Placeholder != "" {
			fmt.Fprintf(&b, " (%s)", q.Placeholder)
		}
	default:
		for i, o := range q.Options {
			fmt.Fprintf(&b, "\n  %d. %s", i+1, o.Label)
			if o.Description != "" {
				b.WriteString(" — " + o.Description)
			}
		}
		if len(q.Options) > 0 {
			if q.MultiSelect {
				b.WriteString("\nAnswer with numbers (1,3), or in your own words:")
			} else {
				b.WriteString("\nAnswer with a number, or in your own words:")
			}
		}
	}
	return b.String()
}

// Chosen is the answer typed at TerminalQuestion's question: option numbers become their
// labels ("2" → "OAuth"); anything else is the user's own answer ("" : "(no answer)").
func Chosen(q UserQuestion, answer string) string {
	if len(q.Options) == 0 || answer == "" {
		if answer == "" {
			return "(no answer)"
		}
		return answer
	}
	var labels []string
	for _, part := range strings.Split(answer, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > len(q.Options) {
			return answer
		}
		labels = append(labels, q.Options[n-1].Label)
	}
	return strings.Join(labels, ", ")
}
