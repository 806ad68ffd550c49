package testserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Postgres is a PostgreSQL server started for a test on 127.0.0.1 and a free
// port, with a password-protected role and database, its cluster in a
// temporary directory. It is stopped and removed when the test ends.
type Postgres struct {
	server
	Host     string
	Port     int
	User     string
	Database string
	// Password is the role's password. It reaches a driver only as a
	// credential, never inside a URL.
	Password string
	dir      string
}

// StartPostgres initializes a cluster and starts PostgreSQL.
//
// PostgreSQL refuses to run as root, so when the test runs as root the
// cluster belongs to the postgres user and the server runs as that user.
//
// The server runs with fsync off: a commit still writes its WAL before it is
// acknowledged (synchronous_commit stays on), so an acknowledged commit
// survives the server being killed — what the crash tests do — but not the
// host losing power, which no test simulates.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	bin := requireBinary(t, postgresBinDir(), "PostgreSQL", "apt-get install postgresql")
	cred, owner := postgresCredential(t)
	dir, err := os.MkdirTemp("", "runx-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := &Postgres{Host: "127.0.0.1", Port: freePort(t), User: "runx", Database: "runx", Password: randomSecret(t), dir: dir}
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	pwfile := filepath.Join(dir, "pwfile")
	if err := os.Mkdir(sock, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pwfile, []byte(p.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if owner != nil {
		for _, path := range []string{dir, sock, pwfile} {
			if err := os.Chown(path, owner[0], owner[1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", p.User, "--pwfile", pwfile,
		"--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	os.Remove(pwfile)
	p.log = filepath.Join(dir, "postgres.log")
	p.sig = syscall.SIGINT // fast shutdown
	p.start = func() (*process, error) {
		cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", sock, "-p", strconv.Itoa(p.Port),
			"-h", p.Host, "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=60",
			"-c", "shared_buffers=64MB", "-c", "log_min_messages=warning")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		return startProcess(cmd, p.log)
	}
	p.ready = p.ping
	p.launch(t)
	t.Cleanup(p.shutdown)
	if err := p.exec(`CREATE DATABASE ` + p.Database); err != nil {
		t.Fatalf("creating the test database: %v", err)
	}
	return p
}

// URL is the server's URL without a password, as a binding names it.
func (p *Postgres) URL() string {
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", p.User, p.Host, p.Port, p.Database)
}

func (p *Postgres) connString(database string) string {
	return fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=%s sslmode=disable connect_timeout=2",
		p.Host, p.Port, p.User, p.Password, database)
}

func (p *Postgres) ping() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, p.connString("postgres"))
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

func (p *Postgres) exec(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, p.connString("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql).ReadAll()
	return err
}

// postgresBinDir finds the server binaries: Debian's newest
// /usr/lib/postgresql/<version>/bin, else the directory of initdb on PATH.
func postgresBinDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d
		}
	}
	if initdb, err := exec.LookPath("initdb"); err == nil {
		d := filepath.Dir(initdb)
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d
		}
	}
	return ""
}

// postgresCredential: as root, run as the postgres user (and own the cluster
// directory as it); otherwise run as ourselves.
func postgresCredential(t testing.TB) (*syscall.Credential, []int) {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("running as root needs the postgres user to run PostgreSQL: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, []int{uid, gid}
}
