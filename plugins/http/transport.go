package http

import (
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/plugin"
)

// Transport ceilings: a provider that does not connect or answer within
// these is unavailable.
const (
	dialTimeout           = 10 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	responseHeaderTimeout = 30 * time.Second
)

// newTransport is the live transport: TLS 1.2 at least, no proxy from the
// environment (the destination is the connector's, not the host's), and
// bounded waits. The call's own deadline bounds the whole exchange.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   tlsHandshakeTimeout,
		ResponseHeaderTimeout: responseHeaderTimeout,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// replayTransport answers only from a test's declared exchanges: the first
// one matching the exact method, final URL and body. It never dials.
type replayTransport struct {
	exchanges []plugin.HTTPExchange
	// unmatched describes a request no exchange matched; used is the
	// index of the exchange that answered.
	unmatched string
	used      int
}

func (t *replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		raw, err := io.ReadAll(io.LimitReader(req.Body, MaxRequestBytes+1))
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = raw
	}
	url := req.URL.String()
	for _, x := range t.exchanges {
		if x.Request.Method == req.Method && x.Request.URL == url && sameBody(x.Request.Body, body) {
			t.used = x.Index
			h := http.Header{}
			for k, v := range x.Response.Headers {
				h.Set(k, v)
			}
			return &http.Response{
				StatusCode: x.Response.Status, Status: http.StatusText(x.Response.Status), Header: h,
				Body: io.NopCloser(strings.NewReader(x.Response.Body)), Request: req,
				Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, ContentLength: int64(len(x.Response.Body)),
			}, nil
		}
	}
	desc := req.Method + " " + url
	if body == nil {
		desc += " with no body"
	} else {
		desc += " with a body"
	}
	t.unmatched = desc
	return nil, errUnmatched
}

var errUnmatched = &net.OpError{Op: "replay", Err: io.ErrUnexpectedEOF}

// sameBody compares a declared body (canonical JSON, or nil for none) with
// a sent one structurally.
func sameBody(declared, sent []byte) bool {
	if declared == nil || sent == nil {
		return declared == nil && sent == nil
	}
	c, err := canon.CanonicalJSON(sent)
	return err == nil && bytes.Equal(c, declared)
}
