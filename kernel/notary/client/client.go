// Package client is what runx sends a notary: a sealed receipt to
// notarize, and the reads a verifier needs (a record, a consistency proof).
// It holds the public API's rules: HTTPS off this machine, a loopback or
// private address only when the caller opted in, no redirects, bounded
// answers, and a token that never appears in an error.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/runxhq/runx/internal/apierror"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/notary"
	"github.com/runxhq/runx/sdk/errcode"
)

// The public API's environment.
const (
	EnvURL     = "RUNX_PUBLIC_API_BASE_URL"
	EnvToken   = "RUNX_PUBLIC_API_TOKEN"
	DefaultURL = "https://api.runx.ai"
)

const (
	connectTimeout = 10 * time.Second
	requestTimeout = 60 * time.Second
	errorLimit     = 16 << 10
	proofLimit     = 16 << 10
)

// ResolveURL is the API a command uses: the flag, else
// RUNX_PUBLIC_API_BASE_URL, else DefaultURL.
func ResolveURL(flag string, lookupEnv func(string) (string, bool)) string {
	if flag != "" {
		return flag
	}
	if v, ok := lookupEnv(EnvURL); ok && strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v)
	}
	return DefaultURL
}

// CheckURL returns the API's base URL without a trailing slash, or the
// typed refusal of rawURL: not absolute http(s), holding credentials, a
// query or a fragment; plain http to another machine; or a loopback or
// private address without allowLocal.
func CheckURL(rawURL string, allowLocal bool) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", contract.Errorf(errcode.NotaryURLInvalid, "API URL %q is not an absolute http(s) URL", rawURL)
	}
	local := isLocalHost(u.Hostname())
	switch {
	case u.User != nil:
		return "", contract.Errorf(errcode.NotaryURLInvalid, "API URL must not hold credentials")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || strings.ContainsAny(rawURL, "?#"):
		return "", contract.Errorf(errcode.NotaryURLInvalid, "API URL %q must not hold a query or fragment", rawURL)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", contract.Errorf(errcode.NotaryURLInvalid, "API URL %q is not an http(s) URL", rawURL)
	case u.Scheme == "http" && !local:
		return "", contract.Errorf(errcode.NotaryInsecureURL, "API URL %q is plain http to another machine: use https, so the token never crosses the network in the clear", rawURL)
	case local && !allowLocal:
		return "", contract.Errorf(errcode.NotaryLocalAPIRefused, "API URL %q is on this machine or a private network: pass --allow-local-api to use it", rawURL)
	}
	return u.Scheme + "://" + u.Host + strings.TrimRight(u.EscapedPath(), "/"), nil
}

// isLocalHost is localhost, a loopback, private or link-local address.
func isLocalHost(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())
}

// Client talks to one notary.
type Client struct {
	base  string
	token string
	http  *http.Client
}

// New returns a client for the API at base (a URL CheckURL returned).
func New(base, token string) *Client {
	return &Client{base: base, token: token, http: &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: connectTimeout}).DialContext,
			TLSHandshakeTimeout:   connectTimeout,
			ResponseHeaderTimeout: requestTimeout,
			ForceAttemptHTTP2:     true,
			MaxIdleConnsPerHost:   4,
		},
		Timeout: requestTimeout,
		// A redirect could lead off https or carry the token elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// URL is the notary's base URL.
func (c *Client) URL() string { return c.base }

// Notarize sends one sealed receipt and returns the notary's record of it,
// refusing a record for another content hash than contentHash.
func (c *Client) Notarize(ctx context.Context, sealedReceipt []byte, contentHash string) (*notary.Record, []byte, error) {
	if c.token == "" {
		return nil, nil, contract.Errorf(errcode.NotaryTokenMissing, "notarizing needs a token: export %s or pipe it to runx login --for publish --api-base-url %s", EnvToken, c.base)
	}
	raw, err := c.exchange(ctx, http.MethodPost, "/v1/receipts/notarize", nil, sealedReceipt, notary.MaxRecordBytes)
	if err != nil {
		return nil, nil, err
	}
	rec, err := c.decodeRecord(raw, contentHash)
	return rec, raw, err
}

// Record reads the record of a content hash.
func (c *Client) Record(ctx context.Context, contentHash string) (*notary.Record, []byte, error) {
	raw, err := c.exchange(ctx, http.MethodGet, notary.LinkPath(contentHash), nil, nil, notary.MaxRecordBytes)
	if err != nil {
		return nil, nil, err
	}
	rec, err := c.decodeRecord(raw, contentHash)
	return rec, raw, err
}

func (c *Client) decodeRecord(raw []byte, contentHash string) (*notary.Record, error) {
	rec, err := notary.DecodeRecord(raw)
	if err != nil {
		return nil, contract.Errorf(errcode.NotaryResponseInvalid, "the notary's answer is not a record: %v", err)
	}
	if rec.Statement.ContentHash != contentHash {
		return nil, contract.Errorf(errcode.NotaryResponseInvalid, "the notary answered the record of %s, not of %s", rec.Statement.ContentHash, contentHash)
	}
	return rec, nil
}

// ProveTree fetches the proof that the log's tree of old entries is a
// prefix of its tree of new: notary.ProveTree.
func (c *Client) ProveTree(ctx context.Context, old, new int64) (tlog.TreeProof, error) {
	q := url.Values{"old": {strconv.FormatInt(old, 10)}, "new": {strconv.FormatInt(new, 10)}}
	raw, err := c.exchange(ctx, http.MethodGet, "/v1/log/consistency", q, nil, proofLimit)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Old, New int64
		Proof    tlog.TreeProof
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Old != old || doc.New != new {
		return nil, contract.Errorf(errcode.NotaryResponseInvalid, "the notary's consistency proof is not for %d and %d entries", old, new)
	}
	return doc.Proof, nil
}

// exchange sends one request and returns a 2xx answer's body, read under
// limit; any other answer is the typed error it carries.
func (c *Client) exchange(ctx context.Context, method, path string, query url.Values, body []byte, limit int64) ([]byte, error) {
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
		return nil, contract.Errorf(errcode.NotaryURLInvalid, "cannot address %s: %v", path, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("notary %s: %w", path, context.Cause(ctx))
		}
		return nil, contract.Errorf(errcode.NotaryUnavailable, "cannot reach the notary %s: %s", c.base, c.scrub(rootCause(err)))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.refusal(resp, path)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, contract.Errorf(errcode.NotaryUnavailable, "the notary's answer to %s broke off: %s", path, c.scrub(rootCause(err)))
	}
	if int64(len(raw)) > limit {
		return nil, contract.Errorf(errcode.NotaryResponseInvalid, "the notary's answer to %s is over the %d bytes runx reads for it", path, limit)
	}
	return raw, nil
}

func rootCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// serverCode is a code runx passes on from a notary's error: the notary's
// own, or the receipt check's that refused what was sent.
var serverCode = regexp.MustCompile(`^(notary|receipt|signature)_[a-z0-9_]{1,64}$`)

func (c *Client) refusal(resp *http.Response, path string) error {
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return contract.Errorf(errcode.NotaryResponseInvalid, "the notary redirected %s (HTTP %d); runx does not follow redirects with a token", path, resp.StatusCode)
	}
	given, message := apierror.Read(resp, errorLimit)
	msg := c.scrub(message)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	code := errcode.NotaryUnavailable
	switch {
	case serverCode.MatchString(given):
		code = errcode.Code(given)
	case resp.StatusCode == http.StatusNotFound:
		code = errcode.NotaryNotFound
	case resp.StatusCode == http.StatusUnauthorized:
		code = errcode.NotaryTokenInvalid
	}
	return contract.Errorf(code, "the notary refused %s (HTTP %d): %s", path, resp.StatusCode, msg)
}

// scrub makes a notary's text fit to print: one line, at most 300
// characters, never holding the token.
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
