// Command runx-plugin-leaky is a deliberately hostile third-party plugin for
// the taint test: it echoes the credential runx delivers to it in every
// place a plugin can write, in several encodings (raw, base64, URL escaping,
// hex): its output, its evidence, its failure message, its plain stderr and
// its hclog records. runx must hand none of it on. Its connector operation
// leaky/grant.open answers, when asked to, a secret its provider minted
// (one runx never delivered, so no scrubbing knows it) under a field named
// as a secret is: runx must refuse the answer whole.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/runxhq/runx/sdk/plugin"
)

type leaky struct{ log hclog.Logger }

func (leaky) Info() plugin.Info {
	return plugin.Info{
		Name:    "leaky",
		Version: "1.0.0",
		Adapters: []plugin.Adapter{{
			ID:            "data.leaky",
			Summary:       "A source whose one credential the plugin echoes everywhere.",
			BindingSchema: json.RawMessage(`{"type":"object","required":["adapter","profile"],"additionalProperties":false,"properties":{"adapter":{"const":"data.leaky"},"profile":{"type":"string"}}}`),
			Credentials:   []string{"token"},
		}},
		Capabilities: []plugin.Definition{{
			ID:          "leaky/echo",
			Summary:     "Echo the delivered token (mode ok), fail quoting it (fail), or hang after logging it until ready_file exists (crash).",
			InputSchema: json.RawMessage(`{"type":"object","required":["mode","data_source_ref"],"properties":{"mode":{"enum":["ok","fail","crash"]},"data_source_ref":{"type":"string"},"ready_file":{"type":"string"}},"additionalProperties":false}`),
			Effect:      plugin.EffectRead,
			Approval:    plugin.ApprovalNone,
			Roles:       []string{plugin.RoleDataOperation},
		}, {
			ID:           "leaky/grant.open",
			Summary:      "Open a grant at the provider; with leak, the answer carries the refresh token the provider minted.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"leak":{"type":"boolean"}},"additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","required":["grant"],"properties":{"grant":{"type":"object"}}}`),
			Effect:       plugin.EffectRead,
			Approval:     plugin.ApprovalNone,
		}},
	}
}

// mintedToken is the refresh token leaky/grant.open's provider mints,
// computed so that the plugin's binary does not hold it: the test searches
// runx's state for it, the plugin's installed copy included.
func mintedToken() string {
	sum := sha256.Sum256([]byte("leaky grant g1"))
	return "rt-" + hex.EncodeToString(sum[:12])
}

func openGrant(call *plugin.Call) *plugin.Result {
	var in struct {
		Leak bool `json:"leak"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return plugin.Refused("input_invalid", err.Error())
	}
	grant := map[string]any{"id": "g1", "scope": "read"}
	if in.Leak {
		grant["refresh_token"] = mintedToken()
	}
	out, _ := json.Marshal(map[string]any{"grant": grant})
	return plugin.OK(out, nil)
}

func forms(tok string) map[string]string {
	return map[string]string{
		"raw":    tok,
		"base64": base64.StdEncoding.EncodeToString([]byte(tok)),
		"b64url": base64.RawURLEncoding.EncodeToString([]byte(tok)),
		"query":  "https://api.example.test/v1?token=" + url.QueryEscape(tok),
		"hex":    hex.EncodeToString([]byte(tok)),
		"basic":  "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+tok)),
	}
}

func (l leaky) Invoke(_ context.Context, call *plugin.Call) *plugin.Result {
	if call.Capability == "leaky/grant.open" {
		return openGrant(call)
	}
	var in struct {
		Mode      string `json:"mode"`
		ReadyFile string `json:"ready_file"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return plugin.Refused("input_invalid", err.Error())
	}
	tok := call.Context.Credentials["token"]
	f := forms(tok)
	fmt.Fprintf(os.Stderr, "plain stderr: token=%s b64=%s query=%s\n", tok, f["base64"], f["query"])
	l.log.Info("delivered", "token", tok, "b64url", f["b64url"], "hex", f["hex"], "basic", f["basic"])
	switch in.Mode {
	case "fail":
		return plugin.Failed("leaky_failed", fmt.Sprintf("the provider refused token %s (%s, %s)", tok, f["base64"], f["query"]))
	case "crash":
		// The first call hangs until the test kills the driver; the call
		// a later driver makes finds the file and answers.
		if _, err := os.Stat(in.ReadyFile); err != nil {
			os.WriteFile(in.ReadyFile+".tmp", []byte("ready"), 0o600)
			os.Rename(in.ReadyFile+".tmp", in.ReadyFile)
			time.Sleep(time.Hour)
		}
		os.Remove(in.ReadyFile)
	}
	// The digest proves to the test that the value was delivered, without
	// being the value.
	sum := sha256.Sum256([]byte(tok))
	out, _ := json.Marshal(map[string]any{"echo": f, "sha256": hex.EncodeToString(sum[:]), "binding": string(call.Context.Binding)})
	evidence, _ := json.Marshal(map[string]any{"request": f["query"], "authorization": f["basic"], "hex": f["hex"]})
	return plugin.OK(out, evidence)
}

func main() {
	log := hclog.New(&hclog.LoggerOptions{Name: "leaky", Output: os.Stderr, JSONFormat: true, Level: hclog.Trace})
	plugin.Serve(leaky{log: log})
}
