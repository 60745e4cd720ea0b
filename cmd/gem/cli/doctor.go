package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/cmd/gem/internal/advice"
	"github.com/gemhost/gem/cmd/gem/internal/view"
	"github.com/gemhost/gem/host/binfmt"
	"github.com/gemhost/gem/host/commands"
	"github.com/gemhost/gem/host/sandbox"
	"github.com/gemhost/gem/internal/paths"
	"github.com/gemhost/gem/internal/plural"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/registry"
	"github.com/gemhost/gem/registry/install"
)

type doctorReport struct {
	Paths      map[string]string `json:"paths"`
	Sandbox    doctorSandbox     `json:"sandbox"`
	Trust      doctorTrust       `json:"trust"`
	Extensions []doctorExtension `json:"extensions"`
	Problems   int               `json:"problems"`
}

// doctorTrust is the current folder's trust and what it makes gem skip.
type doctorTrust struct {
	Folder  string              `json:"folder"`
	Trusted bool                `json:"trusted"`
	Rule    *registry.TrustRule `json:"rule,omitempty"`
	Skipped []doctorSkipped     `json:"skipped,omitempty"`
}

type doctorSkipped struct {
	Name   string         `json:"name"`
	Path   string         `json:"path"`
	Reason registry.Block `json:"reason"`
	Fix    string         `json:"fix"`
}

type doctorSandbox struct {
	sandbox.Report
	Facts    sandbox.Facts `json:"facts"` // what the plans of this machine are made from
	Helper   string        `json:"helper"`
	Disabled bool          `json:"disabled"`
	Strict   bool          `json:"strict"`
}

type doctorExtension struct {
	Name     string            `json:"name"`
	Path     string            `json:"path"`
	Enabled  bool              `json:"enabled"`
	Problems manifest.Problems `json:"problems"`
}

type doctorOptions struct {
	jsonOutput
}

func doctorCommand(f *Factory) *cli.Command {
	return verb(f, "doctor", "show what gem enforces on this machine, its paths, and problems with installed extensions", doctor,
		"gem doctor", "gem doctor --json | jq .sandbox")
}

func doctor(_ context.Context, s *session, o doctorOptions) error {
	rep := doctorReport{Paths: doctorPaths(s), Sandbox: doctorSandboxReport()}
	d := s.warnDiscovery(registry.Discover(s.env, registry.Providers))
	rep.Trust.Folder = s.env.Cwd
	rep.Trust.Trusted, rep.Trust.Rule = s.env.FolderTrust(s.env.Cwd)
	for _, x := range d.Skipped() {
		rep.Trust.Skipped = append(rep.Trust.Skipped, doctorSkipped{Name: x.Name, Path: x.Dir, Reason: x.Blocked, Fix: advice.Explain(x)})
	}
	for _, x := range d.Effective() {
		ps := installedProblems(s, x)
		rep.Extensions = append(rep.Extensions, doctorExtension{Name: x.Name, Path: x.Path, Enabled: x.Enabled, Problems: ps})
		for _, p := range ps {
			if p.Severity == manifest.Error {
				rep.Problems++
			}
		}
	}
	err := render(s, o.JSON, rep, func() error {
		printDoctor(s.stdout, rep, s.io.ColorEnabled())
		return nil
	})
	if err == nil && rep.Problems > 0 {
		return exitError{code: 1, msg: fmt.Sprintf("%s with installed extensions", plural.Count(rep.Problems, "problem"))}
	}
	return err
}

// doctorPathKeys are the paths doctor shows, in order: the JSON key and the human label.
var doctorPathKeys = [][2]string{
	{"platform", "platform"}, {"gemHome", "GEM_HOME"}, {"geminiExtensions", "gemini extensions"},
	{"gemEngine", "gem-engine"}, {"log", "log"}, {"auditLog", "audit log"}, {"userPolicy", "user policy"},
	{"workspacePolicy", "workspace policy"}, {"extensionData", "extension data"}, {"trustedFolders", "trusted folders"},
}

func doctorPaths(s *session) map[string]string {
	paths := map[string]string{
		"gemHome":          s.env.GemHome,
		"geminiExtensions": s.env.GeminiExtensionsDir(),
		"log":              filepath.Join(s.env.LogDir(), "gem.log"),
		"auditLog":         s.env.AuditLog(),
		"userPolicy":       s.env.UserPolicies(),
		"workspacePolicy":  paths.Workspace(s.launch().Workspace()).GemPolicies(),
		"extensionData":    filepath.Dir(s.env.DataDir("x")),
		"trustedFolders":   s.env.TrustedFoldersFile(),
		"platform":         goruntime.GOOS + "/" + goruntime.GOARCH,
	}
	if self, err := os.Executable(); err == nil {
		paths["gemEngine"] = self
	}
	return paths
}

func doctorSandboxReport() doctorSandbox {
	f := sandbox.ProbeFacts()
	sb := doctorSandbox{Report: sandbox.CapabilitiesOf(f), Facts: f, Helper: f.Helper, Disabled: f.Disabled, Strict: sandbox.Strict()}
	if sb.Helper == "" {
		sb.Missing = append(sb.Missing, "the sandbox helper (gem beside gem-engine): plugins and MCP servers run unrestricted")
	}
	return sb
}

func printDoctor(w io.Writer, rep doctorReport, color bool) {
	printDoctorSandbox(w, rep.Sandbox)
	fmt.Fprintln(w, "\nThis folder")
	if rep.Trust.Trusted {
		fmt.Fprintf(w, "  %s is trusted (%s %s)\n", rep.Trust.Folder, rep.Trust.Rule.Level, rep.Trust.Rule.Path)
	} else {
		fmt.Fprintf(w, "  %s is not trusted: project extensions, policy allow rules and !{…} commands are skipped (gem trust)\n", rep.Trust.Folder)
	}
	for _, sk := range rep.Trust.Skipped {
		fmt.Fprintf(w, "  skipped: %s\n", sk.Fix)
	}
	fmt.Fprintln(w, "\nPaths")
	for _, k := range doctorPathKeys {
		if v, ok := rep.Paths[k[0]]; ok {
			fmt.Fprintf(w, "  %-18s %s\n", k[1], v)
		}
	}
	fmt.Fprintln(w, "\nExtensions")
	if len(rep.Extensions) == 0 {
		fmt.Fprintln(w, "  none installed")
	}
	for _, x := range rep.Extensions {
		state := view.Paint(color, view.Green, "ok")
		if len(x.Problems) > 0 {
			state = view.Paint(color, view.Red, plural.Count(len(x.Problems), "problem"))
		}
		fmt.Fprintf(w, "  %-20s %s\n", x.Name, state)
		for _, p := range x.Problems {
			fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(p.String(), "\n", "\n    "))
		}
	}
}

func printDoctorSandbox(w io.Writer, s doctorSandbox) {
	yes := func(b bool) string {
		if b {
			return "enforced"
		}
		return "NOT enforced"
	}
	fmt.Fprintln(w, "Machine")
	for _, l := range s.Facts.Text() {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintln(w, "\nSandbox (gem sandbox explain <extension> shows one program's plan)")
	if s.Disabled {
		fmt.Fprintln(w, "  DISABLED by GEM_SANDBOX=off: subprocesses run unrestricted")
	}
	fmt.Fprintf(w, "  Landlock ABI        %d\n", s.LandlockABI)
	fmt.Fprintf(w, "  filesystem rules    %s\n", yes(s.Filesystem))
	fmt.Fprintf(w, "  network (TCP) rules %s\n", yes(s.Network))
	fmt.Fprintf(w, "  signal scoping      %s\n", yes(s.Scoped))
	fmt.Fprintf(w, "  resource limits     %s (CPU, open files, address space)\n", yes(s.Limits))
	fmt.Fprintf(w, "  process count       %s\n", yes(s.Processes))
	fmt.Fprintf(w, "  namespaces          %s (user, mount, PID, IPC; network when not granted)\n", yes(s.UserNamespace))
	fmt.Fprintf(w, "  private view        %s (own /tmp, /var/tmp, /dev/shm, /run; /var/lib, /nix and your home but for what is granted; shadow masked)\n", yes(s.PrivateView))
	fmt.Fprintf(w, "  workspace guard     %s (with the workspace capability: no .git, agent or editor settings, context or .env files created or changed)\n", yes(s.Guard))
	fmt.Fprintf(w, "  own /proc           %s (no other process visible; descendants end with the program)\n", yes(s.PIDNamespace))
	fmt.Fprintf(w, "  unix sockets        %s (the machine's, an agent's or the session bus: out of the program's view, or refused by the supervisor of its connects)\n", yes(s.Sockets))
	fmt.Fprintf(w, "  UDP cut             %s (without the network: a network namespace, or the seccomp filter)\n", yes(s.UDP))
	fmt.Fprintf(w, "  terminal injection  %s (seccomp refuses TIOCSTI, TIOCLINUX)\n", map[bool]string{true: "refused", false: "NOT refused"}[s.Seccomp])
	fmt.Fprintf(w, "  capabilities        %s\n", map[bool]string{true: "all dropped", false: "NOT dropped"}[s.NoCapability])
	fmt.Fprintf(w, "  gem run             %s\n", s.GemRun)
	fmt.Fprintf(w, "  launcher caches     %s\n", map[bool]string{true: "read as they are, written into an overlay of each program's own (~/.npm, ~/.cache/uv…: $GEM_HOME/overlays/<extension>/caches)", false: "written directly (no namespaces here for an overlay)"}[s.UserNamespace])
	fmt.Fprintf(w, "  environment filter  enforced (allowlist; secrets and hijackers dropped)\n")
	helper := s.Helper
	if helper == "" {
		helper = "MISSING"
	}
	fmt.Fprintf(w, "  helper              %s\n", helper)
	fmt.Fprintf(w, "  strict              %v (GEM_SANDBOX_STRICT=1 refuses to run what cannot be enforced)\n", s.Strict)
	for _, m := range s.Missing {
		fmt.Fprintf(w, "  missing: %s\n", m)
	}
}

// installedProblems is every problem of an installed extension (gem doctor, gem ext info):
// gem ext validate's, and its files changed since install.
func installedProblems(s *session, x *registry.Extension) manifest.Problems {
	return append(append(folderProblems(s, x), binaryProblems(s, x)...), changedFiles(s, x)...)
}

// changedFiles is a problem when an installed extension's files differ from those its
// install record hashed (any file: a script, a context file, not only declared binaries).
// Linked and hand-placed extensions have no record and are not checked.
func changedFiles(s *session, x *registry.Extension) manifest.Problems {
	if m := x.Install(); m == nil || m.Type == "link" {
		return nil
	}
	changed, missing, _, err := install.VerifyExtension(s.env, x)
	if err != nil || len(changed)+len(missing) == 0 {
		return nil
	}
	what := append(changed, missing...)
	if len(what) > 5 {
		what = append(what[:5], fmt.Sprintf("and %d more", len(what)-5))
	}
	files := strings.Join(what, ", ")
	return manifest.Problems{{Severity: manifest.Error, Path: "files", Value: files,
		Want: files + " changed since the install: gem ext verify " + x.Name + " lists them; reinstalling restores them"}}.WithFile(x.ManifestPath)
}

// binaryProblems finds what only running would show: binaries built for another machine,
// binaries whose sha256 does not match, MCP stdio commands that are not installed.
func binaryProblems(s *session, x *registry.Extension) manifest.Problems {
	var ps manifest.Problems
	m := x.Manifest()
	check := func(field, kind, id, template string, sums []manifest.KV) {
		bin, err := x.ResolveBinary(s.env, kind, id, template)
		if err != nil {
			return // reported by folderProblems
		}
		if got := binfmt.Describe(bin.Path); strings.Contains(got, "/") && got != goruntime.GOOS+"/"+goruntime.GOARCH {
			ps = append(ps, manifest.Problem{Severity: manifest.Error, Path: field, Value: bin.Path,
				Want: fmt.Sprintf("built for %s, but this machine is %s/%s: install the extension's build for this platform", got, goruntime.GOOS, goruntime.GOARCH)})
		}
		if f, err := commands.OpenVerified(s.env, x, bin.Path, sums, bin.Platform); err != nil {
			ps = append(ps, manifest.Problem{Severity: manifest.Error, Path: field + ".sha256", Value: bin.Path, Want: err.Error()})
		} else if f != nil {
			f.Close()
		}
	}
	for _, c := range m.Commands {
		if c.Type == "executable" {
			check("commands."+c.Name+".binary", "command", c.Name, c.Binary, c.SHA256)
		}
	}
	for _, p := range m.Plugins {
		check("plugins."+p.ID+".binary", "plugin", p.ID, p.Binary, p.SHA256)
	}
	platforms := manifest.HostPlatforms(s.env.Getenv)
	resolved := m.Resolved(x.Expander(s.env, platforms[0]))
	for _, srv := range resolved.MCPServers {
		if srv.Command == "" {
			continue
		}
		if strings.ContainsRune(srv.Command, filepath.Separator) {
			if _, err := os.Stat(srv.Command); err != nil {
				ps = append(ps, manifest.Problem{Severity: manifest.Error, Path: "mcpServers." + srv.Name + ".command", Value: srv.Command, Want: srv.Command + " not found: is the extension built for this platform?"})
			}
		} else if _, err := exec.LookPath(srv.Command); err != nil {
			ps = append(ps, manifest.Problem{Severity: manifest.Warning, Path: "mcpServers." + srv.Name + ".command", Value: srv.Command, Want: srv.Command + " is not on PATH: install it to use this server"})
		}
	}
	return ps.WithFile(x.ManifestPath)
}
