package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

const bashCompletion = `# bash completion for gem; load with: source <(gem completion bash)
_gem_complete() {
  local cur words
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  words=("${COMP_WORDS[@]:0:$COMP_CWORD}")
  local opts
  if [[ "$cur" == -* ]]; then
    # a lone "-" asks for the verb's flags; compgen keeps those that start with $cur
    # (given whole, a partial --j would be parsed as an unknown flag, and -- would end
    # the flags)
    opts=$("${words[@]}" - --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
}
complete -o bashdefault -o default -F _gem_complete gem
`

const zshCompletion = `#compdef gem
# zsh completion for gem; load with: source <(gem completion zsh)
_gem() {
  local -a opts
  local -a before=("${(@)words[1,CURRENT-1]}")
  if [[ "${words[CURRENT]}" == -* ]]; then
    before+=("-")
  fi
  opts=("${(@f)$("${(@)before}" --generate-bash-completion 2>/dev/null)}")
  _describe 'values' opts
}
compdef _gem gem
`

const fishCompletion = `# fish completion for gem; load with: gem completion fish > ~/.config/fish/completions/gem.fish
function __gem_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    if string match -q -- '-*' $cur
        # the verb's flags; fish keeps those that start with $cur
        $words - --generate-bash-completion 2>/dev/null
    else
        $words --generate-bash-completion 2>/dev/null
    end
end
complete -c gem -f -a '(__gem_complete)'
`

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:        "completion",
		Usage:       "print a shell completion script (bash, zsh or fish)",
		ArgsUsage:   "bash|zsh|fish",
		Description: "EXAMPLES\n  source <(gem completion bash)\n  gem completion fish > ~/.config/fish/completions/gem.fish",
		Action: func(c *cli.Context) error {
			if err := exactly(1, "a shell name").check(c); err != nil {
				return err
			}
			script, err := completionScript(c.App, c.Args().First())
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(c.App.Writer, script)
			return err
		},
	}
}

func completionScript(app *cli.App, shell string) (string, error) {
	switch shell {
	case "bash":
		return bashCompletion, nil
	case "zsh":
		return zshCompletion, nil
	case "fish":
		return fishCompletion, nil
	}
	return "", usagef("unknown shell %q: use bash, zsh or fish", shell)
}
