package store_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/plugins/store/driver/postgres"
	"github.com/runxhq/runx/sdk/conformance/store"
	"github.com/runxhq/runx/sdk/store/driver"
)

func TestPostgres(t *testing.T) {
	t.Parallel()
	server := testserver.StartPostgres(t)
	var n atomic.Int64
	store.Run(t, func(t testing.TB) driver.Driver {
		// Each opener gets its own PostgreSQL schema: an empty store.
		d, err := postgres.Open(context.Background(), postgres.Config{
			URL:      server.URL(),
			Password: server.Password,
			Schema:   fmt.Sprintf("conformance_%d", n.Add(1)),
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	})
}
