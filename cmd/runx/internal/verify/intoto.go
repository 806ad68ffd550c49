package verify

import (
	"context"
	"errors"
	"io/fs"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/attest"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/spf13/cobra"
)

// addInTotoFlag is --in-toto: print the verified tree as an in-toto
// Statement in a DSSE envelope instead of the report.
func addInTotoFlag(cmd *cobra.Command, opts *Options) {
	cmd.Flags().BoolVar(&opts.InToto, "in-toto", false, "print the verified receipt tree as an in-toto Statement (v1) in a DSSE envelope signed with this runx home's receipt key")
}

// checkInToto refuses --in-toto beside --notary: one attests a local
// receipt tree, the other checks a notary's document.
func (o *Options) checkInToto() error {
	if o.InToto && o.Notary.requested() {
		return cli.Usagef("--in-toto attests a receipt tree this runx home signed; it does not go with --notary")
	}
	return nil
}

// runInToto verifies the tree the receipt belongs to and, only when it
// verified, prints the tree under the receipt as an attestation signed
// with the runx home's receipt key, which must be the key that signed it.
func runInToto(ctx context.Context, opts *Options) cli.ExitCode {
	io := opts.Factory.IO
	return opts.Factory.ReadKernel(ctx, opts.JSON, func(k *run.Kernel) cli.ExitCode {
		id, err := k.VerifyTarget(ctx, opts.ReceiptID)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		rep, err := k.Verify(ctx, id)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		key, err := receipt.LoadKey(k.Options.HomeDir)
		if errors.Is(err, fs.ErrNotExist) {
			err = contract.Errorf(errcode.AttestationKeyMismatch, "this runx home has no receipt key, so it signed no receipt to attest")
		}
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		env, err := attest.Attest(ctx, k.Receipt, rep, id, key)
		if err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		_ = cli.PrintJSON(io.Out, env)
		return cli.ExitOK
	})
}
