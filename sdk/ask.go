package sdk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/internal/prompt"
)

// QuestionType says how a Question is answered.
type QuestionType string

// The types of Question (ask_user's).
const (
	AskChoice QuestionType = "choice" // one of Options (several with MultiSelect), or the user's own words
	AskText   QuestionType = "text"   // free text
	AskYesNo  QuestionType = "yesno"  // yes or no
)

// Question is a question to the user: a tool's or a hook's (SessionContext.Ask and Confirm)
// or the model's (ask_user), put to Options.Ask.
type Question struct {
	Header string // a very short label ("Auth method")
	Text   string // the whole question
	// Details say what exactly happens (Confirm's details): shown below the question.
	Details     string
	Type        QuestionType // "": AskChoice with Options, else AskText
	Options     []Option     // AskChoice's options
	MultiSelect bool         // AskChoice: several options may be chosen
	Placeholder string       // AskText: a hint for the answer
}

// Option is one option of an AskChoice question.
type Option struct {
	Label       string
	Description string
}

// Answer is the user's answer to a Question. Options.Ask fills what it knows (Text, or
// Choices, or Yes); the SDK completes the rest.
type Answer struct {
	// Text is the answer as the model reads it: what the user typed, the labels chosen
	// joined with ", ", or yes or no.
	Text     string
	Choices  []string // AskChoice: the labels chosen
	Yes      bool     // AskYesNo
	Declined bool     // the user would not answer (Text is then "")
}

// ErrNoAsk is the answer of Ask and Confirm when no one can be asked: Options.Ask is nil, a
// hook runs as a command, or the host of a plugin tool asks yes/no questions only.
var ErrNoAsk = errors.New("sdk: no one to ask the user (Options.Ask)")

// asker is Options.Ask's type: what puts a question to the user.
type asker = func(ctx context.Context, q Question) (Answer, error)

// normalized is q with its type settled, or why q cannot be asked.
func (q Question) normalized() (Question, error) {
	if q.Type == "" {
		q.Type = AskText
		if len(q.Options) > 0 {
			q.Type = AskChoice
		}
	}
	switch {
	case !slices.Contains([]QuestionType{AskChoice, AskText, AskYesNo}, q.Type):
		return q, fmt.Errorf("sdk: question type %q: use choice, text or yesno", q.Type)
	case q.Type == AskChoice && len(q.Options) == 0:
		return q, fmt.Errorf("sdk: the choice %q has no options", q.Text)
	case strings.TrimSpace(q.Text) == "":
		return q, errors.New("sdk: a question without text")
	}
	return q, nil
}

// settled is a completed: Text, Choices and Yes agree with each other for q.
func settled(q Question, a Answer) Answer {
	if a.Declined {
		return Answer{Declined: true}
	}
	switch q.Type {
	case AskYesNo:
		if t := strings.ToLower(strings.TrimSpace(a.Text)); t != "" {
			a.Yes = t == "y" || t == "yes" || t == "true"
		}
		a.Text = map[bool]string{true: "yes", false: "no"}[a.Yes]
	case AskChoice:
		if len(a.Choices) == 0 && a.Text != "" {
			if i := slices.IndexFunc(q.Options, func(o Option) bool { return strings.EqualFold(o.Label, a.Text) }); i >= 0 {
				a.Choices = []string{q.Options[i].Label}
			}
		}
		if a.Text == "" {
			a.Text = strings.Join(a.Choices, ", ")
		}
	}
	return a
}

// ask puts q through fn (nil: ErrNoAsk).
func ask(ctx context.Context, fn asker, q Question) (Answer, error) {
	q, err := q.normalized()
	if err != nil {
		return Answer{}, err
	}
	if fn == nil {
		return Answer{}, ErrNoAsk
	}
	a, err := fn(ctx, q)
	if err != nil {
		return Answer{}, err
	}
	return settled(q, a), nil
}

// Schema is the JSON Schema of a form that asks q: one property, "answer" (a string, one of
// the labels, an array of labels for MultiSelect, or a boolean for yes/no), as MCP's and
// ACP's elicitation take it. FormAnswer reads the form's reply.
func (q Question) Schema() map[string]any {
	q, _ = q.normalized()
	prop := map[string]any{"type": "string", "title": cmpOr(q.Header, "Answer")}
	var labels []string
	for _, o := range q.Options {
		labels = append(labels, o.Label)
	}
	switch {
	case q.Type == AskYesNo:
		prop["type"] = "boolean"
	case q.Type == AskChoice && q.MultiSelect:
		prop["type"], prop["items"] = "array", map[string]any{"type": "string", "enum": labels}
	case q.Type == AskChoice:
		prop["enum"] = labels
	case q.Placeholder != "":
		prop["description"] = q.Placeholder
	}
	return map[string]any{"type": "object", "properties": map[string]any{"answer": prop}, "required": []string{"answer"}}
}

// Message is q as one text: the question, its details, a choice's options with what each
// means (a form shows Message above the fields of Schema).
func (q Question) Message() string {
	parts := []string{q.Text}
	if q.Details != "" {
		parts = append(parts, q.Details)
	}
	for _, o := range q.Options {
		if o.Description != "" {
			parts = append(parts, fmt.Sprintf("%s: %s", o.Label, o.Description))
		}
	}
	return strings.Join(parts, "\n")
}

// FormAnswer is the answer a form of Schema gave: action is the reply's (accept, decline,
// cancel) and content its fields.
func (q Question) FormAnswer(action string, content map[string]any) Answer {
	if action != "accept" {
		return Answer{Declined: true}
	}
	switch v := content["answer"].(type) {
	case bool:
		return Answer{Yes: v}
	case string:
		return Answer{Text: v}
	case []any:
		var a Answer
		for _, x := range v {
			a.Choices = append(a.Choices, fmt.Sprint(x))
		}
		return a
	}
	return Answer{Declined: true}
}

// Terminal is q as lines of text for a terminal, as gem asks the model's questions on one:
// "[header] question", a choice's options numbered. TypedAnswer reads the line typed.
func (q Question) Terminal() string {
	q, _ = q.normalized()
	return tools.TerminalQuestion(q.user())
}

// TypedAnswer is the answer a person typed at Terminal's question: option numbers ("1,3")
// are those options' labels, anything else their own words; an empty line declines.
func (q Question) TypedAnswer(line string) Answer {
	q, _ = q.normalized()
	line = strings.TrimSpace(line)
	if line == "" {
		return Answer{Declined: true}
	}
	a := Answer{Text: tools.Chosen(q.user(), line)}
	if q.Type == AskChoice && a.Text != line { // numbers: the labels they name
		a.Choices = strings.Split(a.Text, ", ")
	}
	return a
}

// user is q as ask_user's question.
func (q Question) user() tools.UserQuestion {
	uq := tools.UserQuestion{Question: q.Text, Header: q.Header, Type: string(q.Type), MultiSelect: q.MultiSelect, Placeholder: q.Placeholder}
	for _, o := range q.Options {
		uq.Options = append(uq.Options, tools.UserOption{Label: o.Label, Description: o.Description})
	}
	return uq
}

func cmpOr(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// asking is the agent's Prompter with Options.Ask: the model's questions (ask_user, as a
// tools.UserAsker) and plain text questions go to Ask; approvals go where they went.
type asking struct {
	prompt.Prompter
	ask asker
}

func (p asking) AskUser(ctx context.Context, uq tools.UserQuestion) (string, error) {
	q := Question{Header: uq.Header, Text: uq.Question, Type: QuestionType(uq.Type), MultiSelect: uq.MultiSelect, Placeholder: uq.Placeholder}
	for _, o := range uq.Options {
		q.Options = append(q.Options, Option{Label: o.Label, Description: o.Description})
	}
	a, err := ask(ctx, p.ask, q)
	return a.Text, err
}

func (p asking) Input(ctx context.Context, question string) (string, error) {
	a, err := ask(ctx, p.ask, Question{Type: AskText, Text: question})
	return a.Text, err
}

func (p asking) CanPrompt() bool { return true }

// sessionHost is pluginsdk's Host of a tool the agent runs in the program's process:
// Confirm asks through Options.Ask, Progress and Log go to the program's slog.Default
// logger, tagged with the session.
type sessionHost struct{ c *sessionContext }

func (h sessionHost) Confirm(_ context.Context, title, details string) (bool, error) {
	return h.c.Confirm(title, details)
}

func (h sessionHost) Progress(ctx context.Context, message string, fraction float64) {
	if fraction >= 0 {
		message = fmt.Sprintf("%s (%d%%)", message, int(fraction*100+0.5))
	}
	h.Log(ctx, "info", message)
}

// levels are pluginsdk's log levels as slog's.
var levels = map[string]slog.Level{"trace": slog.LevelDebug - 4, "debug": slog.LevelDebug, "info": slog.LevelInfo,
	"warn": slog.LevelWarn, "warning": slog.LevelWarn, "error": slog.LevelError}

func (h sessionHost) Log(ctx context.Context, level, message string) {
	lvl, ok := levels[level]
	if !ok {
		lvl = slog.LevelInfo
	}
	slog.Default().Log(ctx, lvl, message, "session", h.c.SessionID())
}
