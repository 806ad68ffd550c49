package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// Name is the plugin's name; its capability id is http.request.
const Name = "http"

// Version is the plugin's own version; the kernel records it in receipts.
const Version = "0.1.0"

// CapabilityRequest sends one connector operation's request.
const CapabilityRequest = "http.request"

// Ceilings of one connector request. A provider operation answers with a
// bounded document; anything larger is no operation answer.
const (
	MaxRequestBytes  = 1 << 20
	MaxResponseBytes = 4 << 20
	maxRedirects     = 5
	// maxMessageBytes bounds the provider's own error message a refusal
	// carries.
	maxMessageBytes = 200
)

// Plugin sends connector requests over one shared transport, so
// connections to a provider are reused across calls.
type Plugin struct {
	transport http.RoundTripper

	mu       sync.Mutex
	bindings map[string]*plugin.ConnectorBinding
}

// bindingCacheSize bounds the decoded bindings kept: a run calls few
// operations, each with the same binding every time.
const bindingCacheSize = 64

// New returns the http plugin.
func New() *Plugin {
	return &Plugin{transport: newTransport(), bindings: map[string]*plugin.ConnectorBinding{}}
}

// binding decodes a call's binding, reusing the decoding of the same bytes
// (a binding is immutable once decoded: Invoke copies it).
func (p *Plugin) binding(raw []byte) (*plugin.ConnectorBinding, error) {
	p.mu.Lock()
	b, ok := p.bindings[string(raw)]
	p.mu.Unlock()
	if ok {
		return b, nil
	}
	b = &plugin.ConnectorBinding{}
	if err := json.Unmarshal(raw, b); err != nil {
		return nil, err
	}
	p.mu.Lock()
	if len(p.bindings) >= bindingCacheSize {
		clear(p.bindings)
	}
	p.bindings[string(raw)] = b
	p.mu.Unlock()
	return b, nil
}

// Info describes the one capability.
func (*Plugin) Info() plugin.Info {
	return plugin.Info{Name: Name, Version: Version, Capabilities: []plugin.Definition{{
		ID:      CapabilityRequest,
		Summary: "Send one connector operation's request, rendered from its connector's manifest and the operation's inputs.",
		// The operation's own definition (from its manifest) is what the
		// kernel admits; this one describes the transport. It may write.
		Effect: plugin.EffectWrite, Approval: plugin.ApprovalNone,
		Roles:        []string{plugin.RoleConnectorRequest},
		InputSchema:  json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","required":["status"],"properties":{"status":{"type":"integer"}}}`),
	}}}
}

// Invoke renders and sends one request.
func (p *Plugin) Invoke(ctx context.Context, call *plugin.Call) *plugin.Result {
	bp, err := p.binding(call.Context.Binding)
	if err != nil || bp.Connector == "" || bp.Operation == "" {
		return plugin.Refused(errcode.ConnectorRequestInvalid, "http.request sends a connector operation; it needs the binding the kernel resolves from the connector's manifest")
	}
	b := *bp
	var inputs map[string]any
	if len(call.Input) > MaxRequestBytes {
		return plugin.Refused(errcode.ConnectorRequestTooLarge, fmt.Sprintf("operation %s/%s: its input is over the %d-byte request ceiling; nothing was sent", b.Connector, b.Operation, MaxRequestBytes))
	}
	if err := json.Unmarshal(call.Input, &inputs); err != nil {
		return plugin.Refused(errcode.ConnectorRequestInvalid, "the operation's inputs must be one JSON object")
	}
	r, err := plugin.Render(&b, inputs)
	if err != nil {
		return plugin.Refused(errcode.ConnectorRequestInvalid, fmt.Sprintf("operation %s/%s: %v; nothing was sent", b.Connector, b.Operation, err))
	}
	if len(r.Body) > MaxRequestBytes {
		return plugin.Refused(errcode.ConnectorRequestTooLarge, fmt.Sprintf("operation %s/%s: its request body is over the %d-byte ceiling; nothing was sent", b.Connector, b.Operation, MaxRequestBytes))
	}
	headers := http.Header{}
	headers.Set("User-Agent", "runx/"+Version)
	if c := b.Credential; c != nil {
		v := call.Context.Credentials[c.Variable]
		if v == "" {
			return plugin.Refused(errcode.CredentialMissing, fmt.Sprintf("connector %s needs its credential %s, and none was delivered; bind one with runx connector use %s", b.Connector, c.Variable, b.Connector))
		}
		if c.Scheme != "" {
			v = c.Scheme + " " + v
		}
		headers.Set(c.Header, v)
	}
	if b.IdempotencyHeader != "" {
		if call.Context.IdempotencyKey == "" {
			return plugin.Refused(errcode.ConnectorRequestInvalid, fmt.Sprintf("operation %s/%s is deduplicated by its provider under %s, and the call carries no key; nothing was sent", b.Connector, b.Operation, b.IdempotencyHeader))
		}
		headers.Set(b.IdempotencyHeader, call.Context.IdempotencyKey)
	}
	if r.Tool != "" {
		return p.callTool(ctx, &b, r, headers)
	}
	origin, err := checkDestination(b.BaseURL, r.URL)
	if err != nil {
		return plugin.Refused(errcode.ConnectorRequestInvalid, fmt.Sprintf("operation %s/%s: %v; nothing was sent", b.Connector, b.Operation, err))
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, bodyReader(r.Body))
	if err != nil {
		return plugin.Refused(errcode.ConnectorRequestInvalid, fmt.Sprintf("operation %s/%s: %v", b.Connector, b.Operation, err))
	}
	req.Header = headers
	req.Header.Set("Accept", "application/json")
	if r.Body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	transport := p.transport
	var replay *replayTransport
	if b.Replay {
		replay = &replayTransport{exchanges: b.Exchanges}
		transport = replay
	}
	return send(req, transport, origin, &b, replay)
}

func bodyReader(b []byte) io.Reader {
	if b == nil {
		return nil
	}
	return strings.NewReader(string(b))
}

// checkDestination holds the rendered URL to the connector's origin, and
// refuses plain http off loopback. It returns the origin.
func checkDestination(base, rendered string) (string, error) {
	bu, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("connector base_url %q is not a URL", base)
	}
	ru, err := url.Parse(rendered)
	if err != nil {
		return "", fmt.Errorf("the rendered URL is not a URL")
	}
	if originOf(ru) != originOf(bu) {
		return "", fmt.Errorf("the rendered URL leaves the connector's origin %s", originOf(bu))
	}
	if err := requireTLS(ru); err != nil {
		return "", err
	}
	return originOf(bu), nil
}

func originOf(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

func requireTLS(u *url.URL) error {
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%s://%s is not https, and plain http is admitted only on loopback", u.Scheme, u.Host)
}

// errRedirect refuses a redirect out of the declared origin.
var errRedirect = errors.New("redirect refused")

func send(req *http.Request, transport http.RoundTripper, origin string, b *plugin.ConnectorBinding, replay *replayTransport) *plugin.Result {
	op := b.Connector + "/" + b.Operation
	write := b.Verb == "write"
	var wrote atomic.Bool
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Store(true) }}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	client := &http.Client{Transport: transport, CheckRedirect: func(next *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("%w: more than %d redirects", errRedirect, maxRedirects)
		}
		if originOf(next.URL) != origin {
			return fmt.Errorf("%w: %s redirected out of its origin %s", errRedirect, op, origin)
		}
		return nil
	}}
	resp, err := client.Do(req)
	if replay != nil && replay.unmatched != "" {
		return plugin.Refused(errcode.HTTPExchangeUnmatched, fmt.Sprintf("operation %s sent %s, which no declared exchange matches; it was refused without reaching the network (a test has no live fallback)", op, replay.unmatched))
	}
	if err != nil {
		if errors.Is(err, errRedirect) {
			if write {
				return plugin.Failed(errcode.AmbiguousCommit, fmt.Sprintf("operation %s: %v, after its request was sent; whether it took effect is unknown", op, errors.Unwrap(err)))
			}
			return plugin.Failed(errcode.ProviderUnavailable, fmt.Sprintf("operation %s: %v", op, err))
		}
		return transportFailure(op, write, wrote.Load() || replay != nil, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return transportFailure(op, write, true, err)
	}
	if len(raw) > MaxResponseBytes {
		return answerFailure(op, write, fmt.Sprintf("its answer is over the %d-byte response ceiling", MaxResponseBytes))
	}
	evidence := map[string]any{"method": req.Method, "url": resp.Request.URL.String(), "status": resp.StatusCode}
	if replay != nil {
		evidence["exchange"] = replay.used
	}
	ev, _ := json.Marshal(evidence)
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return plugin.OK(responseJSON(resp.StatusCode, raw), ev)
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		code := errcode.ProviderRefused
		if resp.StatusCode == http.StatusNotFound {
			code = errcode.ProviderNotFound
		}
		res := plugin.Refused(code, fmt.Sprintf("operation %s: the provider refused it with status %d%s", op, resp.StatusCode, providerMessage(raw)))
		res.Evidence = ev
		return res
	}
	res := answerFailure(op, write, fmt.Sprintf("the provider answered status %d", resp.StatusCode))
	res.Evidence = ev
	return res
}

// transportFailure types a failure with no answer: a write whose request
// left is ambiguous; anything else did nothing.
func transportFailure(op string, write, left bool, err error) *plugin.Result {
	what := "the request failed"
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		what = "the request timed out"
	}
	if write && left {
		return plugin.Failed(errcode.AmbiguousCommit, fmt.Sprintf("operation %s: %s after it was sent and no answer was read; whether it took effect is unknown", op, what))
	}
	return plugin.Failed(errcode.ProviderUnavailable, fmt.Sprintf("operation %s: %s; the provider did not answer", op, what))
}

// answerFailure types an answer runx cannot use: for a write, the act may
// have been done.
func answerFailure(op string, write bool, why string) *plugin.Result {
	if write {
		return plugin.Failed(errcode.AmbiguousCommit, fmt.Sprintf("operation %s: %s; whether it took effect is unknown", op, why))
	}
	return plugin.Failed(errcode.ProviderUnavailable, fmt.Sprintf("operation %s: %s", op, why))
}

// responseJSON is the ConnectorResponse for an answer: its body as JSON
// when it is JSON (passed through, not decoded again), else as text, else
// null.
func responseJSON(status int, raw []byte) []byte {
	body := bytes.TrimSpace(raw)
	switch {
	case len(body) == 0:
		body = []byte("null")
	case !json.Valid(body):
		body, _ = json.Marshal(string(raw))
	}
	out := make([]byte, 0, len(body)+32)
	out = append(out, `{"status":`...)
	out = strconv.AppendInt(out, int64(status), 10)
	out = append(out, `,"body":`...)
	out = append(out, body...)
	return append(out, '}')
}

// providerMessage is the provider's own error message, when its answer is
// JSON carrying one, bounded: never the raw body.
func providerMessage(raw []byte) string {
	var doc map[string]any
	if json.Unmarshal(raw, &doc) != nil {
		return ""
	}
	msg := ""
	switch e := doc["error"].(type) {
	case string:
		msg = e
	case map[string]any:
		msg, _ = e["message"].(string)
	}
	if m, ok := doc["message"].(string); ok && msg == "" {
		msg = m
	}
	if msg == "" {
		return ""
	}
	if len(msg) > maxMessageBytes {
		msg = msg[:maxMessageBytes] + "…"
	}
	return ": " + msg
}
