package sdk

import (
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/gemhost/gem/host/launch"
	"github.com/gemhost/gem/host/tools"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/settings"
)

// Host is what a command-line program that runs the agent on its own terminal gives it
// besides Approve and Ask: what it has loaded already, where the tools' questions, progress
// and log go, and where gem's words outside a turn go. gem -p and gem shell are such
// programs (they render a Session's events as text, JSON or stream-json, and its commands);
// most programs leave Options.Host nil and get what NewAgent loads and Approve and Ask.
type Host struct {
	// Discovery and Settings are the extensions found and the settings loaded, their
	// warnings said (nil: NewAgent finds and loads them, per Options.Settings).
	Discovery *registry.Discovery
	Settings  *settings.Settings
	// Environ is the environment the agent's programs start from (nil: Options.Getenv's).
	Environ []string
	// Launcher is the program's session launcher (host/launch: its workspace and the
	// machine's facts worked out once), shared with what the program starts itself; nil:
	// NewAgent makes the agent's own.
	Launcher *launch.Launcher
	// Services are the tools' host: the terminal that asks the policy's and the tools'
	// questions, the tools' progress and log; the model's own questions (ask_user) go to
	// Options.Ask when it is set (Question.Terminal and TypedAnswer ask them on a terminal).
	// Nil: Approve and Ask answer.
	Services *tools.Services
	// Logger is gem's log (nil: none).
	Logger hclog.Logger
	// CallTimeout bounds each tool call (0: gem's default).
	CallTimeout time.Duration
	// AskWorkspace is asked whether a program with a shell-like tool may change the
	// project (nil: nobody is asked).
	AskWorkspace func(tools.WorkspaceNeed) bool
	// Warn hears the problems found outside a turn (a hook, context file, policy file or
	// server skipped while the agent or a session opens); during a turn they are its error
	// events. Say hears what hooks tell the user; Progress long waits (MCP servers started
	// for the first time). Nil: not told.
	Warn     func(error)
	Say      func(string)
	Progress func(string)
	// History is what the user typed at the program's prompt, oldest first: what /history
	// shows (nil: a session's prompts, none without a session).
	History func() []string
}

// host is the agent's Host (an empty one when the program gives none).
func (a *Agent) host() *Host {
	if a.opts.Host == nil {
		return &Host{}
	}
	return a.opts.Host
}
