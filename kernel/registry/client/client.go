package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/runxhq/runx/internal/apierror"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// The environment variables a registry command reads.
const (
	EnvURL   = "RUNX_REGISTRY_URL"
	EnvToken = "RUNX_REGISTRY_TOKEN"
)

// The most runx reads of each answer. A record is small (the file list and
// a signature); the files are the package, which the registry holds to 64
// MiB, sent as base64 (4/3 of it) inside JSON. Every other document (search,
// versions, keys, whoami, a publish answer) fits in documentLimit; an error
// body in errorLimit.
const (
	RecordLimit   int64 = 1 << 20
	FilesLimit    int64 = 96 << 20
	documentLimit int64 = 4 << 20
	errorLimit    int64 = 64 << 10
)

// DefaultTimeout bounds one whole exchange with the registry, answer read
// included: a 96 MiB package at a few MB/s fits, a stalled server does not
// hold a run's start for ever.
const DefaultTimeout = 60 * time.Second

// connectTimeout bounds dialing, the TLS handshake and the wait for the
// answer's headers, each.
const connectTimeout = 10 * time.Second

// Options configure a Client.
type Options struct {
	// Token is the publisher token sent as a bearer token to publish and
	// whoami, never to a read.
	Token string
	// Timeout bounds one exchange; zero is DefaultTimeout.
	Timeout time.Duration
	// Transport replaces the default transport (tests).
	Transport http.RoundTripper
}

// Client talks to one registry.
type Client struct {
	base  string // scheme://host[:port][/path], no trailing slash
	token string
	http  *http.Client
	// The bounds on a record and on a version's files (tests lower them).
	recordLimit, filesLimit int64
}

// ResolveURL is the registry a command uses: the --registry flag, else
// RUNX_REGISTRY_URL; neither is registry_unavailable.
func ResolveURL(flag string, lookupEnv func(string) (string, bool)) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if v, ok := lookupEnv(EnvURL); ok && strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v), nil
	}
	return "", contract.Errorf(errcode.RegistryUnavailable, "no registry is named: pass --registry <url> or set %s", EnvURL)
}

// New returns a client for the registry at rawURL, refusing a URL that is
// not absolute http(s), holds credentials, a query or a fragment, or is
// plain http to a host other than this machine.
func New(rawURL string, o Options) (*Client, error) {
	base, err := CheckURL(rawURL)
	if err != nil {
		return nil, err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tr := o.Transport
	if tr == nil {
		tr = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: connectTimeout}).DialContext,
			TLSHandshakeTimeout:   connectTimeout,
			ResponseHeaderTimeout: connectTimeout,
			ForceAttemptHTTP2:     true,
			MaxIdleConnsPerHost:   4,
		}
	}
	return &Client{
		base:  base,
		token: o.Token,
		http: &http.Client{
			Transport: tr,
			Timeout:   timeout,
			// A redirect is answered as it came: it could lead off
			// https, or carry the token to another host.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		recordLimit: RecordLimit,
		filesLimit:  FilesLimit,
	}, nil
}

// CheckURL returns the registry's base URL without a trailing slash, or
// the typed refusal of rawURL.
func CheckURL(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", contract.Errorf(errcode.RegistryURLInvalid, "registry URL %q is not an absolute http(s) URL", rawURL)
	}
	switch {
	case u.User != nil:
		return "", contract.Errorf(errcode.RegistryURLInvalid, "registry URL must not hold credentials")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || strings.ContainsAny(rawURL, "?#"):
		return "", contract.Errorf(errcode.RegistryURLInvalid, "registry URL %q must not hold a query or fragment", rawURL)
	case u.Scheme == "https":
	case u.Scheme == "http" && isLoopbackHost(u.Hostname()):
	case u.Scheme == "http":
		return "", contract.Errorf(errcode.RegistryInsecureURL, "registry URL %q is plain http to another machine: use https (http only to localhost or a loopback address)", rawURL)
	default:
		return "", contract.Errorf(errcode.RegistryURLInvalid, "registry URL %q is not an http(s) URL", rawURL)
	}
	return u.Scheme + "://" + u.Host + strings.TrimRight(u.EscapedPath(), "/"), nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL is the registry's base URL as the client uses it.
func (c *Client) URL() string { return c.base }

// getJSON reads the JSON answer of GET path into out, at most limit bytes.
func (c *Client) getJSON(ctx context.Context, path string, query url.Values, limit int64, out any) error {
	raw, err := c.exchange(ctx, http.MethodGet, path, query, nil, false, limit)
	if err != nil {
		return err
	}
	return decode(raw, out, path)
}

// exchange sends one request and returns the body of a 2xx answer, read
// under limit; any other answer is the typed error it carries.
func (c *Client) exchange(ctx context.Context, method, path string, query url.Values, body []byte, auth bool, limit int64) ([]byte, error) {
	target := c.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, contract.Errorf(errcode.RegistryURLInvalid, "cannot address %s: %v", path, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("registry %s: %w", path, context.Cause(ctx))
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, contract.Errorf(errcode.RegistryUnreachable, "the registry %s did not answer %s in time", c.base, path)
		}
		return nil, contract.Errorf(errcode.RegistryUnreachable, "cannot reach the registry %s: %s", c.base, c.scrub(rootCause(err)))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.refusal(resp, path)
	}
	if resp.ContentLength > limit {
		return nil, tooLarge(path, limit)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("registry %s: %w", path, context.Cause(ctx))
		}
		return nil, contract.Errorf(errcode.RegistryUnreachable, "the registry's answer to %s broke off: %s", path, c.scrub(rootCause(err)))
	}
	if int64(len(raw)) > limit {
		return nil, tooLarge(path, limit)
	}
	return raw, nil
}

func tooLarge(path string, limit int64) error {
	return contract.Errorf(errcode.RegistryResponseTooLarge, "the registry's answer to %s is over the %d bytes runx reads for it", path, limit)
}

// rootCause drops the method and URL net/http puts before a transport
// error: the message names the registry once.
func rootCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// serverCode is the form of a code runx passes on from a registry's error:
// a registry code, which the registry's own documentation names.
var serverCode = regexp.MustCompile(`^registry_[a-z0-9_]{1,64}$`)

// refusal is the typed error of a non-2xx answer: the registry's own code
// when it is a registry code, else one the status implies. Its message is
// the registry's, cut short, without control characters or the token.
func (c *Client) refusal(resp *http.Response, path string) error {
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return contract.Errorf(errcode.RegistryResponseInvalid, "the registry redirected %s (HTTP %d); runx does not follow registry redirects: use the URL it names if you trust it", path, resp.StatusCode)
	}
	given, message := apierror.Read(resp, errorLimit)
	msg := c.scrub(message)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	code := errcode.RegistryRefused
	switch {
	case serverCode.MatchString(given):
		code = errcode.Code(given)
	case resp.StatusCode == http.StatusNotFound:
		code = errcode.RegistryVersionNotFound
	case resp.StatusCode == http.StatusUnauthorized:
		code = errcode.RegistryTokenMissing
	}
	return &httpError{err: contract.Errorf(code, "the registry refused %s (HTTP %d): %s", path, resp.StatusCode, msg), status: resp.StatusCode}
}

// httpError is a registry's refusal with the status it came with.
type httpError struct {
	err    *contract.Error
	status int
}

func (e *httpError) Error() string           { return e.err.Error() }
func (e *httpError) Unwrap() error           { return e.err }
func (e *httpError) ErrorCode() errcode.Code { return e.err.Code }

// scrub makes a registry's text fit to print: one line of printable
// characters, at most 300, never holding the token runx sent.
func (c *Client) scrub(s string) string {
	if c.token != "" {
		s = strings.ReplaceAll(s, c.token, "[token]")
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || !unicode.IsPrint(r) && r != ' ' {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}

// decode reads one JSON document into out.
func decode(raw []byte, out any, path string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(out); err != nil {
		return contract.Errorf(errcode.RegistryResponseInvalid, "the registry's answer to %s is not the document its API promises: %v", path, err)
	}
	if dec.More() {
		return contract.Errorf(errcode.RegistryResponseInvalid, "the registry's answer to %s holds more than one JSON document", path)
	}
	return nil
}

// seg escapes one path segment.
func seg(s string) string { return url.PathEscape(s) }

// TokenSecretName is the name under which runx login --for publish keeps
// the publisher token of the registry at base (a URL CheckURL returned) in
// the runx home's secrets: one per registry, so a token is only ever sent
// to the registry that issued it.
func TokenSecretName(base string) string {
	host := strings.TrimPrefix(strings.TrimPrefix(base, "https://"), "http://")
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, host)
	if strings.HasPrefix(base, "http://") {
		name = "http_" + name
	}
	name = "registry-publish-" + name
	if len(name) > 128 {
		// Long paths are told apart by a digest of the whole URL.
		sum := sha256.Sum256([]byte(base))
		name = name[:100] + "-" + hex.EncodeToString(sum[:8])
	}
	return name
}
