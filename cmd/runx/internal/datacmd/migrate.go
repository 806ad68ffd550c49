package datacmd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/datamigrate"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// MigrateOptions are `runx data migrate`'s arguments.
type MigrateOptions struct {
	Factory  *cli.Factory
	Database string
	Source   string
	Backup   string
	JSON     bool
}

// NewMigrate wires `runx data migrate`. A test passes runF to see the
// options a command line parses to without running anything; nil migrates.
func NewMigrate(f *cli.Factory, runF func(*MigrateOptions) error) *cobra.Command {
	opts := &MigrateOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "migrate --database <path> --source <ref> [--backup <path>]",
		Short: "Migrate a legacy SQLite event store to the current schema, with a backup and a verified proof",
		Long: `Migrate a legacy SQLite event store, under exclusive access, to the schema this
runx opens. A consistent backup is made first; formerly unscoped events are
given --source; stream heads and projection digests are rebuilt from the
ordered events; the result is verified independently before it replaces the
original. A store already current gets a proof that nothing changed; an
unknown or partial schema is refused, left byte-identical, with no backup.
Paths are relative to the workspace.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(RunMigrate(cmd.Context(), opts))
		},
	}
	cmd.Flags().StringVar(&opts.Database, "database", "", "the store file, relative to the workspace")
	cmd.Flags().StringVar(&opts.Source, "source", "", "the data source formerly unscoped events belong to, e.g. tenant://example/events")
	cmd.Flags().StringVar(&opts.Backup, "backup", "", "where the backup goes, relative to the workspace (default: beside the database, named by the time)")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print the proof as one JSON document")
	return cmd
}

// RunMigrate migrates and presents the proof.
func RunMigrate(ctx context.Context, opts *MigrateOptions) cli.ExitCode {
	io := opts.Factory.IO
	switch {
	case opts.Database == "":
		return cli.ReportError(io, opts.JSON, cli.Usagef("--database <path> is required"))
	case opts.Source == "":
		return cli.ReportError(io, opts.JSON, cli.Usagef("--source <ref> is required"))
	}
	return opts.Factory.WithKernel(ctx, opts.JSON, func(k *run.Kernel) cli.ExitCode {
		proof, err := k.MigrateData(ctx, datamigrate.Request{Database: opts.Database, Source: opts.Source, Backup: opts.Backup})
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		if opts.JSON {
			_ = cli.PrintJSON(io.Out, proof)
			return cli.ExitOK
		}
		return present(io, proof)
	})
}

// summary is the part of the proof the text form shows.
type summary struct {
	Status   string `json:"status"`
	Database string `json:"database"`
	Source   string `json:"source"`
	Backup   *struct {
		Path string `json:"path"`
	} `json:"backup"`
	Before struct {
		State string `json:"state"`
	} `json:"before"`
	After struct {
		Events        int64  `json:"events"`
		Streams       int64  `json:"streams"`
		ContentDigest string `json:"content_digest"`
	} `json:"after"`
	Changes struct {
		AssignedEvents int64 `json:"assigned_events"`
	} `json:"changes"`
	ResultDigest string `json:"result_digest"`
}

func present(io *cli.IO, proof json.RawMessage) cli.ExitCode {
	var s summary
	if err := json.Unmarshal(proof, &s); err != nil {
		return cli.ReportError(io, false, err)
	}
	styled := io.Styled()
	if s.Status == "current" {
		fmt.Fprintf(io.Out, "%s %s is already current: nothing changed, no backup\n", cli.Paint(styled, "green", "current"), s.Database)
	} else {
		fmt.Fprintf(io.Out, "%s %s from %s; %d events given %s\n", cli.Paint(styled, "green", "migrated"), s.Database, s.Before.State, s.Changes.AssignedEvents, s.Source)
		if s.Backup != nil {
			fmt.Fprintf(io.Out, "  backup  %s\n", s.Backup.Path)
		}
	}
	fmt.Fprintf(io.Out, "  store   %d events in %d streams, content %s\n", s.After.Events, s.After.Streams, s.After.ContentDigest)
	fmt.Fprintf(io.Out, "  proof   %s\n", s.ResultDigest)
	return cli.ExitOK
}
