package proto

import "github.com/hashicorp/go-plugin"

// The handshake both sides of gem's plugin protocol agree on. It is written by hand beside
// the generated code: plugins (package pluginsdk) and hosts (package pluginhost) both need
// it, and neither should import the other.

// ProtocolVersion is the major version of the plugin protocol (gemplugin1.proto), compared by
// go-plugin at the handshake.
const ProtocolVersion = 1

// The magic cookie tells a plugin binary it was started by a gem host; it never changes.
const (
	MagicCookieKey   = "GEM_PLUGIN_MAGIC_COOKIE"
	MagicCookieValue = "6f1d5c0e-gem-plugin-2b7a9c44"
)

// Handshake is go-plugin's handshake for gem plugins.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   MagicCookieKey,
	MagicCookieValue: MagicCookieValue,
}

// ServiceName is the name under which go-plugin dispenses the tool service.
const ServiceName = "tools"
