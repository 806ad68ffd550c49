package store_test

import (
	"context"
	"testing"

	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/plugins/store/driver/postgres"
	"github.com/runxhq/runx/plugins/store/driver/redis"
	"github.com/runxhq/runx/sdk/conformance/store"
	"github.com/runxhq/runx/sdk/store/driver"
)

func TestRedisCrash(t *testing.T) {
	t.Parallel()
	server := testserver.StartRedis(t)
	store.RunCrash(t, store.CrashTarget{
		Open: func(t testing.TB) driver.Driver {
			d, err := redis.Open(context.Background(), redis.Config{
				Endpoint: server.Endpoint(), Password: server.Password, KeyPrefix: "runx:crash",
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			return d
		},
		Kill:    server.Kill,
		Restart: server.Restart,
	})
}

func TestPostgresCrash(t *testing.T) {
	t.Parallel()
	server := testserver.StartPostgres(t)
	store.RunCrash(t, store.CrashTarget{
		Open: func(t testing.TB) driver.Driver {
			d, err := postgres.Open(context.Background(), postgres.Config{
				URL: server.URL(), Password: server.Password, Schema: "crash",
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			return d
		},
		Kill:    server.Kill,
		Restart: server.Restart,
	})
}
