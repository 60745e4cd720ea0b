package manifest

// Note is what became of one component of an extension read in another format than
// gemini-extension.json (a Claude Code plugin's): converted (Became says to what), or
// dropped (Dropped, with the reason in Became).
type Note struct {
	Component string // "mcpServers.db", "hooks.PreToolUse", "lspServers", "commands/review.md"
	Became    string
	Dropped   bool
}

func (n Note) String() string {
	if n.Dropped {
		return n.Component + ": dropped (" + n.Became + ")"
	}
	return n.Component + ": " + n.Became
}

// HookGroup is one matcher group of gem's (Gemini CLI's) hooks/hooks.json, as a converter of
// another format's hooks writes it: {"hooks": {Event: [HookGroup]}}.
type HookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []HookCommand `json:"hooks"`
}

// HookCommand is one command hook of a HookGroup; Timeout is in milliseconds.
type HookCommand struct {
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Timeout float64 `json:"timeout,omitempty"`
}
