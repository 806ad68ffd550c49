package registrycmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/registry/server"
	"github.com/runxhq/runx/kernel/registry/server/store"
	"github.com/spf13/cobra"
)

// DatabasePasswordEnv carries the PostgreSQL password: never in --database,
// whose value every user of the machine can read.
const DatabasePasswordEnv = "RUNX_REGISTRY_DATABASE_PASSWORD"

// ReadyPrefix starts the line serve prints once it accepts connections,
// followed by the URL it serves: what a script or a test waits on.
const ReadyPrefix = "runx registry listening on "

// shutdownGrace is how long a stopping server lets requests in flight
// finish; it sits inside the cleanup window an interrupt allows.
const shutdownGrace = 1500 * time.Millisecond

// StoreFlags name the store every server-side verb opens: a data directory
// (SQLite) or a PostgreSQL URL, exactly one.
type StoreFlags struct {
	Data     string
	Database string
}

func (s *StoreFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&s.Data, "data", "", "the registry's data directory (registry.db and registry.key)")
	cmd.Flags().StringVar(&s.Database, "database", "", "a postgres:// URL to keep the registry in, shared by every replica (password in "+DatabasePasswordEnv+")")
}

func (s *StoreFlags) check() error {
	switch {
	case s.Data == "" && s.Database == "":
		return cli.Usagef("name the registry's store: --data <dir> (SQLite) or --database <postgres URL>")
	case s.Data != "" && s.Database != "":
		return cli.Usagef("--data and --database name two stores; give one")
	}
	return nil
}

func (s *StoreFlags) open(ctx context.Context) (store.Store, error) {
	if s.Database != "" {
		return store.OpenPostgres(ctx, store.PostgresConfig{URL: s.Database, Password: os.Getenv(DatabasePasswordEnv)})
	}
	return store.OpenSQLite(ctx, s.Data)
}

// ServeOptions are `runx registry serve`'s arguments.
type ServeOptions struct {
	Factory *cli.Factory
	Store   StoreFlags
	Addr    string
	// URL is the base URL clients reach the registry at; records name it.
	// Empty: http:// and the address it listens on.
	URL  string
	JSON bool
}

// NewServe wires `runx registry serve`.
func NewServe(f *cli.Factory, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "serve --addr <host:port> (--data <dir> | --database <url>)",
		Short: "Serve a registry: search, records, files, its key, and publish under tokens",
		Args:  cli.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkAddr(opts.Addr, opts.URL); err != nil {
				return err
			}
			if err := opts.Store.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return RunServe(c.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", "", "the address to listen on, host:port")
	cmd.Flags().StringVar(&opts.URL, "url", "", "the registry's base URL as clients reach it (default http://<addr>)")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print the readiness line as one JSON document")
	opts.Store.add(cmd)
	return cmd
}

// checkAddr refuses an address that is not host:port, and a server
// reachable off this machine without --url: its records would name an
// address like http://[::]:8080, which no client can trust or reach.
func checkAddr(addr, base string) error {
	if addr == "" {
		return cli.Usagef("--addr is required (host:port; port 0 picks a free one)")
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return cli.Usagef("--addr %q is not host:port", addr)
	}
	ip := net.ParseIP(host)
	if base == "" && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return cli.Usagef("--addr %s is reachable off this machine: give --url, the https URL clients reach the registry at, which every record names", addr)
	}
	return nil
}

// RunServe serves until ctx ends (SIGTERM or SIGINT), then stops accepting,
// lets requests in flight finish within shutdownGrace and closes the store:
// a publish in flight either commits whole or not at all.
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
	srv, err := server.New(ctx, server.Config{Store: st, URL: base, Log: f.IO.Err})
	if err != nil {
		ln.Close()
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	hs := server.HTTPServer(srv.Handler())
	stopped := make(chan struct{})
	f.AtInterrupt(func() { <-stopped })
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	key := registry.FormatPublicKey(srv.PublicKey())
	if opts.JSON {
		fmt.Fprintf(f.IO.Out, `{"schema":"runx.registry_serve.v1","status":"listening","url":%q,"key":%q}`+"\n", srv.URL(), key)
	} else {
		fmt.Fprintf(f.IO.Out, "%s%s (key %s)\n", ReadyPrefix, srv.URL(), key)
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
	// SIGTERM is how a server is asked to stop: its orderly stop is a
	// success (0). SIGINT is an interrupt, 130 as for every runx command.
	if errors.Is(context.Cause(ctx), cli.ErrInterrupted) {
		return cli.Exit(cli.ExitInterrupted)
	}
	return nil
}
