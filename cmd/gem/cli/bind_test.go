package cli

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gemhost/gem/internal/iostreams"
	"github.com/urfave/cli/v2"
)

type bindEmbedded struct {
	Level int `flag:"level" usage:"how far"`
}

type bindTestOptions struct {
	Name    string        `arg:"<name>" help:"a name"`
	Rest    []string      `arg:"[more]..."`
	Verbose bool          `flag:"verbose,v" usage:"say more"`
	Mode    string        `flag:"mode" usage:"how"`
	Value   *string       `flag:"value" usage:"a value"`
	Wait    time.Duration `flag:"wait" usage:"how long"`
	Paths   []string      `flag:"path" usage:"a path"`
	Hidden  string        // no tag: not bound
	bindEmbedded
}

func (o *bindTestOptions) setDefaults() { o.Mode, o.Level = "fast", 3 }

// TestBindOptions: tagged fields become flags and arguments with their defaults, and parse
// back into the options; untagged fields are left alone.
func TestBindOptions(t *testing.T) {
	empty := ""
	tests := []struct {
		args []string
		want bindTestOptions
	}{
		{[]string{"x", "alpha"}, bindTestOptions{Name: "alpha", Rest: []string{}, Mode: "fast", bindEmbedded: bindEmbedded{3}}},
		{[]string{"x", "-v", "--mode", "slow", "--value", "", "--wait", "2s", "--path", "a", "--path", "b", "--level", "9", "alpha", "b", "c"},
			bindTestOptions{Name: "alpha", Rest: []string{"b", "c"}, Verbose: true, Mode: "slow", Value: &empty, Wait: 2 * time.Second, Paths: []string{"a", "b"}, bindEmbedded: bindEmbedded{9}}},
	}
	opts := optionsOf[bindTestOptions]()
	for _, tt := range tests {
		var got bindTestOptions
		app := &cli.App{Flags: opts.flags(), Action: func(c *cli.Context) error { got = opts.from(c); return nil }}
		if err := app.Run(tt.args); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%v:\n got %+v\nwant %+v", tt.args, got, tt.want)
		}
	}
}

func TestArgRuleOf(t *testing.T) {
	type none struct {
		JSON bool `flag:"json"`
	}
	type one struct {
		Name string `arg:"<name>" help:"an extension name"`
	}
	type oneAndOptional struct {
		Name    string `arg:"<name>" help:"an extension name"`
		Setting string `arg:"[setting]" help:"a setting"`
	}
	type optional struct {
		Folder string `arg:"[folder]" help:"one folder"`
	}
	type rest struct {
		Names []string `arg:"[name]..."`
	}
	tests := []struct {
		name      string
		fields    []binding
		wantRule  argRule
		wantUsage string
	}{
		{"none", bindingsOf(reflect.TypeFor[none](), nil), argRule{0, 0, "no arguments"}, ""},
		{"one", bindingsOf(reflect.TypeFor[one](), nil), argRule{1, 1, "an extension name"}, "<name>"},
		{"one and optional", bindingsOf(reflect.TypeFor[oneAndOptional](), nil), argRule{1, 2, "an extension name and optionally a setting"}, "<name> [setting]"},
		{"optional", bindingsOf(reflect.TypeFor[optional](), nil), argRule{0, 1, "at most one folder"}, "[folder]"},
		{"rest", bindingsOf(reflect.TypeFor[rest](), nil), argRule{0, -1, "at most "}, "[name]..."},
	}
	for _, tt := range tests {
		rule, usage := argRuleOf(tt.fields)
		if rule.min != tt.wantRule.min || rule.max != tt.wantRule.max || (tt.wantRule.max >= 0 && rule.what != tt.wantRule.what) || usage != tt.wantUsage {
			t.Errorf("%s: %+v %q, want %+v %q", tt.name, rule, usage, tt.wantRule, tt.wantUsage)
		}
	}
}

func TestNoColorFlag(t *testing.T) {
	tests := []struct{ in, want string }{
		{"gem ext list --no-color", "gem ext list"},
		{"gem --no-color doctor", "gem doctor"},
		{"gem run hello --no-color", "gem run hello --no-color"},
		{"gem --no-color run hello --no-color", "gem run hello --no-color"},
		{"gem tools call x -- --no-color", "gem tools call x -- --no-color"},
	}
	for _, tt := range tests {
		ios, _, _, _ := iostreams.Test()
		if got := strings.Join(noColorFlag(ios, strings.Fields(tt.in)), " "); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.in, got, tt.want)
		}
	}
}
