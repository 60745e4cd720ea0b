package payload

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// uvxValueFlags are uvx (uv tool run) flags that take a value (the next argument).
var uvxValueFlags = []string{"--with", "--with-editable", "--with-requirements", "--python", "-p", "--extra-index-url",
	"--index", "--find-links", "-f", "--index-strategy", "--keyring-provider", "--resolution", "--prerelease",
	"--exclude-newer", "--link-mode", "--cache-dir", "--directory", "--project", "--config-file", "--color",
	"--python-platform", "--constraints", "-c", "--overrides", "--build-constraints", "-b", "--env-file", "--refresh-package",
	"--reinstall-package", "--no-binary-package", "--no-build-package", "--upgrade-package", "-P", "--config-setting", "-C"}

// pep508 is a requirement uvx can be asked for: name[extras] with ==version, @version, or
// nothing (PyPI names: letters, digits, ., _, -).
var pep508 = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[A-Za-z0-9._,-]*\])?(?:(==|@)([A-Za-z0-9.!+_-]+))?$`)

// uvxPackageOf finds the PyPI package of a uvx command line: --from's requirement, else the
// first argument that is not a flag (the tool, perhaps tool@version). Git, URL and path
// requirements, and ranges, are not pinned (ok false).
func uvxPackageOf(args []string) (Package, bool) {
	pkg := Package{Type: "pypi", Index: -1}
	first := launcherArgs(args, append([]string{"--from", "--index-url", "-i", "--default-index"}, uvxValueFlags...), func(name, value string, at int) {
		switch name {
		case "--from":
			pkg.Index, pkg.Name, pkg.From = at, value, true
		case "--index-url", "-i", "--default-index":
			pkg.Registry = value
		}
	})
	if pkg.Index < 0 && first >= 0 {
		pkg.Index, pkg.Name = first, args[first]
	}
	if pkg.Index < 0 {
		return Package{}, false
	}
	m := pep508.FindStringSubmatch(pkg.Name)
	if m == nil || (m[3] == "@" && pkg.From) {
		return Package{}, false // a URL, a path, git+…, a range: not a version gem can pin
	}
	pkg.Name, pkg.Extras, pkg.Range, pkg.Op = m[1], m[2], m[4], m[3]
	if pkg.Range == "" {
		pkg.Range = "latest"
	}
	return pkg, true
}

// pinUVX gives uvx the exact version: tool@version, or name==version (--from's, or a tool
// written so).
func pinUVX(args []string, pkg Package, version string) []string {
	spec := pkg.Name + pkg.Extras + "@" + version
	if pkg.From || pkg.Op == "==" {
		spec = pkg.Name + pkg.Extras + "==" + version
	}
	if a := args[pkg.Index]; strings.HasPrefix(a, "--from=") {
		spec = "--from=" + spec
	}
	args[pkg.Index] = spec
	return args
}

// DefaultPyPIIndex is uv's default index.
const DefaultPyPIIndex = "https://pypi.org/simple"

// pypiFile is one file of PEP 691's JSON project page.
type pypiFile struct {
	Filename string            `json:"filename"`
	Hashes   map[string]string `json:"hashes"`
	Yanked   any               `json:"yanked"`
}

// ResolvePyPI asks the package index which version the package means (the exact one, or the
// newest final release for latest) through PEP 691's JSON simple API, as uv reads it: the
// index --index-url/--default-index names, else UV_DEFAULT_INDEX or UV_INDEX_URL of the
// user's environment, else PyPI; proxies from the environment. The pin's SHA256 is
// FilesDigest of that version's files.
func ResolvePyPI(ctx context.Context, environ []string, pkg Package) (Resolved, error) {
	index := pkg.Registry
	for _, k := range []string{"UV_DEFAULT_INDEX", "UV_INDEX_URL"} {
		if index == "" {
			index = envValue(environ, k)
		}
	}
	if index == "" {
		index = DefaultPyPIIndex
	}
	u := strings.TrimSuffix(index, "/") + "/" + NormalizePyPIName(pkg.Name) + "/"
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return Resolved{}, fmt.Errorf("the index %s: %w", index, err)
	}
	req.Header.Set("Accept", "application/vnd.pypi.simple.v1+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Resolved{}, fmt.Errorf("the index %s: %w", index, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Resolved{}, fmt.Errorf("the index %s: %s for %s", index, resp.Status, pkg.Name)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/vnd.pypi.simple.v1+json") {
		return Resolved{}, fmt.Errorf("the index %s does not answer with PEP 691's JSON (it says %q)", index, ct)
	}
	var page struct {
		Files    []pypiFile `json:"files"`
		Versions []string   `json:"versions"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&page); err != nil {
		return Resolved{}, fmt.Errorf("the index %s: %s: %w", index, pkg.Name, err)
	}
	byVersion := map[string][]pypiFile{}
	for _, f := range page.Files {
		if v := fileVersion(pkg.Name, f.Filename); v != "" && (f.Yanked == nil || f.Yanked == false) {
			byVersion[v] = append(byVersion[v], f)
		}
	}
	version := pkg.Range
	if version == "latest" {
		version = ""
		for v := range byVersion {
			if finalRelease(v) && (version == "" || comparePEP440(v, version) > 0) {
				version = v
			}
		}
	}
	files := byVersion[version]
	if version == "" || len(files) == 0 {
		return Resolved{}, fmt.Errorf("the index %s has no release %s of %s", index, pkg.Range, pkg.Name)
	}
	digest, err := FilesDigest(files)
	if err != nil {
		return Resolved{}, fmt.Errorf("the index %s: %s %s: %w", index, pkg.Name, version, err)
	}
	return Resolved{Version: version, SHA256: digest}, nil
}

// FilesDigest is what gem pins of a PyPI release: the sha256 of its files' names and sha256s,
// one "name sha256" line each, sorted. Any file added, removed or changed changes it.
func FilesDigest(files []pypiFile) (string, error) {
	var lines []string
	for _, f := range files {
		h := f.Hashes["sha256"]
		if len(h) != 64 {
			return "", fmt.Errorf("%s has no sha256 in the index", f.Filename)
		}
		lines = append(lines, f.Filename+" "+strings.ToLower(h)+"\n")
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "")))
	return hex.EncodeToString(sum[:]), nil
}

// NormalizePyPIName is PEP 503's normalized name: lower case, runs of -_. as one -.
func NormalizePyPIName(name string) string {
	return strings.ToLower(nameRuns.ReplaceAllString(name, "-"))
}

var nameRuns = regexp.MustCompile(`[-_.]+`)

// fileVersion is the version a wheel's or an sdist's file name says (PEP 427, PEP 625), ""
// when it is not one of the project's.
func fileVersion(project, filename string) string {
	norm := strings.ReplaceAll(NormalizePyPIName(project), "-", "_")
	lower := strings.ToLower(filename)
	var rest string
	switch {
	case strings.HasSuffix(lower, ".whl"):
		parts := strings.Split(filename, "-")
		if len(parts) < 5 || strings.ReplaceAll(NormalizePyPIName(parts[0]), "-", "_") != norm {
			return ""
		}
		return parts[1]
	case strings.HasSuffix(lower, ".tar.gz"):
		rest = filename[:len(filename)-len(".tar.gz")]
	case strings.HasSuffix(lower, ".zip"):
		rest = filename[:len(filename)-len(".zip")]
	default:
		return ""
	}
	i := strings.LastIndex(rest, "-")
	if i <= 0 || strings.ReplaceAll(NormalizePyPIName(rest[:i]), "-", "_") != norm {
		return ""
	}
	return rest[i+1:]
}

// finalRelease: digits and dots only (no pre-, post- or dev-release, no local part).
func finalRelease(v string) bool {
	return v != "" && strings.Trim(v, "0123456789.") == "" && !strings.HasPrefix(v, ".") && !strings.HasSuffix(v, ".")
}

// comparePEP440 orders final releases by their numbers (1.10 after 1.9; 1.0 == 1.0.0).
func comparePEP440(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func envValue(environ []string, key string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(environ[i], key+"="); ok {
			return v
		}
	}
	return ""
}
