package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// verb declares a leaf command whose flags and positional arguments are the tagged fields of
// its options struct O, so a verb is its options type, its run function and one call:
//
//	flag:"name" or flag:"name,n"  a flag with an optional one-letter alias, helped by
//	                              usage:"…": bool, string, int, time.Duration, []string
//	                              (repeated), or *string (nil unless given)
//	arg:"<name>"                  a required positional argument, helped by help:"…" in
//	arg:"[name]"                  usage errors; [name] is optional; a trailing "..." on a
//	arg:"<name>..."               []string field takes the rest
//
// Embedded structs (callFlags) are walked. A flag's default is the field's value after O's
// setDefaults, when *O has one. The examples follow "EXAMPLES" in the help. The command's
// Action checks the arguments, opens the session and runs run with a context SIGINT and
// SIGTERM cancel (gem then exits 130; a second signal ends it at once).
func verb[O any](f *Factory, name, usage string, run func(ctx context.Context, s *session, o O) error, examples ...string) *cli.Command {
	opts := optionsOf[O]()
	rule, argsUsage := argRuleOf(opts.fields)
	cmd := &cli.Command{Name: name, Usage: usage, ArgsUsage: argsUsage, Flags: opts.flags(), BashComplete: completeArgs(f, opts.fields)}
	if len(examples) > 0 {
		cmd.Description = "EXAMPLES\n  " + strings.Join(examples, "\n  ")
	}
	cmd.Action = func(c *cli.Context) error {
		o := opts.from(c)
		if err := rule.check(c); err != nil {
			return jsonFailure(f.IO.Out, wantsJSON(o), err)
		}
		s, err := f.Session()
		if err != nil {
			return jsonFailure(f.IO.Out, wantsJSON(o), err)
		}
		out := &countingWriter{w: s.stdout}
		s.stdout = out
		err = runCancellable(c.Context, func(ctx context.Context) error { return run(ctx, s, o) })
		return jsonFailure(out, wantsJSON(o) && out.n == 0, err)
	}
	return cmd
}

// wantsJSON reports whether o's --json is set.
func wantsJSON(o any) bool {
	v := reflect.ValueOf(o)
	if v.Kind() != reflect.Struct {
		return false
	}
	f := v.FieldByName("JSON")
	return f.IsValid() && f.Kind() == reflect.Bool && f.Bool()
}

// jsonFailure prints a failed verb's error as JSON on stdout when asked (a verb that printed
// its own JSON before failing is not asked), and returns err for stderr and the exit code.
func jsonFailure(w io.Writer, asJSON bool, err error) error {
	if err != nil && asJSON {
		newJSONEncoder(w, false).Encode(errorJSON(err))
	}
	return err
}

// countingWriter counts what a verb wrote.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// options are the flags and arguments of an options struct O, with their defaults.
type options[O any] struct {
	defaults O
	fields   []binding
}

func optionsOf[O any]() options[O] {
	var defaults O
	if d, ok := any(&defaults).(interface{ setDefaults() }); ok {
		d.setDefaults()
	}
	return options[O]{defaults, bindingsOf(reflect.TypeOf(defaults), nil)}
}

// flags are the urfave flags of O's flag fields.
func (p options[O]) flags() []cli.Flag { return flagsOf(p.fields, reflect.ValueOf(p.defaults)) }

// from is O as c's flags and arguments set it.
func (p options[O]) from(c *cli.Context) O {
	o := p.defaults
	bindValues(p.fields, reflect.ValueOf(&o).Elem(), c)
	return o
}

// binding is one tagged field of an options struct.
type binding struct {
	index []int // the field's path (embedded structs included)
	typ   reflect.Type
	flag  string // the flag's name, or ""
	alias string // its one-letter alias, or ""
	usage string // the flag's help
	arg   string // the argument as help shows it: <name>, [name], <name>...
	help  string // what the argument is, for usage errors
}

var durationType = reflect.TypeOf(time.Duration(0))

func bindingsOf(t reflect.Type, prefix []int) []binding {
	var out []binding
	for i := range t.NumField() {
		sf := t.Field(i)
		index := append(append([]int{}, prefix...), i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			out = append(out, bindingsOf(sf.Type, index)...)
			continue
		}
		b := binding{index: index, typ: sf.Type, usage: sf.Tag.Get("usage"), arg: sf.Tag.Get("arg"), help: sf.Tag.Get("help")}
		b.flag, b.alias, _ = strings.Cut(sf.Tag.Get("flag"), ",")
		if b.flag != "" || b.arg != "" {
			out = append(out, b)
		}
	}
	return out
}

// argRuleOf derives how many arguments a verb takes, and how help shows them.
func argRuleOf(fields []binding) (argRule, string) {
	rule := argRule{}
	var shown, required, optional []string
	for _, b := range fields {
		if b.arg == "" {
			continue
		}
		shown = append(shown, b.arg)
		rest := strings.HasSuffix(b.arg, "...")
		switch {
		case strings.HasPrefix(b.arg, "<"):
			rule.min++
			required = append(required, b.help)
		default:
			optional = append(optional, b.help)
		}
		rule.max++
		if rest {
			rule.max = -1
		}
	}
	rule.what = strings.Join(required, " and ")
	switch {
	case len(optional) > 0 && rule.what != "":
		rule.what += " and optionally " + strings.Join(optional, " and ")
	case len(optional) > 0:
		rule.what = "at most " + strings.Join(optional, " and ")
	}
	if rule.max == 0 {
		rule.what = "no arguments"
	}
	return rule, strings.Join(shown, " ")
}

func flagsOf(fields []binding, defaults reflect.Value) []cli.Flag {
	var out []cli.Flag
	for _, b := range fields {
		if b.flag == "" {
			continue
		}
		var aliases []string
		if b.alias != "" {
			aliases = []string{b.alias}
		}
		def := defaults.FieldByIndex(b.index)
		switch {
		case b.typ == durationType:
			out = append(out, &cli.DurationFlag{Name: b.flag, Aliases: aliases, Usage: b.usage, Value: time.Duration(def.Int())})
		case b.typ.Kind() == reflect.Bool:
			out = append(out, &cli.BoolFlag{Name: b.flag, Aliases: aliases, Usage: b.usage, DisableDefaultText: true})
		case b.typ.Kind() == reflect.String:
			out = append(out, &cli.StringFlag{Name: b.flag, Aliases: aliases, Usage: b.usage, Value: def.String()})
		case b.typ.Kind() == reflect.Pointer && b.typ.Elem().Kind() == reflect.String:
			out = append(out, &cli.StringFlag{Name: b.flag, Aliases: aliases, Usage: b.usage})
		case b.typ.Kind() == reflect.Int:
			out = append(out, &cli.IntFlag{Name: b.flag, Aliases: aliases, Usage: b.usage, Value: int(def.Int())})
		case b.typ.Kind() == reflect.Slice && b.typ.Elem().Kind() == reflect.String:
			out = append(out, &cli.StringSliceFlag{Name: b.flag, Aliases: aliases, Usage: b.usage})
		default:
			panic(fmt.Sprintf("cli: flag %s: no binding for %v", b.flag, b.typ)) // a programming error, caught by every test
		}
	}
	return out
}

// bindValues sets the options' fields from the parsed flags and arguments.
func bindValues(fields []binding, o reflect.Value, c *cli.Context) {
	args := c.Args().Slice()
	for _, b := range fields {
		v := o.FieldByIndex(b.index)
		switch {
		case b.arg != "" && b.typ.Kind() == reflect.Slice:
			v.Set(reflect.ValueOf(append([]string{}, args...)))
			args = nil
		case b.arg != "":
			if len(args) > 0 {
				v.SetString(args[0])
				args = args[1:]
			}
		case b.typ == durationType:
			v.SetInt(int64(c.Duration(b.flag)))
		case b.typ.Kind() == reflect.Bool:
			v.SetBool(c.Bool(b.flag))
		case b.typ.Kind() == reflect.String:
			v.SetString(c.String(b.flag))
		case b.typ.Kind() == reflect.Pointer:
			if c.IsSet(b.flag) {
				s := c.String(b.flag)
				v.Set(reflect.ValueOf(&s))
			}
		case b.typ.Kind() == reflect.Int:
			v.SetInt(int64(c.Int(b.flag)))
		case b.typ.Kind() == reflect.Slice:
			v.Set(reflect.ValueOf(c.StringSlice(b.flag)))
		}
	}
}

// jsonOutput is the --json flag of every verb that prints a result.
type jsonOutput struct {
	JSON bool `flag:"json" usage:"print the result as JSON"`
}

// placement are the flags of the verbs that place an extension: install and link.
type placement struct {
	Scope   string   `flag:"scope" usage:"user (~/.gemini/extensions; plugins: $GEM_HOME/extensions) or project (./.gemini/extensions; plugins: ./.gem/extensions)"`
	Consent bool     `flag:"consent" usage:"agree to the consent text without being asked (for scripts)"`
	Force   bool     `flag:"force" usage:"replace an installed extension of the same name; install despite problems running it here (a binary for another platform)"`
	Allow   []string `flag:"allow" usage:"grant by name a path its manifest asks for that leads to a secret of your home (~/.ssh, ~/.aws, another extension's folder) or writes what runs code later (~/.bashrc, ~/.local/bin), refused otherwise (repeat the flag)"`
}

func (o *placement) setDefaults() { o.Scope = "user" }

// allowed are the --allow paths, absolute (~/ expanded).
func allowed(s *session, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if p = s.env.ExpandHome(p); !filepath.IsAbs(p) {
			return nil, usagef("--allow %q: give an absolute path (or one starting with ~/)", p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out, nil
}
