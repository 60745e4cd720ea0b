package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/internal/fsx"
	"github.com/gemhost/gem/manifest/claude"
	"github.com/gemhost/gem/registry"
)

// PromptCommand is a commands/**/*.toml prompt command (Gemini CLI's format): `prompt`
// (required) and `description`; the name is the path below commands/ with folders joined by
// ":" (git/commit.toml is /git:commit).
type PromptCommand struct {
	Name        string `json:"name"`
	Declared    string `json:"declared"`
	Source      string `json:"source"` // user, project or extension
	Extension   string `json:"extension,omitempty"`
	Description string `json:"description"`
	Prompt      string `json:"-"`
	File        string `json:"file"`
	ext         *registry.Extension
}

// ExtensionOf is the extension that brings the command (nil for the user's and the project's).
func (c *PromptCommand) ExtensionOf() *registry.Extension { return c.ext }

// PromptCommands gathers the user's (~/.gemini/commands), the project's
// (<project>/.gemini/commands, which win over the user's) and the enabled extensions'
// commands. An extension's command whose name is taken is renamed <extension>.<name>, as
// Gemini CLI does; so are both of two extensions' commands of the same name.
func PromptCommands(env registry.Env, d *registry.Discovery) ([]*PromptCommand, []error) {
	var errs []error
	byName := map[string]*PromptCommand{}
	load := func(dir, source string, x *registry.Extension) []*PromptCommand {
		var out []*PromptCommand
		ext := registry.FormatGemini.CommandFile
		if x != nil && x.Format != nil {
			ext = x.Format.CommandFile // a Claude Code plugin's commands/*.md
		}
		filepath.WalkDir(dir, func(path string, de os.DirEntry, err error) error {
			if err != nil || de.IsDir() || !strings.HasSuffix(path, ext) {
				return nil
			}
			rel, _ := filepath.Rel(dir, path)
			name := strings.ReplaceAll(strings.TrimSuffix(rel, ext), string(filepath.Separator), ":")
			var doc struct {
				Prompt      *string `toml:"prompt"`
				Description string  `toml:"description"`
			}
			if ext == ".md" {
				data, err := x.ReadOwn(filepath.ToSlash(filepath.Join("commands", rel)))
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w (the command is skipped)", path, err))
					return nil
				}
				description, prompt, _ := claude.Command(data)
				doc.Prompt, doc.Description = &prompt, description
			} else if _, err := toml.DecodeFile(path, &doc); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w (the command is skipped)", path, err))
				return nil
			}
			if doc.Prompt == nil || strings.TrimSpace(*doc.Prompt) == "" {
				errs = append(errs, fmt.Errorf("%s: \"prompt\" is missing or empty (the command is skipped)", path))
				return nil
			}
			c := &PromptCommand{Name: name, Declared: name, Source: source, Description: doc.Description, Prompt: *doc.Prompt, File: path, ext: x}
			if x != nil {
				c.Extension = x.Name
			}
			if c.Description == "" {
				c.Description = "Custom command from " + filepath.Base(path)
			}
			out = append(out, c)
			return nil
		})
		return out
	}
	userDir := filepath.Join(env.GeminiDir(), "commands")
	projectDir := filepath.Join(commands.Workspace(env), ".gemini", "commands")
	for _, c := range load(userDir, "user", nil) {
		byName[c.Name] = c
	}
	if projectDir != userDir { // working in the home folder: the user's commands, once
		trusted := env.FolderTrusted(env.Cwd)
		for _, c := range load(projectDir, "project", nil) {
			if !trusted && strings.Contains(c.Prompt, "!{") {
				// An untrusted folder's command must not run shell commands: skipped.
				errs = append(errs, &UntrustedCommandError{File: c.File})
				continue
			}
			byName[c.Name] = c
		}
	}
	var fromExt []*PromptCommand
	for _, x := range d.Effective() {
		if x.Active() {
			fromExt = append(fromExt, load(filepath.Join(x.Path, "commands"), "extension", x)...)
		}
	}
	count := map[string]int{}
	for _, c := range fromExt {
		count[c.Name]++
	}
	for _, c := range fromExt {
		if _, taken := byName[c.Name]; taken || count[c.Name] > 1 {
			c.Name = c.Extension + "." + c.Declared
		}
		byName[c.Name] = c
	}
	out := make([]*PromptCommand, 0, len(byName))
	for _, c := range byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

// UntrustedCommandError is a project prompt command with !{…} skipped because the folder is
// not trusted.
type UntrustedCommandError struct{ File string }

func (e *UntrustedCommandError) Error() string {
	return fmt.Sprintf("%s runs shell commands (!{…}) and this folder is not trusted: the command is skipped", e.File)
}

// Expander supplies what prompt expansion needs from the host.
type Expander struct {
	Root string // files of @{…} must lie inside it
	// Shell runs a !{…} command (after policy and confirmation) and returns its output and
	// exit code.
	Shell func(ctx context.Context, c *PromptCommand, command string) (string, int, error)
}

// Expand builds the prompt of c invoked with args: @{path} becomes the file's text, !{cmd}
// the command's output ({{args}} inside it quoted for the shell context it stands in),
// {{args}} the arguments as typed; without {{args}}, the invocation is appended after a
// blank line. The template is read once: what a file or a command brings in is text, never
// scanned for @{, !{ or {{args}} (a README holding !{…} runs nothing).
func (e Expander) Expand(ctx context.Context, c *PromptCommand, args string) (string, error) {
	var b strings.Builder
	err := scanBlocks(c.Prompt, func(literal string) {
		b.WriteString(strings.ReplaceAll(literal, "{{args}}", args))
	}, func(open, body string) error {
		switch open {
		case "@{":
			text, err := e.readFile(body)
			b.WriteString(text)
			return err
		}
		cmd := quoteArgs(body, args)
		if e.Shell == nil {
			return fmt.Errorf("shell injection !{%s} is not available here", cmd)
		}
		out, code, err := e.Shell(ctx, c, cmd)
		if err != nil {
			return err
		}
		if code != 0 {
			out += fmt.Sprintf("\n[Shell command exited with code %d]", code)
		}
		b.WriteString(out)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("/%s: %w", c.Name, err)
	}
	p := b.String()
	if !strings.Contains(c.Prompt, "{{args}}") && strings.TrimSpace(args) != "" {
		p = strings.TrimRight(p, "\n") + "\n\n/" + c.Name + " " + args
	}
	return p, nil
}

// scanBlocks splits a template into literal text and @{…} / !{…} blocks (braces balanced),
// in order, calling literal and block for each.
func scanBlocks(s string, literal func(string), block func(open, body string) error) error {
	for {
		i := strings.IndexAny(s, "@!")
		for i >= 0 && (i+1 >= len(s) || s[i+1] != '{') {
			next := strings.IndexAny(s[i+1:], "@!")
			if next < 0 {
				i = -1
				break
			}
			i += 1 + next
		}
		if i < 0 {
			literal(s)
			return nil
		}
		literal(s[:i])
		open := s[i : i+2]
		depth, j := 1, i+2
		for ; j < len(s) && depth > 0; j++ {
			switch s[j] {
			case '{':
				depth++
			case '}':
				depth--
			}
		}
		if depth != 0 {
			return fmt.Errorf("%s… has no closing }", open)
		}
		if err := block(open, strings.TrimSpace(s[i+2:j-1])); err != nil {
			return err
		}
		s = s[j:]
	}
}

// quoteArgs puts args in place of each {{args}} of a shell command, quoted for where it
// stands: outside quotes as one single-quoted word, inside '…' with its quotes escaped,
// inside "…" with \, $, ` and " escaped — never able to end the quoting and run something.
func quoteArgs(cmd, args string) string {
	var b strings.Builder
	quote := byte(0) // the quote the scan is inside of: 0, '\'' or '"'
	for i := 0; i < len(cmd); {
		if strings.HasPrefix(cmd[i:], "{{args}}") {
			switch quote {
			case '\'':
				b.WriteString(strings.ReplaceAll(args, "'", `'\''`))
			case '"':
				r := strings.NewReplacer(`\`, `\\`, `$`, `\$`, "`", "\\`", `"`, `\"`)
				b.WriteString(r.Replace(args))
			default:
				b.WriteString(shellQuote(args))
			}
			i += len("{{args}}")
			continue
		}
		ch := cmd[i]
		switch {
		case ch == '\\' && quote != '\'' && i+1 < len(cmd):
			b.WriteString(cmd[i : i+2])
			i += 2
			continue
		case quote == 0 && (ch == '\'' || ch == '"'):
			quote = ch
		case quote != 0 && ch == quote:
			quote = 0
		}
		b.WriteByte(ch)
		i++
	}
	return b.String()
}

func (e Expander) readFile(path string) (string, error) {
	rel := path
	if filepath.IsAbs(rel) {
		r, err := filepath.Rel(e.Root, rel)
		if err != nil {
			return "", fmt.Errorf("@{%s}: %w", path, err)
		}
		rel = r
	}
	data, err := fsx.ReadBeneath(e.Root, rel, 1<<20)
	var tooLarge *fsx.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return "", fmt.Errorf("@{%s}: %d bytes is more than the 1 MiB a prompt may include", path, tooLarge.Size)
	case errors.Is(err, fsx.ErrOutside):
		return "", fmt.Errorf("@{%s}: it is outside the project %s", path, e.Root)
	case err != nil:
		return "", fmt.Errorf("@{%s}: %w", path, err)
	}
	return fmt.Sprintf("Content from @%s:\n%s", path, string(data)), nil
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
