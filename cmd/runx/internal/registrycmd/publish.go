package registrycmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
)

// PublishOptions are `runx registry publish`'s arguments. The token is
// never one of them: RUNX_REGISTRY_TOKEN or runx login --for publish.
type PublishOptions struct {
	Factory   *cli.Factory
	Dir       string
	Registry  string
	Publisher string
	JSON      bool
}

// NewPublish wires `runx registry publish <dir>`. A test passes runF to see
// the options a command line parses to; nil publishes.
func NewPublish(f *cli.Factory, runF func(*PublishOptions) error) *cobra.Command {
	opts := &PublishOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "publish <skill-dir|SKILL.md|connector-dir>",
		Short: "Publish a skill or connector to a registry under a namespace your token owns",
		Args:  cli.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(Publish(c.Context(), opts))
		},
	}
	addRegistryFlag(cmd, &opts.Registry)
	cmd.Flags().StringVar(&opts.Publisher, "publisher", "", "the namespace to publish under (default: the one your token owns)")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// PublishReport is what `runx registry publish --json` prints.
type PublishReport struct {
	Schema        string `json:"schema"`
	Registry      string `json:"registry"`
	Kind          string `json:"kind"`
	Ref           string `json:"ref"`
	Version       string `json:"version"`
	ContentDigest string `json:"content_digest"`
	TrustTier     string `json:"trust_tier"`
}

// Publish packages the directory, sends exactly those bytes and checks the
// registry recorded the package's ref and content digest.
func Publish(ctx context.Context, opts *PublishOptions) cli.ExitCode {
	io := opts.Factory.IO
	r, err := openRemote(opts.Factory, opts.Registry, true)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	p, files, err := packageBytes(r.opts.Cwd, opts.Dir)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	publisher := opts.Publisher
	if publisher == "" {
		owned, err := r.client.WhoAmI(ctx)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		if len(owned) != 1 {
			return cli.ReportError(io, opts.JSON, contract.Errorf(errcode.RegistryPublisherAmbiguous, "the token owns %d namespaces (%s): name one with --publisher", len(owned), strings.Join(owned, ", ")))
		}
		publisher = owned[0]
	}
	pub, err := r.client.Publish(ctx, publisher, p, files)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	rep := PublishReport{
		Schema: "runx.registry_publish.v1", Registry: r.client.URL(), Kind: string(p.Kind),
		Ref: pub.Ref, Version: pub.Version, ContentDigest: pub.ContentDigest, TrustTier: string(pub.Record.TrustTier),
	}
	if opts.JSON {
		_ = cli.PrintJSON(io.Out, rep)
		return cli.ExitOK
	}
	fmt.Fprintf(io.Out, "published %s [%s] %s\n", rep.Ref, rep.TrustTier, rep.ContentDigest)
	return cli.ExitOK
}

// packageBytes builds the package at ref (relative to cwd) and reads the
// bytes of every file it names, then builds the artifact again from those
// bytes: what is sent is exactly what the artifact digests, even if a file
// changed between the two reads.
func packageBytes(cwd, ref string) (*registry.Package, map[string][]byte, error) {
	if !filepath.IsAbs(ref) {
		ref = filepath.Join(cwd, ref)
	}
	p, err := registry.Build(ref)
	if err != nil {
		return nil, nil, err
	}
	if err := p.CheckPublish(); err != nil {
		return nil, nil, err
	}
	dir := ref
	if info, err := os.Stat(ref); err == nil && !info.IsDir() {
		dir = filepath.Dir(ref)
	}
	files := make(map[string][]byte, len(p.Files))
	for _, f := range p.Files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			if f.Path == registry.ManifestFile {
				continue // synthesized by Build; the registry synthesizes it too
			}
			return nil, nil, contract.Errorf(errcode.RegistryPackageInvalid, "cannot read %s of the package: %v", f.Path, err)
		}
		files[f.Path] = b
	}
	sent, err := registry.BuildFiles(p.Kind, files, p.Executables()...)
	if err != nil {
		return nil, nil, err
	}
	if sent.ContentDigest != p.ContentDigest {
		return nil, nil, contract.Errorf(errcode.RegistryPackageAltered, "the package changed while runx read it: publish it again once nothing writes to it")
	}
	return sent, files, nil
}
