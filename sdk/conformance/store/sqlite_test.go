package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/plugins/store/driver/sqlite"
	"github.com/runxhq/runx/sdk/conformance/store"
	"github.com/runxhq/runx/sdk/store/driver"
)

func TestSQLite(t *testing.T) {
	t.Parallel()
	store.Run(t, func(t testing.TB) driver.Driver {
		d, err := sqlite.Open(context.Background(), sqlite.Config{
			Path: filepath.Join(t.TempDir(), "store.sqlite"),
			// The suite commits 100,000+ appends; syncing each to disk would
			// only measure the disk. Durability of FULL is the default.
			Synchronous: sqlite.SynchronousNormal,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	})
}
