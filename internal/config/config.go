// Package config is gem's one reader of the process environment. Every variable gem reads
// is listed in Vars with what it means (docs/environment.md's table is this list, and a test
// keeps them equal); code reads them through Getenv, or through a registry.Env made from
// FromOS, never with os.Getenv. Tests swap the whole environment with registry.NewEnv.
package config

import (
	"os"
	"os/user"
)

// Var is one environment variable gem reads.
type Var struct {
	Name    string
	Meaning string
}

// Vars are the variables gem reads, in docs/environment.md's order.
var Vars = []Var{
	{"GEM_HOME", "gem's own state (default `~/.gem`): native extensions, discovery index, consent write-roots index, logs, tool cache, shell-tools output (`io/`)"},
	{"GEMINI_CLI_HOME", "replaces the home folder that holds `.gemini`, as in Gemini CLI"},
	{"GEM_PLATFORM", "overrides the platform used in `${platform}`"},
	{"GEM_ARCH", "overrides the architecture used in `${arch}`"},
	{"GEM_ENGINE", "path of the gem-engine binary (default: beside `gem`)"},
	{"GEMINI_API_KEY", "the Gemini API key for `gem -p` and the shell"},
	{"GOOGLE_API_KEY", "the Gemini API key when `GEMINI_API_KEY` is unset"},
	{"GEM_GEMINI_BASE_URL", "another Gemini API endpoint (a proxy, or the tests' fake)"},
	{"GEM_SANDBOX", "`off` disables the sandbox"},
	{"GEM_SANDBOX_STRICT", "`1` refuses to run what the kernel cannot confine as asked"},
	{"GEM_SANDBOX_NAMESPACES", "`off` turns off the namespace layer only (private view, own `/proc`, network namespace)"},
	{"GEM_SANDBOX_HELPER", "the re-exec helper (default: the running `gem` itself, which names itself here for the `gem-engine` it starts; `gem-engine` started on its own takes the `gem` beside it)"},
	{"GEM_SANDBOX_HELPER_FD", "set by `gem` for the `gem-engine` it starts: the descriptor of its own image, which the engine runs as the helper (never the file at the helper's path); not for users"},
	{"GEM_GITHUB_API_URL", "GitHub API base for release lookups (tests point it at a local server)"},
	{"GEM_MCP_REGISTRY_URL", "the MCP registry gem mcp search and gem mcp install read (default the public registry)"},
	{"GITHUB_TOKEN", "sent to the GitHub API and GitHub downloads only"},
	{"DOCKER_CONFIG", "the folder of Docker's `config.json`, whose credentials (and credential helpers) `oci://` registries are reached with"},
	{"REGISTRY_AUTH_FILE", "Podman's credentials file for `oci://` registries (also `$XDG_RUNTIME_DIR/containers/auth.json`, `~/.config/containers/auth.json`)"},
	{"XDG_RUNTIME_DIR", "where Podman keeps its credentials (`containers/auth.json`)"},
	{"GEM_MIRROR", "a mirror of locked extensions (an OCI layout folder or `.tar` from `gem ext bundle`, or `oci://registry/repository`) tried before every origin"},
	{"GEM_WORKSPACE", "the workspace programs may write, named explicitly (default: the git top level of the current folder); needed to use `$HOME`, `/`, or a folder holding `~/.gem` or an extensions root"},
	{"GEM_MCP_START_TIMEOUT", "how long an MCP server may take to start (launch, initialize, tool list); default `30s`"},
	{"GEM_MCP_CLIENT_ID_URL", "gem's client ID metadata document (an `https` URL you publish) for `gem mcp auth`, used with authorization servers that accept them before dynamic registration"},
	{"BROWSER", "the command `gem mcp auth` opens the sign-in page with (`%s` stands for the URL, else it comes last); unset: `xdg-open` on a desktop, else the URL is only printed"},
	{"DISPLAY", "set (or `WAYLAND_DISPLAY`): a desktop, where `gem mcp auth` opens the sign-in page with `xdg-open`"},
	{"WAYLAND_DISPLAY", "as `DISPLAY`"},
	{"GEM_LOG", "the log level of `$GEM_HOME/logs/gem.log`: `debug`, `trace`, `info` (default), `warn`, `error`"},
	{"PATH", "where launchers and toolchains are found; programs get it with the folders their sandbox cannot read left out"},
	{"GEM_MODEL_TOKEN_LIMIT", "the model's input limit in tokens, for compression (default: the model's, 1,048,576 for Gemini 2.x)"},
	{"GEM_WEB_FETCH_ALLOW", "private addresses or CIDR prefixes `web_fetch` may reach all the same (comma-separated)"},
	{"GEMINI_CLI_SYSTEM_SETTINGS_PATH", "Gemini CLI's system settings file (default `/etc/gemini-cli/settings.json`), read last by `gem settings` and the model side"},
	{"GEMINI_TELEMETRY_ENABLED", "`true` or `1` turns telemetry on, anything else off, over `telemetry.enabled` ([telemetry.md](telemetry.md))"},
	{"GEMINI_TELEMETRY_TARGET", "overrides `telemetry.target` (gem takes `local` only)"},
	{"GEMINI_TELEMETRY_OTLP_ENDPOINT", "overrides `telemetry.otlpEndpoint`, the collector's URL"},
	{"OTEL_EXPORTER_OTLP_ENDPOINT", "the collector's URL when `GEMINI_TELEMETRY_OTLP_ENDPOINT` is unset"},
	{"GEMINI_TELEMETRY_OTLP_PROTOCOL", "overrides `telemetry.otlpProtocol`: `grpc` or `http`"},
	{"GEMINI_TELEMETRY_LOG_PROMPTS", "`true` or `1` exports the prompt's text, over `telemetry.logPrompts` (default off)"},
	{"NO_COLOR", "set: no colour in gem's output (as `--no-color`)"},
	{"CLICOLOR_FORCE", "set (and not `0`): colour even when stdout is not a terminal"},
	{"GEM_TEST_CRASH_AT", "tests only: the install step at which gem stops as if it crashed"},
}

// Getenv returns the value of an environment variable (one of Vars, or a variable an
// extension's manifest or a sandbox profile names).
func Getenv(name string) string { return os.Getenv(name) }

// Environ returns the whole environment, for the programs gem starts (the sandbox filters it).
func Environ() []string { return os.Environ() }

// Home returns the user's home folder ($HOME).
func Home() (string, error) { return os.UserHomeDir() }

// AccountHome returns the home folder the user's account names (/etc/passwd), which tools
// such as ssh use whatever $HOME says; "" when it cannot be read.
func AccountHome() string {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return u.HomeDir
}

// Dirs returns the user's home and the current directory as $PWD spells it (os.Getwd);
// paths.NewLayout, where it enters gem, resolves its links.
func Dirs() (home, cwd string, err error) {
	if home, err = os.UserHomeDir(); err != nil {
		return "", "", err
	}
	cwd, err = os.Getwd()
	return home, cwd, err
}
