// Package serverdb opens the SQLite database of one of runx's servers (the
// registry, the notary) in its data directory: WAL, full sync on commit,
// immediate write transactions, a 10 s busy wait, and the server's schema
// created when absent.
package serverdb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the "sqlite" driver
)

// OpenSQLite opens (creating when absent) file in dir, made 0700, and runs
// schema on it; what names the server in an error.
func OpenSQLite(ctx context.Context, dir, file, schema, what string) (*sql.DB, string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, file)
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(FULL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, "", err
	}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("creating the %s schema in %s: %w", what, path, err)
	}
	return db, path, nil
}
