package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/notary"
	"github.com/runxhq/runx/kernel/notary/client"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
	"golang.org/x/mod/sumdb/tlog"
)

// NotaryOptions are `runx verify --notary`'s flags.
type NotaryOptions struct {
	// Document is the notary's record (runx notarize --out, or /r/<hash>).
	Document string
	// Key is the notary's public key, a PEM file.
	Key string
	// APIBaseURL and AllowLocalAPI name the notary asked for a consistency
	// proof when the record's checkpoint is not the one this home saw.
	APIBaseURL    string
	AllowLocalAPI bool
}

func (n *NotaryOptions) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&n.Document, "notary", "", "verify a notary's record document (runx notarize --out, or its /r link's answer)")
	cmd.Flags().StringVar(&n.Key, "notary-key", "", "the notary's public key, a PEM file (runx notary key)")
	cmd.Flags().StringVar(&n.APIBaseURL, "api-base-url", "", "the notary asked for consistency proofs (default "+client.EnvURL+", else "+client.DefaultURL+")")
	cmd.Flags().BoolVar(&n.AllowLocalAPI, "allow-local-api", false, "allow a notary on this machine or a private network (local dogfood)")
}

func (n *NotaryOptions) requested() bool {
	return n.Document != "" || n.Key != "" || n.APIBaseURL != "" || n.AllowLocalAPI
}

func (n *NotaryOptions) check(args []string) error {
	switch {
	case n.Document == "" || n.Key == "":
		return cli.Usagef("--notary <document> and --notary-key <key.pem> go together")
	case len(args) != 0:
		return cli.Usagef("runx verify --notary checks a notary's record, not a receipt id (%q)", args[0])
	}
	return nil
}

// NotaryReport is what `runx verify --notary --json` prints.
type NotaryReport struct {
	Schema         string             `json:"schema"`
	Status         string             `json:"status"`
	ReceiptID      string             `json:"receipt_id"`
	ContentHash    string             `json:"content_hash"`
	NotarizedAt    string             `json:"notarized_at"`
	LogIndex       int64              `json:"log_index"`
	Origin         string             `json:"origin"`
	NotaryKeyID    string             `json:"notary_key_id"`
	CheckpointSize int64              `json:"checkpoint_size"`
	Consistency    notary.Consistency `json:"consistency"`
}

// RunNotary checks the record offline (counter-seal, checkpoint, inclusion)
// and its checkpoint against the one this runx home last saw; only a
// checkpoint of another size asks the notary, for a consistency proof.
func RunNotary(ctx context.Context, opts *Options) cli.ExitCode {
	io := opts.Factory.IO
	rep, err := verifyNotary(ctx, opts)
	if err != nil {
		return cli.ReportError(io, opts.JSON, err)
	}
	if opts.JSON {
		_ = cli.PrintJSON(io.Out, rep)
		return cli.ExitOK
	}
	fmt.Fprintf(io.Out, "%s %s notarized %s\n  receipt %s, entry %d of %s (checkpoint of %d entries, %s)\n",
		cli.Paint(io.Styled(), "green", rep.Status), rep.ContentHash, rep.NotarizedAt, rep.ReceiptID, rep.LogIndex, rep.Origin, rep.CheckpointSize, rep.Consistency)
	return cli.ExitOK
}

func verifyNotary(ctx context.Context, opts *Options) (*NotaryReport, error) {
	n := &opts.Notary
	o, err := run.ResolveOptions(opts.Factory.Options())
	if err != nil {
		return nil, err
	}
	rawKey, err := readFile(n.Key, 4<<10, errcode.NotaryKeyInvalid)
	if err != nil {
		return nil, err
	}
	pub, err := notary.ParsePublicKey(rawKey)
	if err != nil {
		return nil, err
	}
	doc, err := readFile(n.Document, notary.MaxRecordBytes, errcode.NotaryDocumentInvalid)
	if err != nil {
		return nil, err
	}
	v, err := notary.VerifyRecord(doc, pub)
	if err != nil {
		return nil, err
	}
	prove := func(ctx context.Context, old, new int64) (tlog.TreeProof, error) {
		base, err := client.CheckURL(client.ResolveURL(n.APIBaseURL, o.LookupEnv), n.AllowLocalAPI)
		if err != nil {
			return nil, err
		}
		return client.New(base, "").ProveTree(ctx, old, new)
	}
	c, err := notary.OpenState(o.HomeDir).Check(ctx, pub, v.Checkpoint, prove)
	if err != nil {
		return nil, err
	}
	st := v.Record.Statement
	return &NotaryReport{Schema: "runx.verify_notary.v1", Status: "verified", ReceiptID: st.ReceiptID, ContentHash: st.ContentHash,
		NotarizedAt: st.NotarizedAt, LogIndex: st.LogIndex, Origin: st.Origin, NotaryKeyID: notary.KeyID(pub),
		CheckpointSize: v.Checkpoint.Size, Consistency: c}, nil
}

// readFile reads a regular file of at most limit bytes; what is wrong with
// it is code.
func readFile(path string, limit int64, code errcode.Code) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, contract.Errorf(code, "%s does not exist", path)
		}
		return nil, contract.Errorf(code, "cannot read %s: %v", path, err)
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, contract.Errorf(code, "%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, contract.Errorf(code, "cannot read %s: %v", path, err)
	}
	if int64(len(data)) > limit {
		return nil, contract.Errorf(code, "%s is over the %d bytes runx reads for it", path, limit)
	}
	return data, nil
}
