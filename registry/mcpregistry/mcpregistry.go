// Package mcpregistry reads the MCP registry (its v0.1 API: GET /v0.1/servers?search=&cursor=
// &limit=, GET /v0.1/servers/{name}/versions/{version|latest}; types.go mirrors its
// published types), and turns a server.json into gem's extension model: a
// gemini-extension.json with one MCP server, its inputs as settings.
//
// What each entry becomes (the first package gem can run, else the first remote):
//   - npm: npx -y [--registry <registryBaseUrl>] <runtimeArguments> <identifier>@<version>
//     <packageArguments>;
//   - pypi: uvx [--index-url <registryBaseUrl>] <runtimeArguments> <identifier>==<version>
//     <packageArguments>;
//   - oci: docker run -i --rm [-e NAME]… <runtimeArguments> <identifier>[:<version>]
//     <packageArguments>; runtime arguments that would widen the container (-v, --mount,
//     --privileged, --network, --cap-add, --device, --pid, --ipc, --userns, --security-opt,
//     -u/--user) are refused. gem's sandbox never grants the docker socket (it would give
//     root): an oci server runs where the user's docker is reachable without it (rootless
//     docker, podman's docker) or not at all, said at install;
//   - mcpb: the bundle is downloaded, its SHA-256 checked against fileSha256 (required:
//     without it, or when it differs, nothing installs) and unpacked into the extension's
//     bundle/ folder (nothing in it is read as the extension's own); its manifest.json's
//     server.mcp_config runs with ${__dirname} as that folder;
//   - remotes: streamable-http is an httpUrl server, sse a url one, with their headers;
//   - nuget (dnx) and cargo are said and not run.
//
// environmentVariables, header values and {variables} of arguments, URLs and headers become
// settings of the extension (asked at install, gem ext config; isSecret ones sealed); an
// input with a fixed value is written as it is. Inputs are the user's answers, never the
// user's environment: an entry mapping TOKEN to {GEMINI_API_KEY} makes a setting
// GEMINI_API_KEY, which gem answers from what the user set and never from their
// GEMINI_API_KEY (a setting's variable is the setting's alone, registry.Extension.Expander);
// an entry (or an mcpb bundle's mcp_config) whose values name a variable that is not one of
// its settings (a fixed value "$GITHUB_TOKEN") is refused (EnvironmentRefError): gem's
// manifests have no escape for '$', so it would read the user's variable.
package mcpregistry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gemhost/gem/manifest"
)

// DefaultURL is the public MCP registry (GEM_MCP_REGISTRY_URL replaces it).
const DefaultURL = "https://registry.modelcontextprotocol.io"

// Client reads a registry.
type Client struct {
	BaseURL string // DefaultURL when empty
	HTTP    *http.Client
}

// NotFoundError is a server (or version) the registry does not have.
type NotFoundError struct{ Name, Version string }

func (e *NotFoundError) Error() string {
	if e.Version != "" && e.Version != "latest" {
		return fmt.Sprintf("the MCP registry has no version %s of %q", e.Version, e.Name)
	}
	return fmt.Sprintf("the MCP registry has no server %q", e.Name)
}

func (c *Client) base() string {
	if c.BaseURL != "" {
		return strings.TrimSuffix(c.BaseURL, "/")
	}
	return DefaultURL
}

func (c *Client) get(ctx context.Context, u string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("the MCP registry at %s cannot be reached: %w", c.base(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, fmt.Errorf("the MCP registry answered %s for %s", resp.Status, u)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(v); err != nil {
		return resp.StatusCode, fmt.Errorf("the MCP registry's answer for %s is not its JSON: %w", u, err)
	}
	return resp.StatusCode, nil
}

// Search lists the latest version of the servers whose name matches text, at most limit.
func (c *Client) Search(ctx context.Context, text string, limit int) ([]ServerResult, error) {
	var out []ServerResult
	cursor := ""
	for len(out) < limit {
		q := url.Values{"search": {text}, "version": {"latest"}, "limit": {strconv.Itoa(min(limit-len(out), 100))}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var page ServerList
		if _, err := c.get(ctx, c.base()+"/v0.1/servers?"+q.Encode(), &page); err != nil {
			return nil, err
		}
		out = append(out, page.Servers...)
		if page.Metadata.NextCursor == "" || len(page.Servers) == 0 {
			break
		}
		cursor = page.Metadata.NextCursor
	}
	return out, nil
}

// Get is version of the server name ("" or "latest": its latest).
func (c *Client) Get(ctx context.Context, name, version string) (*Server, error) {
	if version == "" {
		version = "latest"
	}
	var r ServerResult
	u := c.base() + "/v0.1/servers/" + url.PathEscape(name) + "/versions/" + url.PathEscape(version)
	if code, err := c.get(ctx, u, &r); err != nil {
		if code == http.StatusNotFound {
			return nil, &NotFoundError{Name: name, Version: version}
		}
		return nil, err
	}
	if r.Server.Name != name || (version != "latest" && r.Server.Version != version) {
		return nil, fmt.Errorf("the MCP registry answered %s %s for %s %s: it is not installed", r.Server.Name, r.Server.Version, name, version)
	}
	return &r.Server, nil
}

// Kinds says how a server can run: its packages' registry types and "remote".
func Kinds(s *Server) []string {
	var out []string
	for _, p := range s.Packages {
		out = append(out, p.RegistryType)
	}
	if len(s.Remotes) > 0 {
		out = append(out, "remote")
	}
	return out
}

// ExtensionName is the extension a server installs as: the part of its name after the
// slash, in gem's name alphabet.
func ExtensionName(name string) string {
	_, short, ok := strings.Cut(name, "/")
	if !ok {
		short = name
	}
	var b strings.Builder
	for _, r := range strings.ToLower(short) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-.")
}

// Plan is what installing a server takes: the manifest to write, and for an mcpb package
// the bundle to download and check.
type Plan struct {
	Manifest []byte
	Bundle   *Bundle // nil unless the server is an mcpb package
	Kind     string  // npm, pypi, oci, mcpb, remote
	Notes    []string
}

// Bundle is an mcpb package to fetch: its URL and the SHA-256 it must have.
type Bundle struct {
	URL, SHA256 string
}

// UnsupportedError is a server none of whose packages or remotes gem can run.
type UnsupportedError struct{ Name, Why string }

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s cannot be installed: %s", e.Name, e.Why)
}

var (
	variableRef   = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)
	userConfigRef = regexp.MustCompile(`\$\{user_config\.([A-Za-z0-9_]+)\}`)
)

// converter gathers the settings a server's inputs become.
type converter struct {
	settings []map[string]any
	seen     map[string]bool
	notes    []string
}

func envName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// setting makes name a setting of the extension (once) and returns its reference.
func (c *converter) setting(name string, in Input) string {
	v := envName(name)
	if !c.seen[v] {
		c.seen[v] = true
		desc := in.Description
		if desc == "" {
			desc = name
		}
		s := map[string]any{"name": name, "description": desc, "envVar": v, "sensitive": in.IsSecret}
		if in.Default != "" && !in.IsSecret {
			s["default"] = in.Default
		}
		c.settings = append(c.settings, s)
	}
	return "${" + v + "}"
}

// value is an input's value in gem's terms: its fixed value with {variables} as settings,
// else a setting of its own named name.
func (c *converter) value(name string, in InputWithVariables) string {
	if in.Value == "" {
		return c.setting(name, in.Input)
	}
	return variableRef.ReplaceAllStringFunc(in.Value, func(m string) string {
		v := variableRef.FindStringSubmatch(m)[1]
		return c.setting(v, in.Variables[v])
	})
}

func (c *converter) arguments(args []Argument) ([]string, error) {
	var out []string
	for i, a := range args {
		key := a.ValueHint
		if key == "" {
			key = strings.TrimLeft(a.Name, "-")
		}
		if key == "" {
			key = fmt.Sprintf("arg%d", i+1)
		}
		in := a.InputWithVariables
		var val string
		switch {
		case in.Value != "":
			val = c.value(key, in)
		case in.Default != "":
			val = in.Default
		case a.Type == ArgumentPositional || in.IsRequired || a.ValueHint != "" || in.Format != "":
			val = c.setting(key, in.Input)
		}
		if a.Type == ArgumentNamed {
			if a.Name == "" || !strings.HasPrefix(a.Name, "-") {
				return nil, fmt.Errorf("named argument %q: a flag starts with '-'", a.Name)
			}
			out = append(out, a.Name)
		}
		if val != "" {
			out = append(out, val)
		}
	}
	return out, nil
}

func (c *converter) env(vars []KeyValueInput) map[string]any {
	if len(vars) == 0 {
		return nil
	}
	out := map[string]any{}
	for _, kv := range vars {
		in := kv.InputWithVariables
		if in.Value == "" {
			c.setting(kv.Name, in.Input) // the setting is given to the server as its own variable
			continue
		}
		out[kv.Name] = c.value(kv.Name, in)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// dockerWidening are docker run flags that would give the container more than the run's
// own pipes: refused in an entry's runtime arguments.
var dockerWidening = []string{"-v", "--volume", "--mount", "--privileged", "--network", "--net", "--cap-add", "--device",
	"--pid", "--ipc", "--userns", "--security-opt", "-u", "--user", "--volumes-from", "--uts", "--cgroupns", "--group-add"}

// Convert plans the install of server s.
func Convert(s *Server) (*Plan, error) {
	c := &converter{seen: map[string]bool{}}
	name := ExtensionName(s.Name)
	if name == "" {
		return nil, &UnsupportedError{Name: s.Name, Why: "its name gives no extension name"}
	}
	server := map[string]any{}
	plan := &Plan{}
	var skipped []string
	for _, p := range s.Packages {
		if p.Transport.Type != "" && p.Transport.Type != "stdio" {
			skipped = append(skipped, p.RegistryType+" over "+p.Transport.Type)
			continue
		}
		if strings.HasPrefix(p.Identifier, "-") || strings.HasPrefix(p.Version, "-") {
			return nil, &UnsupportedError{Name: s.Name, Why: fmt.Sprintf("package %q %q looks like a flag", p.Identifier, p.Version)}
		}
		rt, err := c.arguments(p.RuntimeArguments)
		if err != nil {
			return nil, &UnsupportedError{Name: s.Name, Why: err.Error()}
		}
		pa, err := c.arguments(p.PackageArguments)
		if err != nil {
			return nil, &UnsupportedError{Name: s.Name, Why: err.Error()}
		}
		var args []string
		switch p.RegistryType {
		case RegistryTypeNPM:
			server["command"] = "npx"
			args = []string{"-y"}
			if p.RegistryBaseURL != "" && p.RegistryBaseURL != RegistryURLNPM {
				args = append(args, "--registry", p.RegistryBaseURL)
			}
			spec := p.Identifier
			if p.Version != "" {
				spec += "@" + p.Version
			}
			args = append(append(append(args, rt...), spec), pa...)
		case RegistryTypePyPI:
			server["command"] = "uvx"
			if p.RegistryBaseURL != "" && p.RegistryBaseURL != RegistryURLPyPI {
				args = append(args, "--index-url", p.RegistryBaseURL)
			}
			spec := p.Identifier
			if p.Version != "" {
				spec += "==" + p.Version
			}
			args = append(append(append(args, rt...), spec), pa...)
		case RegistryTypeOCI:
			for _, a := range rt {
				flag, _, _ := strings.Cut(a, "=")
				if len(flag) > 2 && flag[0] == '-' && flag[1] != '-' {
					return nil, &UnsupportedError{Name: s.Name, Why: fmt.Sprintf("its docker runtime argument %q joins short flags: give each on its own", a)}
				}
				for _, w := range dockerWidening {
					if flag == w {
						return nil, &UnsupportedError{Name: s.Name, Why: fmt.Sprintf("its docker runtime argument %q would widen the container", a)}
					}
				}
			}
			server["command"] = "docker"
			args = []string{"run", "-i", "--rm"}
			for _, kv := range p.EnvironmentVariables {
				args = append(args, "-e", kv.Name)
			}
			image := p.Identifier
			if p.Version != "" && !strings.Contains(image[strings.LastIndex(image, "/")+1:], ":") && !strings.Contains(image, "@") {
				image += ":" + p.Version
			}
			args = append(append(append(args, rt...), image), pa...)
			plan.Notes = append(plan.Notes, "docker runs the server's container: gem's sandbox never grants the docker socket, so it runs only where docker needs none (rootless)")
		case RegistryTypeMCPB:
			if p.FileSHA256 == "" {
				return nil, &UnsupportedError{Name: s.Name, Why: "its mcpb package has no fileSha256 to check the download against"}
			}
			if !strings.HasPrefix(p.Identifier, "https://") && !strings.HasPrefix(p.Identifier, "http://") {
				return nil, &UnsupportedError{Name: s.Name, Why: fmt.Sprintf("its mcpb package %q is not a URL", p.Identifier)}
			}
			plan.Bundle = &Bundle{URL: p.Identifier, SHA256: strings.ToLower(p.FileSHA256)}
		default:
			skipped = append(skipped, p.RegistryType)
			continue
		}
		if env := c.env(p.EnvironmentVariables); env != nil {
			server["env"] = env
		}
		if args != nil {
			server["args"] = args
		}
		plan.Kind = p.RegistryType
		break
	}
	if plan.Kind == "" {
		for _, r := range s.Remotes {
			u := variableRef.ReplaceAllStringFunc(r.URL, func(m string) string {
				v := variableRef.FindStringSubmatch(m)[1]
				return c.setting(v, r.Variables[v])
			})
			switch r.Type {
			case "streamable-http":
				server["httpUrl"] = u
			case "sse":
				server["url"] = u
			default:
				skipped = append(skipped, "remote "+r.Type)
				continue
			}
			if len(r.Headers) > 0 {
				h := map[string]any{}
				for _, kv := range r.Headers {
					h[kv.Name] = c.value(kv.Name, kv.InputWithVariables)
				}
				server["headers"] = h
			}
			plan.Kind = "remote"
			break
		}
	}
	for _, sk := range skipped {
		plan.Notes = append(plan.Notes, sk+": gem does not run it")
	}
	if plan.Kind == "" {
		why := "it has no packages or remotes"
		if len(skipped) > 0 {
			why = "gem runs npm, pypi, oci and mcpb packages and http/sse remotes; it has " + strings.Join(skipped, ", ")
		}
		return nil, &UnsupportedError{Name: s.Name, Why: why}
	}
	doc := map[string]any{"name": name, "version": s.Version, "description": s.Description}
	if plan.Bundle == nil {
		doc["mcpServers"] = map[string]any{name: server}
	}
	if len(c.settings) > 0 {
		doc["settings"] = c.settings
	}
	var err error
	if plan.Manifest, err = json.MarshalIndent(doc, "", "  "); err != nil {
		return nil, err
	}
	if err := CheckVariables(s.Name, plan.Manifest); err != nil {
		return nil, err
	}
	return plan, nil
}

// EnvironmentRefError is a registry entry (or its mcpb bundle) whose values name a variable
// of the user's environment: an entry's values are literal, its inputs are settings, and
// nothing of it may read the user's environment.
type EnvironmentRefError struct{ Name, Variable string }

func (e *EnvironmentRefError) Error() string {
	return fmt.Sprintf("%s cannot be installed: its values name $%s, a variable of your environment; a registry entry gets only the settings you give it", e.Name, e.Variable)
}

// CheckVariables refuses a converted manifest (JSON) that references a variable other than
// its own settings' and those every program inherits (HOME, PATH, LANG…): gem's manifests
// have no escape for '$', so a value of the entry written as $GITHUB_TOKEN would otherwise
// read the user's GITHUB_TOKEN.
func CheckVariables(name string, manifestJSON []byte) error {
	var doc struct {
		Settings []struct {
			EnvVar string `json:"envVar"`
		} `json:"settings"`
	}
	if err := json.Unmarshal(manifestJSON, &doc); err != nil {
		return err
	}
	var own []string
	for _, s := range doc.Settings {
		own = append(own, s.EnvVar)
	}
	for _, v := range manifest.ReferencedVars(string(manifestJSON)) {
		if !slices.Contains(own, v) && !manifest.InheritedByDefault(v) {
			return &EnvironmentRefError{Name: name, Variable: v}
		}
	}
	return nil
}

// BundleDir is the folder of the extension an mcpb bundle is unpacked into: never its root,
// so nothing the bundle carries (a gemini-extension.json, hooks/, commands/, skills/, a
// context file) is read as the extension's own; only the server its manifest declares runs.
const BundleDir = "bundle"

// BundleServer is the MCP server an unpacked mcpb bundle's manifest.json declares
// (server.mcp_config), as a gemini-extension.json server: ${__dirname} is the bundle's
// folder (${extensionPath}/bundle); user_config values become settings.
func BundleServer(manifestJSON []byte) (map[string]any, []map[string]any, error) {
	var m struct {
		Server struct {
			MCPConfig struct {
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			} `json:"mcp_config"`
		} `json:"server"`
		UserConfig map[string]struct {
			Title       string `json:"title"`
			Description string `json:"description"`
			Sensitive   bool   `json:"sensitive"`
		} `json:"user_config"`
	}
	if err := json.Unmarshal(manifestJSON, &m); err != nil {
		return nil, nil, fmt.Errorf("manifest.json: %w", err)
	}
	if m.Server.MCPConfig.Command == "" {
		return nil, nil, errors.New("manifest.json: server.mcp_config.command is missing")
	}
	fix := func(s string) string {
		s = strings.ReplaceAll(s, "${__dirname}", "${extensionPath}/"+BundleDir)
		return userConfigRef.ReplaceAllStringFunc(s, func(x string) string {
			return "${" + envName(x[len("${user_config."):len(x)-1]) + "}"
		})
	}
	server := map[string]any{"command": fix(m.Server.MCPConfig.Command)}
	var args []string
	for _, a := range m.Server.MCPConfig.Args {
		args = append(args, fix(a))
	}
	if args != nil {
		server["args"] = args
	}
	if len(m.Server.MCPConfig.Env) > 0 {
		env := map[string]any{}
		for k, v := range m.Server.MCPConfig.Env {
			env[k] = fix(v)
		}
		server["env"] = env
	}
	var settings []map[string]any
	for k, u := range m.UserConfig {
		title := u.Title
		if title == "" {
			title = k
		}
		settings = append(settings, map[string]any{"name": title, "description": u.Description, "envVar": envName(k), "sensitive": u.Sensitive})
	}
	return server, settings, nil
}
