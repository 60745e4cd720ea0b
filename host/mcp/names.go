package mcp

import "strings"

// ToolName is the registry name of an MCP server's tool, as Gemini CLI names it:
// mcp_<server>_<tool>, sanitised by SanitizeName.
func ToolName(server, tool string) string {
	return SanitizeName("mcp_" + server + "_" + tool)
}

// SanitizeName applies Gemini CLI's rules for function names: every character outside
// [A-Za-z0-9_.:-] becomes "_" (one per character, not per byte), a name that does not start
// with a letter or "_" gets a leading "_", and a name over 63 characters is cut to its first
// 30 and last 30 characters joined by "...".
func SanitizeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == ':' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z' || s[0] == '_') {
		s = "_" + s
	}
	if len(s) > 63 {
		s = s[:30] + "..." + s[len(s)-30:]
	}
	return s
}
