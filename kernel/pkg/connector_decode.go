package pkg

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// Closed vocabularies of connector manifests.
var (
	operationVerbs     = []string{VerbRead, VerbWrite}
	operationApprovals = []string{"none", "optional", "required"}
	requestMethods     = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	costPer            = []string{"request", "success"}
	costSources        = []string{"docs", "rate_card", "observed"}
	headerToken        = regexp.MustCompile(`^[A-Za-z0-9!#$%&'*+.^_|~-]+$`)
	pathParam          = regexp.MustCompile(`\{([^{}]*)\}`)
)

// MaxIdempotencyWindowSeconds bounds how long a provider key is honoured:
// thirty days, longer than any provider documented here keeps one.
const MaxIdempotencyWindowSeconds = 30 * 24 * 3600

// decodeConnector reads connector.yaml under the strict subset.
func decodeConnector(file string, src []byte, name string) (*Connector, error) {
	doc, err := parseYAML(file, src, 0)
	if err != nil {
		return nil, err
	}
	root, err := doc.body()
	if err != nil {
		return nil, err
	}
	d := decoder{file: file, code: errcode.ConnectorInvalid}
	top, err := d.object(root, "connector.yaml", "id", "version", "base_url", "credential", "operations")
	if err != nil {
		return nil, err
	}
	c := &Connector{}
	for _, req := range []struct {
		key  string
		dest *string
	}{{"id", &c.ID}, {"version", &c.Version}, {"base_url", &c.BaseURL}} {
		e := top.get(req.key)
		if e == nil {
			return nil, d.fail(root.pos, "connector.yaml needs %s", req.key)
		}
		if *req.dest, err = d.nonEmpty(top, req.key, "connector "+req.key); err != nil {
			return nil, err
		}
	}
	if c.ID != name {
		return nil, d.fail(top.get("id").value.pos, "connector id %q must be its whole name, %q (the directory it is in)", c.ID, name)
	}
	if hasSpace(c.Version) || strings.ContainsAny(c.Version, "/\\") {
		return nil, d.fail(top.get("version").value.pos, "connector version %q must be one word with no slash", c.Version)
	}
	if err := checkBaseURL(c.BaseURL); err != nil {
		return nil, d.fail(top.get("base_url").value.pos, "connector base_url %s", err)
	}
	if ce := top.get("credential"); ce != nil {
		if c.Credential, err = decodeCredential(d, ce); err != nil {
			return nil, err
		}
	}
	oe := top.get("operations")
	if oe == nil || oe.value.kind != mapNode || len(oe.value.entries) == 0 {
		return nil, d.fail(root.pos, "connector.yaml needs operations: a mapping of operation names to declarations")
	}
	for i := range oe.value.entries {
		e := &oe.value.entries[i]
		if !isCapabilityID(e.key) || strings.Contains(e.key, "/") {
			return nil, d.fail(e.keyPos, "operation name %q must hold only letters, digits, '.', '_' and '-'", e.key)
		}
		op, err := decodeConnectorOperation(d, e)
		if err != nil {
			return nil, err
		}
		c.Operations = append(c.Operations, op)
	}
	for i, op := range c.Operations {
		if err := checkReadbacks(d, c, op, &oe.value.entries[i]); err != nil {
			return nil, err
		}
		if op.Digest, err = operationDigest(c, op); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// checkBaseURL admits an absolute https origin with an optional path
// prefix, or plain http only on a loopback host: a credential never
// crosses a network in clear.
func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q must be an absolute URL", raw)
	}
	switch {
	case u.User != nil:
		return fmt.Errorf("%q must not hold credentials", raw)
	case u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(raw, "?") || strings.HasSuffix(raw, "#"):
		return fmt.Errorf("%q must not hold a query or fragment", raw)
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && IsLoopbackHost(u.Hostname()):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("%q must use https off loopback", raw)
	}
	return fmt.Errorf("%q must be an https URL", raw)
}

// IsLoopbackHost reports whether host names this machine: localhost or a
// loopback address.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func decodeCredential(d decoder, e *entry) (*ConnectorCredential, error) {
	f, err := d.object(e.value, "connector credential", "variable", "header", "scheme")
	if err != nil {
		return nil, err
	}
	c := &ConnectorCredential{}
	if c.Variable, err = d.nonEmpty(f, "variable", "credential variable"); err != nil {
		return nil, err
	}
	if !isEnvName(c.Variable) {
		return nil, d.fail(e.value.pos, "credential variable %q must be an environment variable name", c.Variable)
	}
	if c.Header, err = d.nonEmpty(f, "header", "credential header"); err != nil {
		return nil, err
	}
	if !headerToken.MatchString(c.Header) {
		return nil, d.fail(e.value.pos, "credential header %q must be an HTTP header name", c.Header)
	}
	if c.Scheme, err = d.nonEmpty(f, "scheme", "credential scheme"); err != nil {
		return nil, err
	}
	if c.Scheme != "" && !headerToken.MatchString(c.Scheme) {
		return nil, d.fail(f.get("scheme").value.pos, "credential scheme %q must be one token, such as Bearer", c.Scheme)
	}
	return c, nil
}

func decodeConnectorOperation(d decoder, e *entry) (*ConnectorOperation, error) {
	label := fmt.Sprintf("connector operation %q", e.key)
	f, err := d.object(e.value, label, "summary", "verb", "scopes", "target", "approval", "cost", "payment", "request", "idempotency", "readbacks", "inputs", "outputs")
	if err != nil {
		return nil, err
	}
	op := &ConnectorOperation{Name: e.key}
	if op.Summary, err = d.text(f, "summary", label+" summary"); err != nil {
		return nil, err
	}
	if !f.has("verb") {
		return nil, d.fail(e.value.pos, "%s needs a verb: read or write", label)
	}
	if op.Verb, err = d.oneOf(f, "verb", label+" verb", operationVerbs...); err != nil {
		return nil, err
	}
	if se := f.get("scopes"); se != nil {
		// Scopes are opaque: kept exactly, in order, never split or reparsed.
		if op.Scopes, err = d.strList(se, label+" scopes"); err != nil {
			return nil, err
		}
	}
	if op.Approval, err = d.oneOf(f, "approval", label+" approval", operationApprovals...); err != nil {
		return nil, err
	}
	if op.Approval == "" {
		op.Approval = "none"
	}
	if op.Verb == VerbRead && op.Approval != "none" {
		return nil, d.fail(f.get("approval").value.pos, "%s is a read; reads do not acquire approval gates", label)
	}
	if ie := f.get("inputs"); ie != nil {
		if op.Inputs, err = decodeInputs(d, ie, label); err != nil {
			return nil, err
		}
		for _, in := range op.Inputs {
			if in.Name == "idempotency_key" {
				return nil, d.fail(ie.value.pos, "%s must not declare idempotency_key: the step's idempotency_key is the kernel's", label)
			}
			if ValidPacketID(in.Type) {
				return nil, d.fail(ie.value.pos, "%s input %s: an operation's input is rendered into its request, so it takes a value, not a packet type; give the step the packet's fields", label, in.Name)
			}
		}
	}
	if oe := f.get("outputs"); oe != nil {
		if op.Outputs, err = decodeOutputs(d, oe, label+" outputs"); err != nil {
			return nil, err
		}
	}
	if te := f.get("target"); te != nil {
		if op.Target, err = d.nonEmpty(f, "target", label+" target"); err != nil {
			return nil, err
		}
		if err := checkTemplate(op, op.Target); err != nil {
			return nil, d.fail(te.value.pos, "%s target %v", label, err)
		}
	}
	if ce := f.get("cost"); ce != nil {
		if op.Cost, err = decodeCost(d, ce, label); err != nil {
			return nil, err
		}
	}
	if pe := f.get("payment"); pe != nil {
		if op.Payment, err = decodePayment(d, pe, op, label); err != nil {
			return nil, err
		}
	}
	re := f.get("request")
	if re == nil {
		return nil, d.fail(e.value.pos, "%s needs a request: its method and path, or the MCP tool it calls", label)
	}
	if err := decodeRequest(d, re, op, label); err != nil {
		return nil, err
	}
	if ie := f.get("idempotency"); ie != nil {
		if op.Verb != VerbWrite {
			return nil, d.fail(ie.keyPos, "%s is a read; only a write declares idempotency", label)
		}
		if op.Idempotency, err = decodeIdempotency(d, ie, label); err != nil {
			return nil, err
		}
	}
	if rbe := f.get("readbacks"); rbe != nil {
		if op.Verb != VerbWrite {
			return nil, d.fail(rbe.keyPos, "%s is a read; only a write is confirmed by readbacks", label)
		}
		if rbe.value.kind != seqNode || len(rbe.value.items) == 0 {
			return nil, d.fail(rbe.value.pos, "%s readbacks must be a non-empty list", label)
		}
		for i, it := range rbe.value.items {
			rb, err := decodeReadback(d, it, fmt.Sprintf("%s readback %d", label, i+1))
			if err != nil {
				return nil, err
			}
			op.Readbacks = append(op.Readbacks, rb)
		}
	}
	return op, nil
}

func decodeCost(d decoder, e *entry, label string) (*OperationCost, error) {
	f, err := d.object(e.value, label+" cost", "usd_micro", "per", "source", "source_url")
	if err != nil {
		return nil, err
	}
	c := &OperationCost{}
	if ue := f.get("usd_micro"); ue != nil {
		n, ok := ue.value.value.(int64)
		if !ok || ue.value.kind != scalarNode || n < 0 {
			return nil, d.fail(ue.value.pos, "%s cost usd_micro must be a whole number of micro-USD, 0 or more", label)
		}
		c.USDMicro = &n
	}
	if !f.has("per") || !f.has("source") {
		return nil, d.fail(e.value.pos, "%s cost needs per (request or success) and source (docs, rate_card or observed)", label)
	}
	if c.Per, err = d.oneOf(f, "per", label+" cost per", costPer...); err != nil {
		return nil, err
	}
	if c.Source, err = d.oneOf(f, "source", label+" cost source", costSources...); err != nil {
		return nil, err
	}
	if c.SourceURL, err = d.nonEmpty(f, "source_url", label+" cost source_url"); err != nil {
		return nil, err
	}
	return c, nil
}

// paymentCurrency is a literal currency code.
var paymentCurrency = regexp.MustCompile(`^[A-Z]{3,5}$`)

// decodePayment reads what a payment operation moves. It is a write with a
// declared call fee (cost, 0 when it charges none): a known transfer amount
// does not establish the provider's fee.
func decodePayment(d decoder, e *entry, op *ConnectorOperation, label string) (*OperationPayment, error) {
	f, err := d.object(e.value, label+" payment", "amount", "currency")
	if err != nil {
		return nil, err
	}
	if op.Verb != VerbWrite {
		return nil, d.fail(e.keyPos, "%s is a read; only a write moves money", label)
	}
	if op.Cost == nil {
		return nil, d.fail(e.keyPos, "%s moves money and declares no cost: declare its call fee (usd_micro: 0 when it charges none); a transfer amount is not the provider's fee", label)
	}
	p := &OperationPayment{}
	if p.Amount, err = d.nonEmpty(f, "amount", label+" payment amount"); err != nil {
		return nil, err
	}
	if p.Currency, err = d.nonEmpty(f, "currency", label+" payment currency"); err != nil {
		return nil, err
	}
	if p.Amount == "" || p.Currency == "" {
		return nil, d.fail(e.value.pos, "%s payment needs amount ($input.<integer input>) and currency", label)
	}
	if in := paymentInput(op, p.Amount); in == nil || in.Type != TypeInteger {
		return nil, d.fail(f.get("amount").value.pos, "%s payment amount %q must be $input.<declared integer input>: the amount is derived from the operation's inputs, in the currency's smallest counted unit", label, p.Amount)
	}
	if strings.HasPrefix(p.Currency, "$") {
		if in := paymentInput(op, p.Currency); in == nil || in.Type != TypeString {
			return nil, d.fail(f.get("currency").value.pos, "%s payment currency %q must be a currency code or $input.<declared string input>", label, p.Currency)
		}
	} else if !paymentCurrency.MatchString(p.Currency) {
		return nil, d.fail(f.get("currency").value.pos, "%s payment currency %q must be an upper-case code such as USD or USDC", label, p.Currency)
	}
	return p, nil
}

func paymentInput(op *ConnectorOperation, ref string) *InputSpec {
	name, ok := strings.CutPrefix(ref, "$input.")
	if !ok {
		return nil
	}
	return op.Input(name)
}

func decodeRequest(d decoder, e *entry, op *ConnectorOperation, label string) error {
	f, err := d.object(e.value, label+" request", "method", "path", "query", "body", "tool", "arguments")
	if err != nil {
		return err
	}
	r := &op.Request
	if te := f.get("tool"); te != nil {
		// An MCP tool call: its name and arguments, sent to the server at
		// the connector's base_url; nothing of an HTTP request applies.
		if f.has("method") || f.has("path") || f.has("query") || f.has("body") {
			return d.fail(te.keyPos, "%s request calls an MCP tool: it takes tool and arguments, not method, path, query or body", label)
		}
		if r.Tool, err = d.nonEmpty(f, "tool", label+" request tool"); err != nil {
			return err
		}
		return decodeBody(d, f.get("arguments"), op, label+" request arguments")
	} else if f.has("arguments") {
		return d.fail(f.get("arguments").keyPos, "%s request arguments are an MCP tool's; name the tool, or send a body", label)
	}
	if !f.has("method") || !f.has("path") {
		return d.fail(e.value.pos, "%s request needs method and path", label)
	}
	if r.Method, err = d.oneOf(f, "method", label+" request method", requestMethods...); err != nil {
		return err
	}
	if r.Path, err = d.nonEmpty(f, "path", label+" request path"); err != nil {
		return err
	}
	pe := f.get("path")
	if !strings.HasPrefix(r.Path, "/") || strings.HasPrefix(r.Path, "//") || strings.ContainsAny(r.Path, "?#\\") || slices.Contains(strings.Split(r.Path, "/"), "..") {
		return d.fail(pe.value.pos, "%s request path %q must start with one / and hold no query, fragment or ..; it only narrows the connector's base_url", label, r.Path)
	}
	if err := checkTemplate(op, r.Path); err != nil {
		return d.fail(pe.value.pos, "%s request path %v", label, err)
	}
	if qe := f.get("query"); qe != nil {
		if r.Query, err = d.stringMap(qe, label+" request query"); err != nil {
			return err
		}
		for k, v := range r.Query {
			if err := checkInputRef(op, v); err != nil {
				return d.fail(qe.value.pos, "%s request query %s %v", label, k, err)
			}
		}
	}
	if be := f.get("body"); be != nil && (r.Method == "GET" || r.Method == "DELETE") {
		return d.fail(be.keyPos, "%s request is a %s, which sends no body", label, r.Method)
	}
	return decodeBody(d, f.get("body"), op, label+" request body")
}

// decodeBody reads a request's body or a tool's arguments: one JSON object
// of literals and $input references.
func decodeBody(d decoder, be *entry, op *ConnectorOperation, label string) error {
	if be == nil {
		return nil
	}
	if be.value.kind != mapNode {
		return d.fail(be.value.pos, "%s must be a mapping (one JSON object)", label)
	}
	op.Request.Body = be.value.toValue()
	if err := walkBodyRefs(op, op.Request.Body); err != nil {
		return d.fail(be.value.pos, "%s %v", label, err)
	}
	return nil
}

func decodeIdempotency(d decoder, e *entry, label string) (*OperationIdempotency, error) {
	f, err := d.object(e.value, label+" idempotency", "header", "window_seconds")
	if err != nil {
		return nil, err
	}
	id := &OperationIdempotency{}
	if id.Header, err = d.nonEmpty(f, "header", label+" idempotency header"); err != nil {
		return nil, err
	}
	if !headerToken.MatchString(id.Header) {
		return nil, d.fail(e.value.pos, "%s idempotency header %q must be an HTTP header name", label, id.Header)
	}
	we := f.get("window_seconds")
	if we == nil {
		return nil, d.fail(e.value.pos, "%s idempotency needs window_seconds: how long the provider honours a key", label)
	}
	if id.WindowSeconds, err = d.positive(we, label+" idempotency window_seconds", MaxIdempotencyWindowSeconds); err != nil {
		return nil, err
	}
	return id, nil
}
