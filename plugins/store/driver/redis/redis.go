package redis

import (
	"context"
	"net/url"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/store/driver"
)

// Provider is the provider name in result packets.
const Provider = "redis"

// DefaultKeyPrefix is used when a binding names none.
const DefaultKeyPrefix = "runx:store"

// Config opens a store in a Redis database.
type Config struct {
	// Endpoint is a redis:// or rediss:// URL without credentials, as a
	// binding names it (e.g. redis://127.0.0.1:6379/0). One holding a user
	// or password is refused: secrets travel as credentials.
	Endpoint string
	// Username and Password are delivered through the credential boundary;
	// they never appear in an error, evidence or a packet.
	Username string
	Password string
	// KeyPrefix namespaces every key the store writes (the binding's
	// key_prefix); DefaultKeyPrefix when empty.
	KeyPrefix string
	// Limits are the store's caps; zero means the defaults.
	Limits driver.Limits
	// Now is the clock commit times come from; nil means time.Now.
	Now func() time.Time
	// PoolSize bounds connections; 0 means 8.
	PoolSize int
	// CommitTimeout bounds one append once it is sent; 0 means 30s.
	CommitTimeout time.Duration
	// HeadCacheSize bounds the heads remembered between appends; 0 means 4096.
	HeadCacheSize int
}

// Driver is the Redis store: a list per stream, a hash of idempotency keys
// per stream, a heads hash and a keys index per resource, and one Lua script
// doing append, optimistic concurrency and idempotency atomically.
type Driver struct {
	cfg    Config
	limits driver.Limits
	now    func() time.Time
	scrub  driver.Scrubber
	client *goredis.Client
	heads  *headCache
	locks  *streamLocks

	closeMu sync.RWMutex
	closed  bool
}

var _ driver.Driver = (*Driver)(nil)

// Open connects and checks the server answers (and the credentials hold).
func Open(ctx context.Context, cfg Config) (*Driver, error) {
	d := &Driver{cfg: cfg, now: cfg.Now, scrub: driver.NewScrubber(cfg.Password, cfg.Username)}
	opts, err := d.configure()
	if err != nil {
		return nil, err
	}
	d.client = goredis.NewClient(opts)
	if err := d.client.Ping(ctx).Err(); err != nil {
		d.client.Close()
		return nil, d.failure("connect", "", err)
	}
	return d, nil
}

func (d *Driver) configure() (*goredis.Options, error) {
	u, err := url.Parse(d.cfg.Endpoint)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
		return nil, driver.Errorf(errcode.InvalidConfig, "the endpoint must be a redis:// or rediss:// URL with a host")
	}
	if u.User != nil || u.Query().Has("password") {
		return nil, driver.Errorf(errcode.CredentialInEndpoint,
			"the endpoint URL holds credentials; remove them and deliver the password as a credential (runx secret set, or the environment variable the binding's profile names)")
	}
	lim, err := d.cfg.Limits.Normalize()
	if err != nil {
		return nil, err
	}
	d.limits = lim
	if d.now == nil {
		d.now = time.Now
	}
	if d.cfg.KeyPrefix == "" {
		d.cfg.KeyPrefix = DefaultKeyPrefix
	}
	if !validPrefix(d.cfg.KeyPrefix) {
		return nil, driver.Errorf(errcode.InvalidConfig, "key_prefix must be 1..192 letters, digits and . _ : / - (with at most one {hash tag}), starting with a letter or digit")
	}
	if d.cfg.PoolSize <= 0 {
		d.cfg.PoolSize = 8
	}
	if d.cfg.CommitTimeout <= 0 {
		d.cfg.CommitTimeout = 30 * time.Second
	}
	d.heads = newHeadCache(d.cfg.HeadCacheSize)
	d.locks = newStreamLocks()
	opts, err := goredis.ParseURL(d.cfg.Endpoint)
	if err != nil {
		return nil, driver.Errorf(errcode.InvalidConfig, "the endpoint URL cannot be parsed as a Redis URL")
	}
	opts.Username, opts.Password = d.cfg.Username, d.cfg.Password
	opts.PoolSize = d.cfg.PoolSize
	// The driver decides what a failure proves; go-redis must not resend a
	// script on its own.
	opts.MaxRetries = -1
	// Calls bound themselves by their context's deadline; an append, which
	// runs detached from its caller, by the read and write timeouts.
	opts.ContextTimeoutEnabled = true
	opts.ReadTimeout, opts.WriteTimeout = d.cfg.CommitTimeout, d.cfg.CommitTimeout
	return opts, nil
}

// Provider reports "redis".
func (d *Driver) Provider() string { return Provider }

// Close closes the client. It waits for calls in progress.
func (d *Driver) Close() error {
	d.closeMu.Lock()
	defer d.closeMu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	return d.client.Close()
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
