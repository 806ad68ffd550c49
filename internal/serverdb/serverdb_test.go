package serverdb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The directory is made private, the schema is created, and the database
// runs in WAL mode; a schema that does not run is an error naming the
// server, with no database left open.
func TestOpenSQLite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db, path, err := OpenSQLite(context.Background(), dir, "x.db", "CREATE TABLE IF NOT EXISTS t (a TEXT);", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 || path != filepath.Join(dir, "x.db") {
		t.Fatalf("dir %v %v, path %s", info, err, path)
	}
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q %v", mode, err)
	}
	if _, err := db.Exec("INSERT INTO t VALUES ('x')"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenSQLite(context.Background(), dir, "y.db", "NOT SQL", "test"); err == nil || !strings.Contains(err.Error(), "creating the test schema") {
		t.Fatalf("a bad schema: %v", err)
	}
}
