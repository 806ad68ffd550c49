package testserver

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestRedisKillAndRestart(t *testing.T) {
	r := StartRedis(t)
	if err := r.ping(); err != nil {
		t.Fatal(err)
	}
	if err := r.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := net.DialTimeout("tcp", r.Addr, time.Second); err == nil {
		t.Fatal("the killed server still accepts connections")
	}
	r.Restart(t)
	if err := r.ping(); err != nil {
		t.Fatalf("after restart: %v", err)
	}
}

func TestPostgresKillAndRestart(t *testing.T) {
	p := StartPostgres(t)
	if err := p.exec(`CREATE TABLE survives (n int); INSERT INTO survives VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := p.ping(); err == nil {
		t.Fatal("the killed server still answers")
	}
	p.Restart(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, p.connString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	res, err := conn.Exec(ctx, `SELECT n FROM survives`).ReadAll()
	if err != nil || len(res[0].Rows) != 1 {
		t.Fatalf("a committed row did not survive the kill: %v", err)
	}
	if strings.Contains(p.URL(), p.Password) {
		t.Fatal("the URL carries the password")
	}
}
