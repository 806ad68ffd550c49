package notarycmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/notary"
	"github.com/runxhq/runx/kernel/notary/client"
	"github.com/runxhq/runx/kernel/receipt"
	regclient "github.com/runxhq/runx/kernel/registry/client"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/atomicfile"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
)

// maxReceiptFile bounds the receipt file read: the largest receipt with
// room for pretty-printing.
const maxReceiptFile = 9 << 20

// APIFlags name the public API a command talks to.
type APIFlags struct {
	BaseURL       string
	AllowLocalAPI bool
}

// Add adds --api-base-url and --allow-local-api to cmd.
func (a *APIFlags) Add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&a.BaseURL, "api-base-url", "", "the public API's base URL (default "+client.EnvURL+", else "+client.DefaultURL+")")
	cmd.Flags().BoolVar(&a.AllowLocalAPI, "allow-local-api", false, "allow an API on this machine or a private network (local dogfood)")
}

// Base is the API's checked base URL.
func (a *APIFlags) Base(lookupEnv func(string) (string, bool)) (string, error) {
	return client.CheckURL(client.ResolveURL(a.BaseURL, lookupEnv), a.AllowLocalAPI)
}

// NotarizeOptions are `runx notarize`'s arguments.
type NotarizeOptions struct {
	Factory *cli.Factory
	Receipt string
	API     APIFlags
	// Out, when set, is where the record document is written.
	Out  string
	JSON bool
}

// NewNotarize wires `runx notarize <receipt-file>`.
func NewNotarize(f *cli.Factory, runF func(*NotarizeOptions) error) *cobra.Command {
	opts := &NotarizeOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "notarize <receipt-file>",
		Short: "Send a sealed receipt to the notary: a counter-seal, a public /r link and a log entry",
		Args:  cli.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Receipt = args[0]
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(Notarize(c.Context(), opts))
		},
	}
	opts.API.Add(cmd)
	cmd.Flags().StringVar(&opts.Out, "out", "", "write the notary's record document here (what runx verify --notary reads)")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	return cmd
}

// NotarizeReport is what `runx notarize --json` prints: never the token.
type NotarizeReport struct {
	Schema      string         `json:"schema"`
	ReceiptID   string         `json:"receipt_id"`
	ContentHash string         `json:"content_hash"`
	Link        string         `json:"link"`
	LogIndex    int64          `json:"log_index"`
	NotarizedAt string         `json:"notarized_at"`
	Out         string         `json:"out,omitempty"`
	Record      *notary.Record `json:"record"`
}

// Notarize checks the receipt, sends it and presents the record.
func Notarize(ctx context.Context, opts *NotarizeOptions) cli.ExitCode {
	f, io := opts.Factory, opts.Factory.IO
	rep, err := notarize(ctx, f, opts)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	if opts.JSON {
		_ = cli.PrintJSON(io.Out, rep)
		return cli.ExitOK
	}
	fmt.Fprintf(io.Out, "notarized %s\n  link:         %s\n  content hash: %s\n  log index:    %d\n", rep.ReceiptID, rep.Link, rep.ContentHash, rep.LogIndex)
	if rep.Out != "" {
		fmt.Fprintf(io.Out, "  record:       %s\n", rep.Out)
	}
	return cli.ExitOK
}

func notarize(ctx context.Context, f *cli.Factory, opts *NotarizeOptions) (*NotarizeReport, error) {
	o, err := run.ResolveOptions(f.Options())
	if err != nil {
		return nil, err
	}
	data, err := readBounded(opts.Receipt, maxReceiptFile)
	if err != nil {
		return nil, err
	}
	// A receipt that would be refused is refused here, before a token
	// leaves.
	sealed, err := receipt.CheckSealed(data)
	if err != nil {
		return nil, err
	}
	base, err := opts.API.Base(o.LookupEnv)
	if err != nil {
		return nil, err
	}
	token, err := APIToken(o, base)
	if err != nil {
		return nil, err
	}
	if token != "" && f.Taint != nil {
		f.Taint.Add(token)
	}
	rec, raw, err := client.New(base, token).Notarize(ctx, sealed.Canonical, sealed.ContentHash)
	if err != nil {
		return nil, err
	}
	if rec.Statement.ReceiptID != sealed.Receipt.ID {
		return nil, contract.Errorf(errcode.NotaryResponseInvalid, "the notary's record names receipt %s, not %s", rec.Statement.ReceiptID, sealed.Receipt.ID)
	}
	rep := &NotarizeReport{Schema: "runx.notarize.v1", ReceiptID: sealed.Receipt.ID, ContentHash: sealed.ContentHash, Link: rec.Link,
		LogIndex: rec.Statement.LogIndex, NotarizedAt: rec.Statement.NotarizedAt, Record: rec}
	if opts.Out != "" {
		if err := atomicfile.Write(opts.Out, raw, 0o644); err != nil {
			return nil, err
		}
		rep.Out = opts.Out
	}
	return rep, nil
}

// APIToken is the public API token for base: RUNX_PUBLIC_API_TOKEN, else
// the one runx login --for publish stored for that URL. None is no error
// here: the client refuses to notarize without one.
func APIToken(o run.Options, base string) (string, error) {
	if v, ok := o.LookupEnv(client.EnvToken); ok && strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v), nil
	}
	v, ok, err := credential.ReadSecret(o.HomeDir, regclient.TokenSecretName(base))
	if err != nil || !ok {
		return "", err
	}
	return v, nil
}

// readBounded reads a regular file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	fh, err := os.Open(filepath.Clean(path))
	if errors.Is(err, os.ErrNotExist) {
		return nil, contract.Errorf(errcode.ReceiptNotFound, "%s does not exist", path)
	}
	if err != nil {
		return nil, contract.Errorf(errcode.ReceiptUnreadable, "cannot read %s: %v", path, err)
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, contract.Errorf(errcode.ReceiptUnreadable, "%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, contract.Errorf(errcode.ReceiptUnreadable, "cannot read %s: %v", path, err)
	}
	if int64(len(data)) > limit {
		return nil, contract.Errorf(errcode.ReceiptMalformed, "%s is over the %d bytes a receipt file may be", path, limit)
	}
	return data, nil
}
