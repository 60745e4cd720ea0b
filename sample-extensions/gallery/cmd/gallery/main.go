// Command gallery is the gallery sample extension's executable command:
//
//	/gallery list [--json]             every extension, most stars first
//	/gallery search <terms…> [--json]  extensions whose name, description or tags hold every term
//	/gallery show <name> [--json]      one extension in full
//	/gallery install <name> [--yes]    asks, then runs `gem ext install <source>`
//
// The catalog is GALLERY_INDEX (a file path or an http(s) URL; gem sets it to the catalog
// shipped in the extension). Standard library only, as an outside author would write it.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

type entry struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Source      string   `json:"source"`
	Stars       int      `json:"stars"`
	Tags        []string `json:"tags"`
}

type catalog struct {
	Generated  string  `json:"generated"`
	StarsNote  string  `json:"starsNote"`
	Extensions []entry `json:"extensions"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr, os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "gallery:", err)
		var u usage
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usage string

func (u usage) Error() string { return string(u) }

const usageText = "usage: gallery list | search <terms…> | show <name> | install <name> [--yes]; add --json for JSON"

func run(args []string, stdout, stderr io.Writer, stdin io.Reader) error {
	var jsonOut, yes bool
	var rest []string
	for _, a := range args {
		switch a {
		case "--json":
			jsonOut = true
		case "--yes", "-y":
			yes = true
		case "-h", "--help", "help":
			fmt.Fprintln(stdout, usageText)
			return nil
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) == 0 {
		rest = []string{"list"}
	}
	cat, err := load(os.Getenv("GALLERY_INDEX"))
	if err != nil {
		return err
	}
	switch rest[0] {
	case "list":
		return output(stdout, cat.sorted(), jsonOut)
	case "search":
		if len(rest) < 2 {
			return usage("search needs terms: gallery search terraform aws")
		}
		found := cat.search(rest[1:])
		if len(found) == 0 && !jsonOut {
			fmt.Fprintf(stdout, "No extension matches %q.\n", strings.Join(rest[1:], " "))
			return nil
		}
		return output(stdout, found, jsonOut)
	case "show":
		if len(rest) != 2 {
			return usage("show needs one name: gallery show chrome-devtools-mcp")
		}
		e, err := cat.find(rest[1])
		if err != nil {
			return err
		}
		if jsonOut {
			return writeJSON(stdout, e)
		}
		fmt.Fprintf(stdout, "Name:        %s\nDescription: %s\nSource:      %s\nStars:       ~%d\nTags:        %s\nInstall:     gem ext install %s\n",
			e.Name, e.Description, e.Source, e.Stars, strings.Join(e.Tags, ", "), e.Source)
		return nil
	case "install":
		if len(rest) != 2 {
			return usage("install needs one name: gallery install security")
		}
		e, err := cat.find(rest[1])
		if err != nil {
			return err
		}
		return install(e, yes, stdout, stderr, stdin)
	}
	return usage(fmt.Sprintf("unknown subcommand %q; %s", rest[0], usageText))
}

func load(index string) (*catalog, error) {
	if index == "" {
		return nil, errors.New("GALLERY_INDEX is not set: run me through gem (gem run gallery), or set it to a catalog file or URL")
	}
	var r io.ReadCloser
	if strings.HasPrefix(index, "http://") || strings.HasPrefix(index, "https://") {
		c := &http.Client{Timeout: 20 * time.Second}
		resp, err := c.Get(index)
		if err != nil {
			return nil, fmt.Errorf("fetching the catalog %s: %w", index, err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("fetching the catalog %s: %s", index, resp.Status)
		}
		r = resp.Body
	} else {
		f, err := os.Open(index)
		if err != nil {
			return nil, fmt.Errorf("reading the catalog: %w (GALLERY_INDEX=%s)", err, index)
		}
		r = f
	}
	defer r.Close()
	var c catalog
	if err := json.NewDecoder(io.LimitReader(r, 16<<20)).Decode(&c); err != nil {
		return nil, fmt.Errorf("the catalog %s is not valid JSON: %w", index, err)
	}
	return &c, nil
}

func (c *catalog) sorted() []entry {
	out := append([]entry(nil), c.Extensions...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Stars != out[j].Stars {
			return out[i].Stars > out[j].Stars
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// search keeps the entries holding every term; name matches rank first, then stars.
func (c *catalog) search(terms []string) []entry {
	type scored struct {
		e     entry
		score int
	}
	var hits []scored
	for _, e := range c.sorted() {
		hay := strings.ToLower(e.Name + " " + e.Description + " " + strings.Join(e.Tags, " "))
		score, ok := 0, true
		for _, t := range terms {
			t = strings.ToLower(t)
			if !strings.Contains(hay, t) {
				ok = false
				break
			}
			if strings.Contains(strings.ToLower(e.Name), t) {
				score += 2
			}
			for _, tag := range e.Tags {
				if strings.EqualFold(tag, t) {
					score++
				}
			}
		}
		if ok {
			hits = append(hits, scored{e, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	out := make([]entry, len(hits))
	for i, h := range hits {
		out[i] = h.e
	}
	return out
}

func (c *catalog) find(name string) (entry, error) {
	for _, e := range c.Extensions {
		if strings.EqualFold(e.Name, name) {
			return e, nil
		}
	}
	var near []string
	for _, e := range c.search([]string{name}) {
		near = append(near, e.Name)
	}
	if len(near) > 0 {
		return entry{}, fmt.Errorf("no extension named %q in the gallery (did you mean %s?)", name, strings.Join(near, ", "))
	}
	return entry{}, fmt.Errorf("no extension named %q in the gallery; gallery search <terms> finds some", name)
}

func output(w io.Writer, es []entry, jsonOut bool) error {
	if jsonOut {
		if es == nil {
			es = []entry{}
		}
		return writeJSON(w, es)
	}
	width := 60
	if !isTerminal(w) {
		width = 200
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTARS\tTAGS\tDESCRIPTION")
	for _, e := range es {
		d := e.Description
		if len(d) > width {
			d = d[:width-1] + "…"
		}
		fmt.Fprintf(tw, "%s\t~%d\t%s\t%s\n", e.Name, e.Stars, strings.Join(e.Tags, ","), d)
	}
	return tw.Flush()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// install asks (unless --yes), then runs gem ext install for the entry's source. gem's own
// consent question follows; without a terminal, --yes also passes --consent.
func install(e entry, yes bool, stdout, stderr io.Writer, stdin io.Reader) error {
	if !yes {
		f, ok := stdin.(*os.File)
		if !ok || !isTerminal(f) {
			return fmt.Errorf("install %s asks first, and there is no terminal to ask on: add --yes", e.Name)
		}
		fmt.Fprintf(stderr, "Install %s from %s? [y/N] ", e.Name, e.Source)
		var answer string
		fmt.Fscanln(stdin, &answer)
		if a := strings.ToLower(answer); a != "y" && a != "yes" {
			return errors.New("not installed")
		}
	}
	gem := os.Getenv("GEM_BIN")
	if gem == "" {
		var err error
		if gem, err = exec.LookPath("gem"); err != nil {
			return errors.New("cannot find gem on PATH to install with; run: gem ext install " + e.Source)
		}
	}
	args := []string{"ext", "install", e.Source}
	if yes {
		args = append(args, "--consent")
	}
	cmd := exec.Command(gem, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("gem ext install %s: %w", e.Source, err)
	}
	return nil
}
