// Package notarycmd is `runx notarize` and the `runx notary` command group:
// sending a sealed receipt to a notary, and the notary server with its
// tokens and key. Each verb is its own file; kernel/notary (and its server
// and client packages) own the logic, this package only parses and
// presents.
package notarycmd

import (
	"context"
	"net"
	"os"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/notary/server/store"
	"github.com/spf13/cobra"
)

// New wires `runx notary` and its verbs.
func New(f *cli.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "notary", Short: "Serve a notary: counter-seal receipts into a transparency log anyone can check"}
	cmd.AddCommand(NewServe(f, nil), NewKey(f, nil), NewToken(f, nil))
	return cmd
}

// DatabasePasswordEnv carries the PostgreSQL password: never in --database,
// whose value every user of the machine can read.
const DatabasePasswordEnv = "RUNX_NOTARY_DATABASE_PASSWORD"

// StoreFlags name the store every server-side verb opens: a data directory
// (SQLite) or a PostgreSQL URL, exactly one.
type StoreFlags struct {
	Data     string
	Database string
}

func (s *StoreFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&s.Data, "data", "", "the notary's data directory (notary.db and notary.key)")
	cmd.Flags().StringVar(&s.Database, "database", "", "a postgres:// URL to keep the log in, shared by every replica (password in "+DatabasePasswordEnv+")")
}

func (s *StoreFlags) check() error {
	switch {
	case s.Data == "" && s.Database == "":
		return cli.Usagef("name the notary's store: --data <dir> (SQLite) or --database <postgres URL>")
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

// checkAddr refuses an address that is not host:port, and a server
// reachable off this machine without --url: its links would name an
// address like http://[::]:8080, which no client can reach.
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
		return cli.Usagef("--addr %s is reachable off this machine: give --url, the https URL clients reach the notary at, which every record links", addr)
	}
	return nil
}
