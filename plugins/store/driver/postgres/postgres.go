package postgres

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// Provider is the provider name in result packets.
const Provider = "postgres"

// Config opens a store in a PostgreSQL database.
type Config struct {
	// URL is a postgres:// URL without a password, as a binding names it
	// (e.g. postgres://runx@db.internal:5432/runx?sslmode=verify-full). A URL
	// holding a password is refused: secrets travel as credentials.
	URL string
	// Password is delivered through the credential boundary; it never
	// appears in an error, evidence or a packet.
	Password string
	// Schema is the PostgreSQL schema (namespace) holding the store's tables;
	// "runx_store" when empty. It is created if absent.
	Schema string
	// Limits are the store's caps; zero means the defaults.
	Limits driver.Limits
	// Now is the clock commit times come from; nil means time.Now.
	Now func() time.Time
	// MaxConns bounds the pool; 0 means 8.
	MaxConns int
	// CommitTimeout bounds one append once it is sent; 0 means 30s.
	CommitTimeout time.Duration
}

// Driver is the PostgreSQL store: a pool of pgx connections with named
// statements, and one append routine (runx_store_append) called in one round
// trip per append.
type Driver struct {
	cfg    Config
	limits driver.Limits
	now    func() time.Time
	scrub  driver.Scrubber
	pool   *pool

	closeMu sync.RWMutex
	closed  bool
}

var _ driver.Driver = (*Driver)(nil)

// Open connects, creates the store's schema if absent, and prepares the
// named statements on every pooled connection.
func Open(ctx context.Context, cfg Config) (*Driver, error) {
	d := &Driver{cfg: cfg, now: cfg.Now, scrub: driver.NewScrubber(cfg.Password)}
	connCfg, err := d.configure()
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, connCfg.Copy())
	if err != nil {
		return nil, d.failure("connect", "", err)
	}
	err = d.ensureSchema(ctx, conn)
	conn.Close(ctx)
	if err != nil {
		return nil, err
	}
	if d.pool, err = newPool(ctx, connCfg, d.cfg.MaxConns, prepareStatements(d.cfg.Schema)); err != nil {
		return nil, d.failure("connect", "", err)
	}
	return d, nil
}

func (d *Driver) configure() (*pgx.ConnConfig, error) {
	u, err := url.Parse(d.cfg.URL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		return nil, driver.Errorf(errcode.InvalidConfig, "the endpoint must be a postgres:// URL with a host")
	}
	if _, has := u.User.Password(); has || u.Query().Has("password") || strings.Contains(strings.ToLower(u.RawQuery), "password") {
		return nil, driver.Errorf(errcode.CredentialInEndpoint,
			"the endpoint URL holds a password; remove it and deliver the password as a credential (runx secret set, or the environment variable the binding's profile names)")
	}
	lim, err := d.cfg.Limits.Normalize()
	if err != nil {
		return nil, err
	}
	d.limits = lim
	if d.now == nil {
		d.now = time.Now
	}
	if d.cfg.Schema == "" {
		d.cfg.Schema = "runx_store"
	}
	if !validSchemaName(d.cfg.Schema) {
		return nil, driver.Errorf(errcode.InvalidConfig, "the schema name must be 1..63 lowercase letters, digits and _, not starting with pg_")
	}
	if d.cfg.MaxConns <= 0 {
		d.cfg.MaxConns = 8
	}
	if d.cfg.CommitTimeout <= 0 {
		d.cfg.CommitTimeout = 30 * time.Second
	}
	connCfg, err := pgx.ParseConfig(d.cfg.URL)
	if err != nil {
		// pgx quotes the connection string in its errors; say only what is wrong.
		return nil, driver.Errorf(errcode.InvalidConfig, "the endpoint URL cannot be parsed as a PostgreSQL connection string")
	}
	connCfg.Password = d.cfg.Password
	return connCfg, nil
}

// Provider reports "postgres".
func (d *Driver) Provider() string { return Provider }

// Close closes the pool. It waits for calls in progress.
func (d *Driver) Close() error {
	d.closeMu.Lock()
	defer d.closeMu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	d.pool.close()
	return nil
}

func (d *Driver) enter() (func(), error) {
	d.closeMu.RLock()
	if d.closed {
		d.closeMu.RUnlock()
		return nil, driver.Closed(Provider)
	}
	return d.closeMu.RUnlock, nil
}

func (d *Driver) failure(stage, commitState string, err error) error {
	return d.scrub.Failure(Provider, stage, commitState, err)
}
