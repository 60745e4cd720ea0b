package mcpregistry

// The registry's v0.1 wire format, field for field as its published types declare it
// (github.com/modelcontextprotocol/registry, pkg/api/v0 and pkg/model, schema 2025-12-11).
// They are written here rather than imported: that module's go.mod raises the Gemini
// client's cloud.google.com/go/auth to a version that links OpenTelemetry into gem-engine,
// whose start every command pays.

// Registry types, transports and the public package registries' base URLs.
const (
	RegistryTypeNPM   = "npm"
	RegistryTypePyPI  = "pypi"
	RegistryTypeOCI   = "oci"
	RegistryTypeNuGet = "nuget"
	RegistryTypeMCPB  = "mcpb"
	RegistryTypeCargo = "cargo"

	RegistryURLNPM  = "https://registry.npmjs.org"
	RegistryURLPyPI = "https://pypi.org"

	TransportStdio          = "stdio"
	TransportStreamableHTTP = "streamable-http"
	TransportSSE            = "sse"

	ArgumentPositional = "positional"
	ArgumentNamed      = "named"
)

// ServerList is GET /v0.1/servers' answer.
type ServerList struct {
	Servers  []ServerResult `json:"servers"`
	Metadata struct {
		NextCursor string `json:"nextCursor,omitempty"`
		Count      int    `json:"count"`
	} `json:"metadata"`
}

// ServerResult is one server with the registry's metadata.
type ServerResult struct {
	Server Server `json:"server"`
	Meta   struct {
		Official *struct {
			Status   string `json:"status"`
			IsLatest bool   `json:"isLatest"`
		} `json:"io.modelcontextprotocol.registry/official,omitempty"`
	} `json:"_meta"`
}

// Server is a server.json.
type Server struct {
	Schema      string      `json:"$schema"`
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Title       string      `json:"title,omitempty"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Transport `json:"remotes,omitempty"`
}

// Repository is where a server's source is.
type Repository struct {
	URL       string `json:"url,omitempty"`
	Source    string `json:"source,omitempty"`
	Subfolder string `json:"subfolder,omitempty"`
}

// Package is one way to run a server from a package registry.
type Package struct {
	RegistryType         string          `json:"registryType"`
	RegistryBaseURL      string          `json:"registryBaseUrl,omitempty"`
	Identifier           string          `json:"identifier"`
	Version              string          `json:"version,omitempty"`
	FileSHA256           string          `json:"fileSha256,omitempty"`
	RunTimeHint          string          `json:"runtimeHint,omitempty"`
	Transport            Transport       `json:"transport"`
	RuntimeArguments     []Argument      `json:"runtimeArguments,omitempty"`
	PackageArguments     []Argument      `json:"packageArguments,omitempty"`
	EnvironmentVariables []KeyValueInput `json:"environmentVariables,omitempty"`
}

// Transport is how a package speaks (stdio), or a remote's address.
type Transport struct {
	Type      string           `json:"type"`
	URL       string           `json:"url,omitempty"`
	Headers   []KeyValueInput  `json:"headers,omitempty"`
	Variables map[string]Input `json:"variables,omitempty"`
}

// Input is a value the user may be asked for.
type Input struct {
	Description string   `json:"description,omitempty"`
	IsRequired  bool     `json:"isRequired,omitempty"`
	Format      string   `json:"format,omitempty"`
	Value       string   `json:"value,omitempty"`
	IsSecret    bool     `json:"isSecret,omitempty"`
	Default     string   `json:"default,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	Choices     []string `json:"choices,omitempty"`
}

// InputWithVariables is an input whose value names {variables}.
type InputWithVariables struct {
	Input
	Variables map[string]Input `json:"variables,omitempty"`
}

// KeyValueInput is an environment variable or a header.
type KeyValueInput struct {
	InputWithVariables
	Name string `json:"name"`
}

// Argument is a runtime or package argument.
type Argument struct {
	InputWithVariables
	Type       string `json:"type"`
	Name       string `json:"name,omitempty"`
	ValueHint  string `json:"valueHint,omitempty"`
	IsRepeated bool   `json:"isRepeated,omitempty"`
}
