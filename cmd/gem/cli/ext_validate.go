package cli

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/internal/plural"
	"github.com/gemhost/gem/internal/termsafe"
	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/manifest/validate"
	"github.com/gemhost/gem/registry"
)

type extValidateOptions struct {
	Path string `arg:"<path>" help:"the extension folder"`
	jsonOutput
}

func extValidateCommand(f *Factory) *cli.Command {
	return verb(f, "validate", "check an extension folder and report every problem at once", extValidate,
		"gem ext validate ./my-ext", "gem ext validate ./my-ext --json")
}

func extValidate(_ context.Context, s *session, opts extValidateOptions) error {
	x, err := registry.LoadFolder(opts.Path)
	if err != nil {
		return err
	}
	problems := append(folderProblems(s, x), binaryProblems(s, x)...)
	doc := map[string]any{"path": x.Path, "name": x.Name, "valid": !problems.HasErrors(), "problems": orEmpty(problems)}
	err = render(s, opts.JSON, doc, func() error {
		errs := len(problems.Errors())
		for _, p := range problems {
			fmt.Fprintln(s.stdout, p.String())
		}
		if errs == 0 {
			fmt.Fprintf(s.stdout, "%s: valid extension %q %s (%s)\n", x.ManifestPath, x.Name, termsafe.Text(x.Version), plural.Count(len(problems), "warning"))
		} else {
			fmt.Fprintf(s.stdout, "%s: %s, %s\n", x.ManifestPath, plural.Count(errs, "error"), plural.Count(len(problems)-errs, "warning"))
		}
		return nil
	})
	if err == nil && problems.HasErrors() {
		return exitError{code: 1}
	}
	return err
}

// folderProblems runs every check on a loaded extension: types, semantics, and the folder.
func folderProblems(s *session, x *registry.Extension) manifest.Problems {
	lookup := func(name string) (string, bool) {
		v := s.env.Getenv(name)
		return v, v != ""
	}
	ps := validate.Manifest(x.Manifest(), x.LoadProblems(), lookup)
	if x.VersionRecorded { // the manifest names none (optional in its format): gem's, not the author's
		ps = ps.Without("version")
	}
	ps = append(ps, x.CheckFolder(s.env)...)
	for _, n := range x.FormatNotes() { // another format's parts gem does not run
		if n.Dropped {
			ps = append(ps, manifest.Problem{Severity: manifest.Warning, Path: n.Component, Want: "not run by gem: " + n.Became})
		}
	}
	return ps.WithFile(x.ManifestPath)
}
