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

	"github.com/gemhost/gem/host/toolchain/launcher"
)

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
func ResolvePyPI(ctx context.Context, environ []string, pkg launcher.Package) (Resolved, error) {
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
