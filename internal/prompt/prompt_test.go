package prompt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

func TestTerminal(t *testing.T) {
	yesNo := []Choice{{Key: "y", Label: "yes once"}, {Key: "a", Label: "always this session"}, {Key: "s", Label: "save always"}, {Key: "n", Label: "no"}}
	tests := []struct {
		name   string
		input  string
		ask    func(p Prompter) (any, error)
		want   any
		shown  string // the question as shown
		errNot bool   // a *NotAskedError
	}{
		{"confirm default yes", "\n", confirm(true), true, "What it brings\nGo on? [Y/n] ", false},
		{"confirm default no", "\n", confirm(false), false, "Go on? [y/N] ", false},
		{"confirm yes", "YES\n", confirm(false), true, "", false},
		{"confirm other", "maybe\n", confirm(true), false, "", false},
		{"confirm end of input", "", confirm(true), false, "", true},
		{"choose by key", "a\n", choose(yesNo, 3), 1, "Run it? [y]es once, [a]lways this session, [s]ave always, [N]o: ", false},
		{"choose by word", "save\n", choose(yesNo, 3), 2, "", false},
		{"choose by label", "always this session\n", choose(yesNo, 3), 1, "", false},
		{"choose default", "\n", choose(yesNo, 3), 3, "", false},
		{"choose unknown", "perhaps\n", choose(yesNo, 3), 3, "", false},
		{"choose by another answer", "sure\n", choose([]Choice{{Key: "t", Label: "trust", Also: []string{"sure"}}, {Key: "n", Label: "not now"}}, 1), 0, "", false},
		{"input", "my answer\n", input, "my answer", "Name?\n> ", false},
		{"input end of input", "", input, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			got, err := tt.ask(NewTerminal(strings.NewReader(tt.input), &out))
			if _, notAsked := errors.AsType[*NotAskedError](err); notAsked != tt.errNot || (err != nil && !tt.errNot) {
				t.Fatalf("err = %v, want a NotAskedError: %v", err, tt.errNot)
			}
			if err == nil && got != tt.want {
				t.Errorf("answer %v, want %v", got, tt.want)
			}
			if tt.shown != "" && !strings.HasSuffix(out.String(), tt.shown) {
				t.Errorf("shown %q, want it to end %q", out.String(), tt.shown)
			}
		})
	}
}

// TestTerminalCancelled: Ctrl-C at a question (the line editor's ReadLine says
// context.Canceled) cancels what asked, whatever the question; it is not an answer.
func TestTerminalCancelled(t *testing.T) {
	yesNo := []Choice{{Key: "y", Label: "yes"}, {Key: "n", Label: "no"}}
	for name, ask := range map[string]func(Prompter) (any, error){"confirm": confirm(true), "choose": choose(yesNo, 1), "input": input} {
		term := &Terminal{Out: io.Discard, ReadLine: func(string) (string, error) { return "", context.Canceled }}
		if _, err := ask(term); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", name, err)
		}
	}
}

func confirm(def bool) func(Prompter) (any, error) {
	text := "Go on?"
	if def {
		text = "What it brings\nGo on?"
	}
	return func(p Prompter) (any, error) {
		return p.Confirm(context.Background(), Question{Text: text, Default: def})
	}
}

func choose(c []Choice, def int) func(Prompter) (any, error) {
	return func(p Prompter) (any, error) { return p.Choose(context.Background(), "Run it?", c, def) }
}

func input(p Prompter) (any, error) { return p.Input(context.Background(), "Name?") }

// TestYesAndRefuse: --yes answers confirmations and passes the model's questions to a
// person; refusing shows the question and why, names the flag, and answers no.
func TestYesAndRefuse(t *testing.T) {
	person := &Script{Answers: []string{"typed"}}
	y := &Yes{Person: person}
	if ok, err := y.Confirm(context.Background(), Question{Text: "Run?"}); !ok || err != nil {
		t.Errorf("yes: %v %v", ok, err)
	}
	if i, _ := y.Choose(context.Background(), "Run?", []Choice{{Key: "y", Label: "yes"}, {Key: "n", Label: "no"}}, 1); i != 0 {
		t.Errorf("yes chose %d", i)
	}
	if s, err := y.Input(context.Background(), "Name?"); s != "typed" || err != nil || len(person.Asked) != 1 {
		t.Errorf("yes passed input on: %q %v %v", s, err, person.Asked)
	}
	var out strings.Builder
	r := &Refuse{Out: &out, Why: NotAskedError{Reason: NoTerminal, Flag: "--yes", Verb: "approve"}}
	ok, err := r.Confirm(context.Background(), Question{Text: "Run ls?"})
	if ok || err == nil || err.Error() != "no terminal to ask on (add --yes to approve)" {
		t.Errorf("refuse: %v %v", ok, err)
	}
	if out.String() != "Run ls?\nrefused: no terminal to ask on (add --yes to approve)\n" {
		t.Errorf("refuse showed %q", out.String())
	}
	if _, err := r.Input(context.Background(), "Name?"); err == nil || strings.Contains(err.Error(), "--yes") {
		t.Errorf("refused input names a flag that does not answer it: %v", err)
	}
	if r.CanPrompt() || y.CanPrompt() != true {
		t.Error("CanPrompt")
	}
}

// TestTerminalEscapes: what an extension wrote reaches the terminal without its escapes.
func TestTerminalEscapes(t *testing.T) {
	var out strings.Builder
	NewTerminal(strings.NewReader("n\n"), &out).Confirm(context.Background(), Question{Text: "evil \x1b]0;title\x07 text\nGo on?"})
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("escape reached the terminal: %q", out.String())
	}
}

func Example() {
	// gem asks through one Prompter: a terminal, --yes, or a refusal naming the flag.
	ask := NewTerminal(strings.NewReader("a\n"), os.Stdout)
	choices := []Choice{{Key: "y", Label: "yes once"}, {Key: "a", Label: "always this session"}, {Key: "n", Label: "no"}}
	i, _ := ask.Choose(context.Background(), "Run ls -la?", choices, 2)
	fmt.Println("(picked:", choices[i].Label+")")
	// Output:
	// Run ls -la? [y]es once, [a]lways this session, [N]o: (picked: always this session)
}
