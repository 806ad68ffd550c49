package registrycmd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/registry/client"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
)

// InstallOptions are `runx registry install`'s arguments.
type InstallOptions struct {
	Factory  *cli.Factory
	Ref      string
	Registry string
	Digest   string
	Records  string
	JSON     bool
}

// NewInstall wires `runx registry install <publisher>/<name>[@version]`
// and `--records <file|->`. A test passes runF to see the options a command
// line parses to; nil installs.
func NewInstall(f *cli.Factory, runF func(*InstallOptions) error) *cobra.Command {
	opts := &InstallOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "install <publisher>/<name>[@version] | --records <file|->",
		Short: "Add a signed skill or connector from a registry to the project (.runx/added-skills, .runx/added-connectors)",
		Args:  cli.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Ref = args[0]
			}
			if (opts.Ref == "") == (opts.Records == "") {
				return cli.Usagef("give a ref to install or --records <file|->, not both")
			}
			if opts.Records != "" && opts.Digest != "" {
				return cli.Usagef("--digest checks one ref; a record names its own content digest")
			}
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(Install(c.Context(), opts))
		},
	}
	addRegistryFlag(cmd, &opts.Registry)
	cmd.Flags().StringVar(&opts.Digest, "digest", "", "the content digest the version must have (sha256:<hex>)")
	cmd.Flags().StringVar(&opts.Records, "records", "", "install the signed skill records in this JSON array (a file in the workspace, or - for standard input)")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// InstallReport is what `runx registry install --json` prints.
type InstallReport struct {
	Schema    string              `json:"schema"`
	Registry  string              `json:"registry"`
	Installed []*client.Installed `json:"installed"`
}

// Install adds what the ref or the records name to the project.
func Install(ctx context.Context, opts *InstallOptions) cli.ExitCode {
	f, io := opts.Factory, opts.Factory.IO
	r, err := openRemote(f, opts.Registry, false)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	var ref client.Ref
	var records []json.RawMessage
	if opts.Ref != "" {
		if ref, err = client.ParseRef(opts.Ref); err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
	} else if records, err = readRecords(io.In, r.opts, opts.Records); err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	trust, err := registry.LoadTrust(r.opts.HomeDir)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	// Everything is fetched and checked first: a refused package makes no
	// .runx. Then the project is claimed as a kernel would, but its state
	// is not opened: an install adds files to .runx and nothing else.
	var fetched []*client.Fetched
	if opts.Ref != "" {
		one, err := r.client.Fetch(ctx, ref, trust, client.InstallOptions{Digest: opts.Digest})
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		fetched = append(fetched, one)
	} else if fetched, err = r.client.FetchRecords(ctx, records, trust); err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	o, err := run.ClaimProject(f.Options())
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	done := make([]*client.Installed, 0, len(fetched))
	for _, one := range fetched {
		in, err := one.Install(o.ProjectDir)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		done = append(done, in)
	}
	if opts.JSON {
		_ = cli.PrintJSON(io.Out, InstallReport{Schema: "runx.registry_install.v1", Registry: r.client.URL(), Installed: done})
		return cli.ExitOK
	}
	for _, in := range done {
		fmt.Fprintf(io.Out, "%s %s [%s] %s\n", in.Status, in.Ref, in.TrustTier, in.Dir)
		if in.NewestUnread != nil {
			fmt.Fprintf(io.Out, "  newer, passed over: %s (%s)\n", in.NewestUnread.Version, in.NewestUnread.Reason)
		}
	}
	return cli.ExitOK
}

// readRecords reads --records as --inputs reads its document: one JSON
// array of signed records.
func readRecords(stdin interface{ Read([]byte) (int, error) }, o run.Options, arg string) ([]json.RawMessage, error) {
	raw, err := cli.ReadInputsDocument(stdin, o.Workspace, o.Cwd, arg)
	if err != nil {
		return nil, err
	}
	var records []json.RawMessage
	if err := json.Unmarshal(raw, &records); err != nil {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "--records is not one JSON array of signed records: %v", err)
	}
	if len(records) == 0 {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "--records holds no record")
	}
	return records, nil
}
