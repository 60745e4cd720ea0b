package cli

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/gemhost/gem/manifest"
	"github.com/gemhost/gem/manifest/validate"
	"github.com/gemhost/gem/registry"
)

func extValidateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check an extension folder and report every problem at once",
		ArgsUsage: "<path>",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the problems as JSON"}},
		Action: func(c *cli.Context) error {
			if err := exactArgs(c, 1, "the extension folder"); err != nil {
				return err
			}
			r, err := newRuntime(c)
			if err != nil {
				return err
			}
			x, err := registry.LoadFolder(c.Args().First())
			if err != nil {
				return err
			}
			problems := folderProblems(r, x)
			if c.Bool("json") {
				enc := json.NewEncoder(r.stdout)
				enc.SetIndent("", "  ")
				if problems == nil {
					problems = manifest.Problems{}
				}
				if err := enc.Encode(map[string]any{"path": x.Path, "name": x.Name, "valid": !problems.HasErrors(), "problems": problems}); err != nil {
					return err
				}
			} else {
				errs := len(problems.Errors())
				for _, p := range problems {
					fmt.Fprintln(r.stdout, p.String())
				}
				if errs == 0 {
					fmt.Fprintf(r.stdout, "%s: valid extension %q %s (%d warning(s))\n", x.ManifestPath, x.Name, x.Version, len(problems))
				} else {
					fmt.Fprintf(r.stdout, "%s: %d error(s), %d warning(s)\n", x.ManifestPath, errs, len(problems)-errs)
				}
			}
			if problems.HasErrors() {
				return exitError{code: 1}
			}
			return nil
		},
	}
}

// folderProblems runs every check on a loaded extension: types, semantics, and the folder.
func folderProblems(r *runtime, x *registry.Extension) manifest.Problems {
	lookup := func(name string) (string, bool) {
		v := r.env.Getenv(name)
		return v, v != ""
	}
	ps := validate.Manifest(x.Manifest(), x.LoadProblems(), lookup)
	ps = append(ps, x.CheckFolder(r.env)...)
	return ps.WithFile(x.ManifestPath)
}
