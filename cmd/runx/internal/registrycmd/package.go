package registrycmd

import (
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/spf13/cobra"
)

// PackageSchema names `runx registry package --json`'s document.
const PackageSchema = "runx.registry.package.v1"

// PackageOptions are one `runx registry package`'s arguments.
type PackageOptions struct {
	Factory *cli.Factory
	Ref     string
	JSON    bool
}

// NewPackage wires `runx registry package`. A test passes runF to see the
// options a command line parses to; nil packages.
func NewPackage(f *cli.Factory, runF func(*PackageOptions) error) *cobra.Command {
	if runF == nil {
		runF = RunPackage
	}
	o := &PackageOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "package <SKILL.md|skill-dir|connector-dir>",
		Short: "Print the exact artifact a publish sends: every file and its digest, the content digest, methods and bound connectors; writes nothing",
		Long: `Print the exact artifact runx registry publish sends and a registry signs:
every file with its digest and size, runx.package.json, the content digest
over all of them, the methods with their descriptions, and the connectors a
skill binds (ref, version, manifest_digest, connector_digest,
runtime_capability). Nothing is written and no registry is reached.

Symbolic links, special files and paths escaping the package are refused;
.git/, .runx/, node_modules/, .DS_Store and a root signature.json are left
out and named under "excluded". A skill with several methods, one without a
description, is refused naming the method; a skill version that is not
semver is refused, and one that declares none is shown with
"publishable": false.`,
		Args: cli.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Ref = args[0]
			return runF(o)
		},
	}
	cmd.Flags().BoolVarP(&o.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// RunPackage builds the package and prints it.
func RunPackage(o *PackageOptions) error {
	io := o.Factory.IO
	p, err := registry.Build(o.Ref)
	if err != nil {
		return cli.Exit(cli.ReportError(io, o.JSON, err))
	}
	publishErr := p.CheckPublish()
	if o.JSON {
		doc := map[string]any{"schema": PackageSchema, "status": "ok", "package": p, "publishable": publishErr == nil}
		if publishErr != nil {
			doc["publish_error"] = publishErr.Error()
		}
		return cli.PrintJSON(io.Out, doc)
	}
	version := p.Version
	if version == "" {
		version = "(no version)"
	}
	fmt.Fprintf(io.Out, "%s %s %s\ncontent digest %s\n", p.Kind, p.Name, version, p.ContentDigest)
	for _, m := range p.Methods {
		fmt.Fprintf(io.Out, "method %s: %s\n", m.Name, m.Description)
	}
	for _, c := range p.Connectors {
		fmt.Fprintf(io.Out, "connector %s (%s)\n", c.Ref, c.RuntimeCapability)
	}
	for _, f := range p.Files {
		fmt.Fprintf(io.Out, "%s %8d %s\n", f.Digest, f.Size, f.Path)
	}
	for _, x := range p.Excluded {
		fmt.Fprintf(io.Out, "excluded %s\n", x)
	}
	if publishErr != nil {
		fmt.Fprintf(io.Out, "not publishable: %v\n", publishErr)
	}
	return nil
}
