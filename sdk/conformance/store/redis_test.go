package store_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/plugins/store/driver/redis"
	"github.com/runxhq/runx/sdk/conformance/store"
	"github.com/runxhq/runx/sdk/store/driver"
)

func TestRedis(t *testing.T) {
	t.Parallel()
	server := testserver.StartRedis(t)
	var n atomic.Int64
	store.Run(t, func(t testing.TB) driver.Driver {
		// Each opener gets its own key prefix: an empty store.
		d, err := redis.Open(context.Background(), redis.Config{
			Endpoint:  server.Endpoint(),
			Password:  server.Password,
			KeyPrefix: fmt.Sprintf("runx:conformance:%d", n.Add(1)),
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	})
}
