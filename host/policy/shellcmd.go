package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Analysis is what a shell command line runs, as far as a static reading can tell: every
// simple command (in pipelines, lists, groups, subshells, substitutions, `sh -c` strings and
// literal `eval`s) with its words resolved (quotes and escapes removed, /bin/rm read as rm,
// wrappers such as env, command, exec, nice, timeout, xargs and sudo looked through).
type Analysis struct {
	Commands [][]string // each command's words
	// Opaque: some command cannot be known without running the shell (its name or an
	// eval/sh -c string comes from a variable or a substitution, or the line does not
	// parse). An opaque line is asked about, never allowed by a rule.
	Opaque bool
	// Redirects: the line redirects output or input (an allow rule for "ls" does not cover
	// "ls > ~/.bashrc").
	Redirects bool
}

// maxDepth bounds nested sh -c / eval strings.
const maxDepth = 8

// AnalyzeCommand reads a command line as bash would parse it.
func AnalyzeCommand(line string) Analysis {
	var a Analysis
	a.add(line, 0)
	return a
}

func (a *Analysis) add(line string, depth int) {
	if depth > maxDepth {
		a.Opaque = true
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		a.Opaque = true
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			a.Redirects = true
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true // assignments only
			}
			words := make([]string, 0, len(n.Args))
			literal := true
			for _, w := range n.Args {
				s, ok := wordLiteral(w)
				if !ok {
					literal = false
				}
				words = append(words, s)
			}
			if _, ok := wordLiteral(n.Args[0]); !ok {
				a.Opaque = true // the command's own name is computed
				return true
			}
			a.call(words, literal, depth)
		case *syntax.DeclClause, *syntax.TestClause, *syntax.ArithmCmd, *syntax.LetClause:
			// declare/local/export, [[ ]], (( )) and let run no program by name.
		case *syntax.CoprocClause:
			a.Opaque = true
		}
		return true
	})
}

// call records one simple command, looking through wrappers and into sh -c and eval.
func (a *Analysis) call(words []string, literal bool, depth int) {
	words = unwrap(words)
	if len(words) == 0 {
		return
	}
	name := words[0]
	switch {
	case name == "eval":
		if !literal {
			a.Opaque = true
			return
		}
		a.Commands = append(a.Commands, words)
		a.add(strings.Join(words[1:], " "), depth+1)
		return
	case isShell(name):
		if script, ok := shellScript(words); ok {
			a.Commands = append(a.Commands, words)
			if !literal {
				a.Opaque = true
				return
			}
			a.add(script, depth+1)
			return
		}
	case name == "source" || name == ".":
		a.Opaque = true // runs a file's commands
	}
	if isShell(name) || inlineCode(words) || findRuns(words) {
		// A shell reading its commands from a pipe or a file, an interpreter given code to
		// run (python -c, node -e, …), find deleting or running what it finds: what runs is
		// not on the line.
		a.Opaque = true
	}
	a.Commands = append(a.Commands, words)
}

// inlineFlags are the flags with which an interpreter runs the code that follows.
var inlineFlags = map[string][]string{
	"python": {"-c"}, "python3": {"-c"}, "python2": {"-c"}, "pypy": {"-c"}, "pypy3": {"-c"},
	"node": {"-e", "--eval", "-p", "--print"}, "nodejs": {"-e", "--eval", "-p", "--print"}, "bun": {"-e", "--eval", "-p", "--print"},
	"deno": {"eval"}, "perl": {"-e", "-E"}, "ruby": {"-e"}, "php": {"-r"}, "lua": {"-e"}, "tclsh": {}, "osascript": {"-e"},
	"awk": {}, "gawk": {}, "mawk": {},
}

// inlineCode reports whether words run an interpreter on code given on the line.
func inlineCode(words []string) bool {
	name := path.Base(words[0])
	flags, ok := inlineFlags[strings.TrimRight(name, "0123456789.")]
	if !ok {
		flags, ok = inlineFlags[name]
	}
	if !ok {
		return false
	}
	if strings.HasSuffix(name, "awk") {
		// awk programs call system() and pipe to commands: any awk program is code.
		return len(words) > 1
	}
	for _, w := range words[1:] {
		for _, f := range flags {
			if w == f || strings.HasPrefix(w, f) && len(f) == 2 && f[0] == '-' && !strings.HasPrefix(w, "--") {
				return true
			}
		}
	}
	return false
}

// findRuns reports whether a find command deletes or runs what it finds.
func findRuns(words []string) bool {
	if path.Base(words[0]) != "find" {
		return false
	}
	for _, w := range words[1:] {
		switch w {
		case "-delete", "-exec", "-execdir", "-ok", "-okdir":
			return true
		}
	}
	return false
}

var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "busybox": false}

func isShell(name string) bool { return shells[name] }

// shellScript returns the string a shell runs with -c (also -lc, -ec, …).
func shellScript(words []string) (string, bool) {
	for i := 1; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
			return "", false
		}
		if strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "c") {
			if i+1 < len(words) {
				return words[i+1], true
			}
			return "", false
		}
	}
	return "", false
}

// wrappers are programs that run their arguments as a command, with how many of their own
// option words take a value.
var wrappers = map[string]map[string]bool{
	"env":      {"-u": true, "--unset": true, "-C": true, "--chdir": true, "-S": false},
	"command":  {},
	"builtin":  {},
	"exec":     {"-a": true},
	"nice":     {"-n": true, "--adjustment": true},
	"nohup":    {},
	"time":     {"-f": true, "-o": true},
	"timeout":  {"-s": true, "--signal": true, "-k": true, "--kill-after": true},
	"xargs":    {"-a": true, "-d": true, "-E": true, "-I": true, "-L": true, "-n": true, "-P": true, "-s": true, "--arg-file": true, "--delimiter": true, "--max-args": true, "--max-procs": true},
	"sudo":     {"-u": true, "-g": true, "-C": true, "-D": true, "-h": true, "-p": true, "-r": true, "-t": true, "-U": true, "--user": true, "--group": true},
	"doas":     {"-u": true, "-C": true},
	"stdbuf":   {"-i": true, "-o": true, "-e": true},
	"ionice":   {"-c": true, "-n": true, "-p": true},
	"setsid":   {},
	"chrt":     {},
	"taskset":  {},
	"unbuffer": {},
	"watch":    {"-n": true, "-d": false},
	"strace":   {"-e": true, "-o": true, "-p": true},
}

// unwrap strips a leading path from the command name and looks through wrappers (and env's
// VAR=value words, and timeout's duration).
func unwrap(words []string) []string {
	for range maxDepth {
		if len(words) == 0 {
			return nil
		}
		words[0] = path.Base(words[0])
		opts, ok := wrappers[words[0]]
		if !ok {
			return words
		}
		name := words[0]
		i := 1
		for i < len(words) {
			w := words[i]
			if w == "--" {
				i++
				break
			}
			if strings.HasPrefix(w, "-") && len(w) > 1 {
				if opts[w] {
					i++ // the option's value
				}
				i++
				continue
			}
			if name == "env" && strings.Contains(w, "=") {
				i++
				continue
			}
			break
		}
		if name == "timeout" && i < len(words) {
			i++ // the duration
		}
		if (name == "chrt" || name == "taskset") && i < len(words) {
			i++ // the priority or the CPU mask
		}
		if name == "command" && len(words) > 1 && (words[1] == "-v" || words[1] == "-V") {
			return words // command -v only looks a name up
		}
		if i >= len(words) {
			return words // the wrapper alone (env prints the environment)
		}
		words = words[i:]
	}
	return words
}

// wordLiteral returns a word's value when it has no expansion: literal text, quotes and
// escapes; ok is false for parameters, substitutions, arithmetic and globs of other kinds.
func wordLiteral(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return b.String(), false
				}
				b.WriteString(unescape(lit.Value, true))
			}
		default:
			return b.String(), false
		}
	}
	return b.String(), true
}

// unescape removes backslash escapes as the shell does outside quotes (every character) or
// inside double quotes (only $ ` " \ and newline).
func unescape(s string, inDouble bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			next := s[i+1]
			if next == '\n' {
				i++
				continue
			}
			if !inDouble || strings.IndexByte("$`\"\\", next) >= 0 {
				b.WriteByte(next)
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
