package tools

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

func (c *coreBackend) readMany(a readManyArgs) (string, []Media, error) {
	excludes := a.Exclude
	if a.UseDefaultExcludes == nil || *a.UseDefaultExcludes {
		excludes = append(excludes, "**/node_modules/**", "node_modules/**")
	}
	ignore := a.FileFilteringOptions.respect()
	var files []string
	for _, p := range a.Include {
		rel, err := c.rel(p)
		if err != nil {
			return "", nil, err
		}
		if !strings.ContainsAny(rel, "*?[{") {
			files = append(files, rel)
			continue
		}
		matches, err := c.globRel(rel, false, ignore)
		if err != nil {
			return "", nil, err
		}
		files = append(files, matches...)
	}
	files = slices.DeleteFunc(files, func(rel string) bool {
		return slices.ContainsFunc(excludes, func(x string) bool {
			ok, _ := doublestar.Match(x, filepath.ToSlash(rel))
			return ok
		})
	})
	var b strings.Builder
	var media []Media
	size := 0 // of media: at most coreMaxMedia in all
	for i, rel := range files {
		if i == coreMaxPaths {
			fmt.Fprintf(&b, "[%d more files left out]\n", len(files)-i)
			break
		}
		data, err := c.read(rel)
		fmt.Fprintf(&b, "--- %s ---\n", c.abs(rel))
		switch {
		case err != nil:
			fmt.Fprintf(&b, "[not read: %v]\n", err)
		case mediaType(rel, data) != "" && size+len(data) > coreMaxMedia:
			fmt.Fprintf(&b, "[%s, %d bytes: left out, over the limit of %d bytes of media in one call; read it alone]\n", mediaType(rel, data), len(data), coreMaxMedia)
		case mediaType(rel, data) != "":
			size += len(data)
			media = append(media, Media{MIMEType: mediaType(rel, data), Data: data})
			fmt.Fprintf(&b, "[%s, %d bytes: attached]\n", mediaType(rel, data), len(data))
		case isBinary(data):
			fmt.Fprintf(&b, "[binary file, %d bytes]\n", len(data))
		default:
			b.Write(data)
			if len(data) > 0 && data[len(data)-1] != '\n' {
				b.WriteByte('\n')
			}
		}
	}
	if len(files) == 0 {
		return "no files matched", nil, nil
	}
	return b.String(), media, nil
}

// respect: whether the ignore files apply (Gemini CLI's file_filtering_options; both
// default to true, and gem reads .gitignore and .geminiignore together: either false turns
// the filter off).
func (f *fileFiltering) respect() bool {
	return f == nil || ((f.RespectGitIgnore == nil || *f.RespectGitIgnore) && (f.RespectGeminiIgnore == nil || *f.RespectGeminiIgnore))
}
