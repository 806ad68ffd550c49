package notarycmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/notary"
	"github.com/runxhq/runx/kernel/notary/server"
	"github.com/spf13/cobra"
)

// ReadyPrefix starts the line serve prints once it accepts connections,
// followed by the URL it serves: what a script or a test waits on.
const ReadyPrefix = "runx notary listening on "

// shutdownGrace is how long a stopping server lets requests in flight
// finish.
const shutdownGrace = 1500 * time.Millisecond

// ServeOptions are `runx notary serve`'s arguments.
type ServeOptions struct {
	Factory *cli.Factory
	Store   StoreFlags
	Addr    string
	// URL is the base URL clients reach the notary at; records link it.
	// Empty: http:// and the address it listens on.
	URL string
	// PerMinute and Burst bound each token's notarizes.
	PerMinute, Burst int
	JSON             bool
}

// NewServe wires `runx notary serve`.
func NewServe(f *cli.Factory, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "serve --addr <host:port> (--data <dir> | --database <url>)",
		Short: "Serve a notary: notarize under tokens, public records at /r, a transparency log",
		Args:  cli.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkAddr(opts.Addr, opts.URL); err != nil {
				return err
			}
			if err := opts.Store.check(); err != nil {
				return err
			}
			if opts.PerMinute < 1 || opts.Burst < 1 {
				return cli.Usagef("--rate and --burst are at least 1")
			}
			if runF != nil {
				return runF(opts)
			}
			return RunServe(c.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", "", "the address to listen on, host:port")
	cmd.Flags().StringVar(&opts.URL, "url", "", "the notary's base URL as clients reach it (default http://<addr>)")
	cmd.Flags().IntVar(&opts.PerMinute, "rate", server.DefaultPerMinute, "notarizes each token may send a minute")
	cmd.Flags().IntVar(&opts.Burst, "burst", server.DefaultBurst, "notarizes each token may send at once")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print the readiness line as one JSON document")
	opts.Store.add(cmd)
	return cmd
}

// RunServe serves until ctx ends (SIGTERM or SIGINT), then stops accepting,
// lets requests in flight finish within shutdownGrace and closes the store:
// an append in flight commits whole or not at all.
func RunServe(ctx context.Context, opts *ServeOptions) error {
	f := opts.Factory
	st, err := opts.Store.open(ctx)
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	defer st.Close()
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	base := opts.URL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	srv, err := server.New(ctx, server.Config{Store: st, URL: base, Log: f.IO.Err, PerMinute: opts.PerMinute, Burst: opts.Burst})
	if err != nil {
		ln.Close()
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	hs := server.HTTPServer(srv.Handler())
	stopped := make(chan struct{})
	f.AtInterrupt(func() { <-stopped })
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	pub := srv.PublicKey()
	if opts.JSON {
		// One line: a script reads the readiness line up to its newline.
		line, _ := json.Marshal(readiness{Schema: "runx.notary_serve.v1", Status: "listening", URL: srv.URL(),
			KeyID: notary.KeyID(pub), Origin: notary.Origin(pub), PublicKey: string(notary.FormatPublicKey(pub))})
		fmt.Fprintf(f.IO.Out, "%s\n", line)
	} else {
		fmt.Fprintf(f.IO.Out, "%s%s (log %s, key %s)\n", ReadyPrefix, srv.URL(), notary.Origin(pub), notary.KeyID(pub))
	}
	select {
	case err = <-served:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
		err = hs.Shutdown(sctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			err = hs.Close()
		}
	}
	st.Close()
	close(stopped)
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	if errors.Is(context.Cause(ctx), cli.ErrInterrupted) {
		return cli.Exit(cli.ExitInterrupted)
	}
	return nil
}

type readiness struct {
	Schema    string `json:"schema"`
	Status    string `json:"status"`
	URL       string `json:"url"`
	KeyID     string `json:"key_id"`
	Origin    string `json:"origin"`
	PublicKey string `json:"public_key"`
}
