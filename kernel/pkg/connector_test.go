package pkg

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

// The fixture connector uses every key; each is read into the model.
func TestLoadConnector(t *testing.T) {
	p, err := Load("testdata/connected", LoadOptions{RunxVersion: testRunx})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Connectors["forge"]
	if c == nil {
		t.Fatalf("the package's connector was not loaded: %v", p.Connectors)
	}
	if c.ID != "forge" || c.Version != "1.0.0" || c.BaseURL != "https://forge.runx.invalid/api" {
		t.Fatalf("connector header: %+v", c)
	}
	if *c.Credential != (ConnectorCredential{Variable: "FORGE_TOKEN", Header: "Authorization", Scheme: "Bearer"}) {
		t.Fatalf("credential: %+v", c.Credential)
	}
	op := c.Operation("post.create")
	if op.Verb != VerbWrite || op.Approval != "optional" || op.Target != "boards/{board}" || op.Summary == "" {
		t.Fatalf("operation: %+v", op)
	}
	// Scopes are opaque: the space in the second is kept as written.
	if !slices.Equal(op.Scopes, []string{"forge:posts:write", "forge:boards read"}) {
		t.Fatalf("scopes: %q", op.Scopes)
	}
	if op.Cost == nil || *op.Cost.USDMicro != 1500 || op.Cost.Per != "request" || op.Cost.Source != "docs" || op.Cost.SourceURL == "" {
		t.Fatalf("cost: %+v", op.Cost)
	}
	r := op.Request
	if r.Method != "POST" || r.Path != "/boards/{board}/posts" || r.Query["notify"] != "false" || r.Body.(map[string]any)["title"] != "$input.title" {
		t.Fatalf("request: %+v", r)
	}
	if *op.Idempotency != (OperationIdempotency{Header: "Idempotency-Key", WindowSeconds: 86400}) {
		t.Fatalf("idempotency: %+v", op.Idempotency)
	}
	rb := op.Readbacks[0]
	if rb.Operation != "post.find" || rb.Inputs["key"] != "$key" || rb.Confirms["id"] != "$response.id" {
		t.Fatalf("readback: %+v", rb)
	}
	if op.Input("board").Description != "The board." || !op.Input("title").Required || op.Outputs["id"].Type != "string" {
		t.Fatalf("inputs/outputs: %+v %+v", op.Inputs, op.Outputs)
	}
	for _, d := range []string{c.ManifestDigest, c.ConnectorDigest, op.Digest} {
		if !strings.HasPrefix(d, "sha256:") || len(d) != 71 {
			t.Fatalf("digest %q", d)
		}
	}
	if op.Digest == c.Operation("post.find").Digest {
		t.Fatal("two operations share a digest")
	}
}

// A changed price is a changed operation; where it was read is not.
func TestConnectorPriceBindsDigest(t *testing.T) {
	src, err := os.ReadFile("testdata/connected/connectors/forge/connector.yaml")
	if err != nil {
		t.Fatal(err)
	}
	digest := func(yaml string) string {
		dir := writePackage(t, map[string]string{"forge/connector.yaml": yaml})
		c, err := LoadConnector(filepath.Join(dir, "forge"), "forge")
		if err != nil {
			t.Fatal(err)
		}
		return c.Operation("post.create").Digest
	}
	base := digest(string(src))
	if got := digest(strings.Replace(string(src), "usd_micro: 1500", "usd_micro: 1600", 1)); got == base {
		t.Fatal("a changed price must change the operation digest")
	}
	if got := digest(strings.Replace(string(src), "per: request", "per: success", 1)); got == base {
		t.Fatal("a changed price basis must change the operation digest")
	}
	if got := digest(strings.Replace(string(src), "https://forge.runx.invalid/pricing", "https://forge.runx.invalid/rates", 1)); got != base {
		t.Fatal("where the price was read must not change the operation digest")
	}
}

// An added connector is found by name under the project's
// added-connectors; two versions with nothing pinning one are refused.
func TestLoadAddedConnector(t *testing.T) {
	src, err := os.ReadFile("testdata/connected/connectors/forge/connector.yaml")
	if err != nil {
		t.Fatal(err)
	}
	project := writePackage(t, map[string]string{"added-connectors/forge/1.0.0/connector.yaml": string(src)})
	c, err := LoadAddedConnector(project, "forge", "", nil)
	if err != nil || c == nil || c.Version != "1.0.0" {
		t.Fatalf("got %v %v", c, err)
	}
	if c, err := LoadAddedConnector(project, "absent", "", nil); c != nil || err != nil {
		t.Fatalf("an absent connector is no error: %v %v", c, err)
	}
	other := strings.Replace(string(src), "version: 1.0.0", "version: 2.0.0", 1)
	writeFile(t, filepath.Join(project, "added-connectors/forge/2.0.0/connector.yaml"), other)
	if _, err := LoadAddedConnector(project, "forge", "", nil); CodeOf(err) != errcode.ConnectorVersionAmbiguous {
		t.Fatalf("got %v", err)
	}
	writeFile(t, filepath.Join(project, "added-connectors/forge/3.0.0/connector.yaml"), other)
	if _, err := LoadAddedConnector(project, "forge", "3.0.0", nil); CodeOf(err) != errcode.ConnectorInvalid {
		t.Fatalf("a version directory holding another version: %v", err)
	}
}

func writeFile(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every refusal names its code and where it is.
func TestConnectorRefusals(t *testing.T) {
	const head = "id: forge\nversion: 1.0.0\nbase_url: https://forge.runx.invalid\n"
	const read = "  get:\n    verb: read\n    request: { method: GET, path: /x }\n"
	for _, tc := range []struct {
		name, yaml, code, at string
	}{
		{"unknown top key", head + "region: eu\noperations:\n" + read, "runx_yaml_unknown_field", ":4:1"},
		{"unknown operation key", head + "operations:\n  get:\n    verb: read\n    retries: 3\n    request: { method: GET, path: /x }\n", "runx_yaml_unknown_field", ":7:5"},
		{"id is not the name", "id: other\nversion: 1.0.0\nbase_url: https://x.invalid\noperations:\n" + read, "connector_invalid", ":1:5"},
		{"http off loopback", "id: forge\nversion: 1.0.0\nbase_url: http://forge.example\noperations:\n" + read, "connector_invalid", ":3:11"},
		{"base url with credentials", "id: forge\nversion: 1.0.0\nbase_url: https://u:p@forge.example\noperations:\n" + read, "connector_invalid", ":3:11"},
		{"no verb", head + "operations:\n  get:\n    request: { method: GET, path: /x }\n", "connector_invalid", ":6:5"},
		{"bad verb", head + "operations:\n  get:\n    verb: delete\n    request: { method: GET, path: /x }\n", "connector_invalid", ":6:11"},
		{"bad approval", head + "operations:\n  put:\n    verb: write\n    approval: always\n    request: { method: POST, path: /x }\n", "connector_invalid", ":7:15"},
		{"read asks approval", head + "operations:\n  get:\n    verb: read\n    approval: required\n    request: { method: GET, path: /x }\n", "connector_invalid", ":7:15"},
		{"path escapes", head + "operations:\n  get:\n    verb: read\n    request: { method: GET, path: /a/../b }\n", "connector_invalid", ":7:35"},
		{"path names no input", head + "operations:\n  get:\n    verb: read\n    request: { method: GET, path: \"/a/{id}\" }\n", "connector_invalid", ":7:35"},
		{"body on a GET", head + "operations:\n  get:\n    verb: read\n    request: { method: GET, path: /x, body: { a: 1 } }\n", "connector_invalid", ":7:39"},
		{"body names no input", head + "operations:\n  put:\n    verb: write\n    request: { method: POST, path: /x, body: { a: $input.b } }\n", "connector_invalid", ":7:46"},
		{"idempotency on a read", head + "operations:\n  get:\n    verb: read\n    idempotency: { header: K, window_seconds: 1 }\n    request: { method: GET, path: /x }\n", "connector_invalid", ":7:5"},
		{"idempotency without window", head + "operations:\n  put:\n    verb: write\n    idempotency: { header: K }\n    request: { method: POST, path: /x }\n", "connector_invalid", ":7:18"},
		{"negative price", head + "operations:\n  get:\n    verb: read\n    cost: { usd_micro: -1, per: request, source: docs }\n    request: { method: GET, path: /x }\n", "connector_invalid", ":7:24"},
		{"cost without basis", head + "operations:\n  get:\n    verb: read\n    cost: { usd_micro: 1 }\n    request: { method: GET, path: /x }\n", "connector_invalid", ":7:11"},
		{"readback of a write", head + "operations:\n  put:\n    verb: write\n    request: { method: POST, path: /x }\n    readbacks: [{ operation: put, confirms: { a: b } }]\n", "connector_invalid", ":6:5"},
		{"readback without confirms", head + "operations:\n  put:\n    verb: write\n    request: { method: POST, path: /x }\n    readbacks: [{ operation: get }]\n" + read, "connector_invalid", ":8:17"},
		{"credential not a variable", head + "credential: { variable: \"my token\", header: Authorization }\noperations:\n" + read, "connector_invalid", ":4:13"},
		{"packet-typed input", head + "operations:\n  get:\n    verb: read\n    request: { method: GET, path: /x }\n    inputs: { r: { type: acme.report.v1 } }\n", "connector_invalid", ":8:13"},
		{"packet output not a packet id", head + "operations:\n  get:\n    verb: read\n    request: { method: GET, path: /x }\n    outputs: { a: { type: string, packet: true } }\n", "connector_invalid", ":8:43"},
		{"payment on a read", head + "operations:\n  get:\n    verb: read\n    cost: { usd_micro: 0, per: request, source: docs }\n    payment: { amount: $input.cents, currency: USD }\n    request: { method: GET, path: /x }\n    inputs: { cents: { type: integer } }\n", "connector_invalid", ":8:5"},
		{"payment without a fee", head + "operations:\n  pay:\n    verb: write\n    payment: { amount: $input.cents, currency: USD }\n    request: { method: POST, path: /x }\n    inputs: { cents: { type: integer } }\n", "connector_invalid", ":7:5"},
		{"payment amount not an integer input", head + "operations:\n  pay:\n    verb: write\n    cost: { usd_micro: 0, per: request, source: docs }\n    payment: { amount: $input.cents, currency: USD }\n    request: { method: POST, path: /x }\n    inputs: { cents: { type: string } }\n", "connector_invalid", ":8:24"},
		{"payment amount a literal", head + "operations:\n  pay:\n    verb: write\n    cost: { usd_micro: 0, per: request, source: docs }\n    payment: { amount: 500, currency: USD }\n    request: { method: POST, path: /x }\n", "connector_invalid", ":8:24"},
		{"payment currency", head + "operations:\n  pay:\n    verb: write\n    cost: { usd_micro: 0, per: request, source: docs }\n    payment: { amount: $input.cents, currency: dollars }\n    request: { method: POST, path: /x }\n    inputs: { cents: { type: integer } }\n", "connector_invalid", ":8:48"},
		{"tool with a method", head + "operations:\n  get:\n    verb: read\n    request: { tool: t, method: GET }\n", "connector_invalid", ":7:16"},
		{"tool with a body", head + "operations:\n  get:\n    verb: read\n    request: { body: { a: 1 }, tool: t }\n", "connector_invalid", ":7:32"},
		{"arguments without a tool", head + "operations:\n  get:\n    verb: read\n    request: { method: GET, path: /x, arguments: {} }\n", "connector_invalid", ":7:39"},
		{"tool arguments not a mapping", head + "operations:\n  get:\n    verb: read\n    request: { tool: t, arguments: [1] }\n", "connector_invalid", ":7:36"},
		{"tool arguments name no input", head + "operations:\n  get:\n    verb: read\n    request: { tool: t, arguments: { id: $input.id } }\n", "connector_invalid", ":7:36"},
		{"empty tool", head + "operations:\n  get:\n    verb: read\n    request: { tool: \"\" }\n", "connector_invalid", ":7:22"},
		{"anchor", head + "operations:\n  get: &a\n    verb: read\n    request: { method: GET, path: /x }\n", "runx_yaml_anchor_refused", ":5:8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writePackage(t, map[string]string{"forge/connector.yaml": tc.yaml})
			_, err := LoadConnector(filepath.Join(dir, "forge"), "forge")
			if string(CodeOf(err)) != tc.code {
				t.Fatalf("code %q, want %q: %v", CodeOf(err), tc.code, err)
			}
			if !strings.Contains(err.Error(), "connector.yaml"+tc.at) {
				t.Fatalf("want the refusal at %s: %v", tc.at, err)
			}
		})
	}
}

// A payment operation's amount and currency are read into the model and
// bind its digest: another amount input or currency is another operation.
func TestConnectorPayment(t *testing.T) {
	p, err := Load("testdata/connected", LoadOptions{RunxVersion: testRunx})
	if err != nil {
		t.Fatal(err)
	}
	op := p.Connectors["forge"].Operation("tip.send")
	if op == nil || op.Payment == nil || *op.Payment != (OperationPayment{Amount: "$input.cents", Currency: "$input.currency"}) {
		t.Fatalf("payment: %+v", op)
	}
	src, err := os.ReadFile("testdata/connected/connectors/forge/connector.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := writePackage(t, map[string]string{"forge/connector.yaml": strings.Replace(string(src), "currency: $input.currency", "currency: USD", 1)})
	c, err := LoadConnector(filepath.Join(dir, "forge"), "forge")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Operation("tip.send"); got.Payment.Currency != "USD" || got.Digest == op.Digest {
		t.Fatalf("a changed currency must change the operation digest: %+v", got)
	}
}
