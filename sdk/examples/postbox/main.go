// Command runx-plugin-postbox is a third-party runx connector, built with
// nothing but the public SDK, for a message provider's HTTP API. Its
// operations are reached as `operation: postbox/<op>` steps, and it
// declares through the capability contract everything runx governs them
// by: the verb (effect read or write), scopes, approval mode, that a write
// is idempotent, and what the provider charges per call (cost), which runx
// reserves against a run's money limit before the call is sent.
//
// The provider's address is the connector's configuration, never a step's
// input: `<project>/.runx/postbox.json` holds {"base_url": "https://..."}.
// Plain http is refused off loopback.
//
// Build it, put it at .runx/plugins/runx-plugin-postbox and pin it
// (runx plugin pin postbox).
package main

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
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// Capability ids: the connector is postbox, each operation postbox/<op>.
const (
	opSend   = "postbox/message.send"
	opList   = "postbox/messages.list"
	opSearch = "postbox/messages.search"
	// tokenVariable is the account's API token every operation declares:
	// runx delivers it in the call's credentials, never in the input.
	tokenVariable = "POSTBOX_TOKEN"
)

// maxAnswer bounds what is read of any provider answer: a message API
// answers in kilobytes, and a larger body is refused rather than buffered.
const maxAnswer = 1 << 20

func price(n int64) *int64 { return &n }

type postbox struct{}

func (postbox) Info() plugin.Info {
	sendIn := `{"type":"object","required":["to","text","idempotency_key"],"additionalProperties":false,"properties":{` +
		`"to":{"type":"string","minLength":3},"text":{"type":"string","minLength":1,"maxLength":4000},"idempotency_key":{"type":"string","minLength":1}}}`
	return plugin.Info{Name: "postbox", Version: "1.0.0", Capabilities: []plugin.Definition{
		{
			ID:           opSend,
			Credentials:  []string{tokenVariable},
			Summary:      "Send one message, exactly once per idempotency key, and confirm it by reading it back.",
			InputSchema:  json.RawMessage(sendIn),
			OutputSchema: json.RawMessage(`{"type":"object","required":["message_id","confirmed"],"properties":{"message_id":{"type":"string"},"to":{"type":"string"},"confirmed":{"type":"boolean"},"replayed":{"type":"boolean"}}}`),
			Effect:       plugin.EffectWrite,
			Scopes:       []string{"postbox:messages:write"},
			Approval:     plugin.ApprovalOptional,
			Idempotent:   true,
			// The provider bills a delivered message, not a refused one.
			Cost: &plugin.Cost{USDMicro: price(2500), Per: "success", Source: "rate_card", SourceURL: "https://postbox.example/pricing"},
		},
		{
			ID:           opList,
			Credentials:  []string{tokenVariable},
			Summary:      "List the messages the account has sent.",
			InputSchema:  json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{}}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["messages"],"properties":{"messages":{"type":"array"}}}`),
			Effect:       plugin.EffectRead,
			Scopes:       []string{"postbox:messages:read"},
			Approval:     plugin.ApprovalNone,
			Cost:         &plugin.Cost{USDMicro: price(100), Per: "request", Source: "docs", SourceURL: "https://postbox.example/pricing"},
		},
		{
			ID:           opSearch,
			Credentials:  []string{tokenVariable},
			Summary:      "Find the messages sent to one recipient; metered by the provider at a price it does not publish.",
			InputSchema:  json.RawMessage(`{"type":"object","required":["to"],"additionalProperties":false,"properties":{"to":{"type":"string"}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["messages"],"properties":{"messages":{"type":"array"}}}`),
			Effect:       plugin.EffectRead,
			Scopes:       []string{"postbox:messages:read"},
			Approval:     plugin.ApprovalNone,
			// Metered with no published price: usd_micro is absent, which
			// runx treats as unknown, never as free.
			Cost: &plugin.Cost{Per: "request", Source: "docs", SourceURL: "https://postbox.example/pricing"},
		},
	}}
}

// client is the provider's API at the configured base URL.
type client struct {
	base  string
	token string
	http  *http.Client
}

// connect reads the connector's configuration from the project directory
// the kernel names in every call's binding.
func connect(call *plugin.Call) (*client, *plugin.Result) {
	var b struct {
		ProjectDir string `json:"project_dir"`
	}
	_ = json.Unmarshal(call.Context.Binding, &b)
	raw, err := os.ReadFile(filepath.Join(b.ProjectDir, "postbox.json"))
	if err != nil {
		return nil, plugin.Refused(errcode.PostboxNotConfigured, "write the provider's address to .runx/postbox.json as {\"base_url\": \"https://...\"}")
	}
	var conf struct {
		BaseURL string `json:"base_url"`
	}
	if json.Unmarshal(raw, &conf) != nil {
		return nil, plugin.Refused(errcode.PostboxNotConfigured, ".runx/postbox.json is not {\"base_url\": \"https://...\"}")
	}
	u, perr := url.Parse(conf.BaseURL)
	if perr != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, plugin.Refused(errcode.PostboxNotConfigured, "base_url in .runx/postbox.json is not an http(s) URL")
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return nil, plugin.Refused(errcode.PostboxEndpointInsecure, "plain http is allowed only to a loopback address; use https")
	}
	token := call.Context.Credentials[tokenVariable]
	if token == "" {
		return nil, plugin.Refused(errcode.PostboxTokenMissing, "runx delivered no "+tokenVariable+"; bind it with `runx connector use postbox`")
	}
	return &client{base: strings.TrimSuffix(u.String(), "/"), token: token, http: &http.Client{
		Timeout: 20 * time.Second,
		// A redirect could carry the request to another origin: refused.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

type answer struct {
	status   int
	body     []byte
	replayed bool
}

// do sends one request. An error that leaves the request unsent (the
// connection was refused) is provider_unavailable; any other transport
// failure may have reached the provider, so its outcome is ambiguous.
func (c *client) do(ctx context.Context, method, path string, body []byte, header map[string]string) (*answer, *plugin.Result) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, plugin.Failed(errcode.ProviderUnavailable, "the request could not be built")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, plugin.Failed(errcode.ProviderUnavailable, "the provider refused the connection; nothing was sent")
		}
		return nil, plugin.Failed(errcode.AmbiguousCommit, "the request may have reached the provider, and no answer came back")
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer+1))
	if err != nil || len(raw) > maxAnswer {
		return nil, plugin.Failed(errcode.AmbiguousCommit, "the provider's answer could not be read whole")
	}
	return &answer{status: res.StatusCode, body: raw, replayed: res.Header.Get("Idempotent-Replayed") == "true"}, nil
}

// providerKey is the key the provider deduplicates by: the caller's key
// with the connector, operation and target, so one intent is one key
// wherever it is retried from.
func providerKey(callerKey, to string) string {
	sum := sha256.Sum256([]byte("postbox\x00" + opSend + "\x00" + to + "\x00" + callerKey))
	return "runx-" + hex.EncodeToString(sum[:16])
}

type message struct {
	ID   string `json:"id"`
	To   string `json:"to"`
	Text string `json:"text"`
}

func send(ctx context.Context, c *client, input []byte) *plugin.Result {
	var in struct {
		To             string `json:"to"`
		Text           string `json:"text"`
		IdempotencyKey string `json:"idempotency_key"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return plugin.Refused(errcode.InputInvalid, opSend+" takes {to, text, idempotency_key}")
	}
	body, _ := json.Marshal(map[string]string{"to": in.To, "text": in.Text})
	key := providerKey(in.IdempotencyKey, in.To)
	a, failed := c.do(ctx, http.MethodPost, "/v1/messages", body, map[string]string{"Idempotency-Key": key})
	if failed != nil {
		return failed
	}
	switch {
	case a.status == http.StatusConflict:
		return plugin.Failed(errcode.IdempotencyInFlight, "an attempt under the same key is still in flight at the provider; try again once it settles")
	case a.status == http.StatusUnprocessableEntity:
		return plugin.Refused(errcode.IdempotencyKeyReused, "the provider already holds a different message under this idempotency key; one key means one intent")
	case a.status >= 500:
		return plugin.Failed(errcode.ProviderUnavailable, fmt.Sprintf("the provider answered %d", a.status))
	case a.status >= 400:
		return plugin.Refused(errcode.ProviderRefused, fmt.Sprintf("the provider refused the message (%d)", a.status))
	}
	var m message
	if err := json.Unmarshal(a.body, &m); err != nil || m.ID == "" {
		return plugin.Failed(errcode.AmbiguousCommit, "the provider acknowledged the message without an id runx can read back")
	}
	// Readback: success is what the provider holds, not what it said.
	rb, failed := c.do(ctx, http.MethodGet, "/v1/messages/"+url.PathEscape(m.ID), nil, nil)
	if failed != nil {
		return failed
	}
	var held message
	if rb.status != http.StatusOK || json.Unmarshal(rb.body, &held) != nil || held.ID != m.ID || held.To != in.To || held.Text != in.Text {
		return plugin.Failed(errcode.AmbiguousCommit, "the provider acknowledged "+m.ID+" but reading it back did not confirm it")
	}
	out, _ := json.Marshal(map[string]any{"message_id": m.ID, "to": held.To, "confirmed": true, "replayed": a.replayed})
	evidence, _ := json.Marshal(map[string]any{"provider_key": key, "readback": "GET /v1/messages/" + m.ID})
	return plugin.OK(out, evidence)
}

func list(ctx context.Context, c *client, to string) *plugin.Result {
	a, failed := c.do(ctx, http.MethodGet, "/v1/messages", nil, nil)
	if failed != nil {
		return failed
	}
	if a.status != http.StatusOK {
		return plugin.Failed(errcode.ProviderUnavailable, fmt.Sprintf("the provider answered %d", a.status))
	}
	var page struct {
		Messages []message `json:"messages"`
	}
	if err := json.Unmarshal(a.body, &page); err != nil {
		return plugin.Failed(errcode.ProviderAnswerInvalid, "the provider's list is not JSON")
	}
	msgs := []message{}
	for _, m := range page.Messages {
		if to == "" || m.To == to {
			msgs = append(msgs, m)
		}
	}
	out, _ := json.Marshal(map[string]any{"messages": msgs})
	return plugin.OK(out, nil)
}

func (postbox) Invoke(ctx context.Context, call *plugin.Call) *plugin.Result {
	c, refused := connect(call)
	if refused != nil {
		return refused
	}
	switch call.Capability {
	case opSend:
		return send(ctx, c, call.Input)
	case opList:
		return list(ctx, c, "")
	case opSearch:
		var in struct {
			To string `json:"to"`
		}
		_ = json.Unmarshal(call.Input, &in)
		return list(ctx, c, in.To)
	}
	return plugin.Refused(errcode.CapabilityNotFound, call.Capability)
}

func main() { plugin.Serve(postbox{}) }
