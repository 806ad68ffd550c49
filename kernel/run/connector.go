package run

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Connector manifests. An operation a connector.yaml declares is described
// to the kernel as one sdk Definition, exactly as an operation a plugin
// declares in Describe, so the floor, approvals, spend, taint and
// inspection treat both alike. It is sent through whichever plugin declares
// the connector.request role, found by role, never by name.

// manifestOp is a step's operation resolved to the manifest declaring it.
type manifestOp struct {
	connector *pkg.Connector
	op        *pkg.ConnectorOperation
	def       *sdk.Definition
}

// CodeConnectorOperationUnknown refuses an operation its connector's
// manifest does not declare.
const CodeConnectorOperationUnknown = "connector_operation_unknown"

// manifestOperation resolves ref to a connector manifest: the package's own
// connectors/<name>/ first, then the project's added connectors. It returns
// nil when no manifest names the connector (a plugin may declare it).
func (e *Engine) manifestOperation(p *pkg.Package, ref *pkg.OperationStep) (*manifestOp, error) {
	var c *pkg.Connector
	if p != nil {
		c = p.Connectors[ref.Connector]
	}
	if c == nil && e.ProjectDir != "" {
		var err error
		if c, err = pkg.LoadAddedConnector(e.ProjectDir, ref.Connector, ""); err != nil {
			return nil, err
		}
	}
	if c == nil {
		return nil, nil
	}
	op := c.Operation(ref.Operation)
	if op == nil {
		names := make([]string, len(c.Operations))
		for i, o := range c.Operations {
			names[i] = o.Name
		}
		return nil, contract.Errorf(CodeConnectorOperationUnknown, "connector %s %s declares no operation %q (it declares %s); no step was started", c.ID, c.Version, ref.Operation, strings.Join(names, ", "))
	}
	return &manifestOp{connector: c, op: op, def: connectorDefinition(c, op)}, nil
}

// manifestOp is the step's manifest operation, or nil for a step that is
// not one (or whose connector cannot be read: dispatch reports that).
func (rc *runCtx) manifestOp(step *pkg.Step) *manifestOp {
	if step.Kind != pkg.KindOperation || step.Operation == nil {
		return nil
	}
	mo, _ := rc.lookupManifestOp(step.Operation)
	return mo
}

// manifestLookup is one operation reference's manifest lookup.
type manifestLookup struct {
	mo  *manifestOp
	err error
}

// lookupManifestOp is manifestOperation once per operation reference and
// run: admission, the approval gate, spend and dispatch all ask, and an
// added connector is read from disk. The run bound the manifests it found
// at its start (the closure digest), so every step of it must see those,
// not a copy edited while it runs.
func (rc *runCtx) lookupManifestOp(ref *pkg.OperationStep) (*manifestOp, error) {
	if v, ok := rc.manifests.Load(ref.Ref); ok {
		l := v.(manifestLookup)
		return l.mo, l.err
	}
	mo, err := rc.e.manifestOperation(rc.pkg, ref)
	v, _ := rc.manifests.LoadOrStore(ref.Ref, manifestLookup{mo: mo, err: err})
	l := v.(manifestLookup)
	return l.mo, l.err
}

// operationDefinition is a step's operation as the kernel knows it: from
// its connector manifest, else from the plugin that declares it.
func (rc *runCtx) operationDefinition(ctx context.Context, step *pkg.Step) *sdk.Definition {
	if mo := rc.manifestOp(step); mo != nil {
		return mo.def
	}
	return rc.e.definition(ctx, operationCapability(step.Operation))
}

// connectorDefinition describes a manifest operation as a capability.
func connectorDefinition(c *pkg.Connector, op *pkg.ConnectorOperation) *sdk.Definition {
	def := &sdk.Definition{
		ID:         c.ID + "/" + op.Name,
		Summary:    op.Summary,
		Effect:     sdk.EffectRead,
		Scopes:     op.Scopes,
		Approval:   op.Approval,
		Idempotent: op.Verb == pkg.VerbRead || op.Idempotency != nil,
	}
	if op.Verb == pkg.VerbWrite {
		def.Effect = sdk.EffectWrite
	}
	if op.Cost != nil {
		def.Cost = &sdk.Cost{USDMicro: op.Cost.USDMicro, Per: op.Cost.Per, Source: op.Cost.Source, SourceURL: op.Cost.SourceURL}
	}
	props, required := map[string]any{}, []string{}
	for _, in := range op.Inputs {
		p := map[string]any{}
		for k, v := range in.Schema {
			p[k] = v
		}
		if _, typed := p["type"]; !typed && in.Type != pkg.TypeJSON {
			p["type"] = in.Type
		}
		if in.Description != "" {
			p["description"] = in.Description
		}
		props[in.Name] = p
		if in.Required && !in.HasDefault {
			required = append(required, in.Name)
		}
	}
	if op.Verb == pkg.VerbWrite {
		props["idempotency_key"] = map[string]any{"type": "string", "description": "One key means one intent; a retry reuses it."}
	}
	in := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		in["required"] = required
	}
	def.InputSchema, _ = json.Marshal(in)
	outProps := map[string]any{}
	for name, o := range op.Outputs {
		p := map[string]any{}
		for k, v := range o.Schema {
			p[k] = v
		}
		if _, typed := p["type"]; !typed && o.Type != "" && o.Type != pkg.TypeJSON {
			p["type"] = o.Type
		}
		outProps[name] = p
	}
	def.OutputSchema, _ = json.Marshal(map[string]any{"type": "object", "properties": outProps})
	return def
}

// connectorBinding is what the connector.request capability is told about
// one call of mo: the authenticated destination and request template from
// the manifest, never from the caller.
func connectorBinding(mo *manifestOp) sdk.ConnectorBinding {
	c, op := mo.connector, mo.op
	b := sdk.ConnectorBinding{
		Connector: c.ID, Version: c.Version, Operation: op.Name, Verb: op.Verb, BaseURL: c.BaseURL,
		Request: sdk.RequestTemplate{Method: op.Request.Method, Path: op.Request.Path, Query: op.Request.Query, Body: op.Request.Body},
	}
	if cr := c.Credential; cr != nil {
		b.Credential = &sdk.ConnectorCredential{Variable: cr.Variable, Header: cr.Header, Scheme: cr.Scheme}
	}
	if op.Idempotency != nil {
		b.IdempotencyHeader = op.Idempotency.Header
	}
	return b
}

// connectorDispatch prepares one manifest operation call: its checked
// inputs, the binding, the delivered credential and, for a write, the
// provider key.
func (rc *runCtx) connectorDispatch(ctx context.Context, step *pkg.Step, mo *manifestOp, inputs map[string]any) (*dispatch, map[string]string, json.RawMessage, error) {
	checked, err := mo.op.CheckInputs(inputs)
	if err != nil {
		return nil, nil, nil, err
	}
	capability, err := rc.e.roleCapability(ctx, sdk.RoleConnectorRequest)
	if err != nil {
		return nil, nil, nil, err
	}
	b := connectorBinding(mo)
	if r := rc.e.HTTPReplay; r != nil {
		b.Replay, b.Exchanges = true, r.due()
	}
	var creds map[string]string
	if cr := mo.connector.Credential; cr != nil {
		v, err := rc.e.CredentialResolver().Resolve(mo.connector.ID, cr.Variable)
		if err != nil {
			return nil, nil, nil, err
		}
		creds = map[string]string{cr.Variable: v}
	}
	binding, err := json.Marshal(b)
	if err != nil {
		return nil, nil, nil, err
	}
	sink := sinkOf(ctx)
	d := &dispatch{
		capability: capability,
		def:        mo.def,
		execution:  execNative,
		input:      checked,
		timeout:    stepTimeout(step, operationDefaultTimeout),
		maxOutput:  operationMaxAnswer,
		interpret: func(raw []byte, body *receipt.Body) (any, *contract.ErrorBody) {
			out, failure := connectorAnswer(step.ID, mo, raw)
			if sink != nil && (failure == nil || failure.Code != CodeProviderOutputSecret) {
				var resp sdk.ConnectorResponse
				if json.Unmarshal(raw, &resp) == nil {
					sink.body = resp.Body
				}
			}
			return out, failure
		},
		evidence: rc.e.HTTPReplay.observe,
	}
	if mo.op.Verb == pkg.VerbWrite {
		key, _ := inputs["idempotency_key"].(string)
		d.idempotencyKey = providerKey(mo, checked, key)
	}
	return d, creds, binding, nil
}

// connectorAnswer turns the connector.request capability's answer into the
// operation's output: the provider's JSON body, held to the operation's
// declared outputs.
func connectorAnswer(stepID string, mo *manifestOp, raw []byte) (any, *contract.ErrorBody) {
	var resp sdk.ConnectorResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, &contract.ErrorBody{Code: "capability_output_invalid", Message: "the connector request answered with output that is not a connector response"}
	}
	if failure := refuseSecretField("operation "+mo.def.ID, resp.Body); failure != nil {
		return nil, failure
	}
	if len(mo.op.Outputs) == 0 {
		return resp.Body, nil
	}
	out, err := checkOutputs(stepID, mo.op.Outputs, resp.Body)
	if err != nil {
		body := contract.BodyOf(err)
		body.Code = "provider_answer_invalid"
		body.Message = "operation " + mo.def.ID + ": the provider's answer does not hold the operation's declared outputs: " + body.Message
		return nil, body
	}
	return out, nil
}

// CodeProviderOutputSecret refuses a provider's answer that holds a field
// named as a secret is (password, token, access_token, client_secret, ...:
// credential.IsSecretFieldName). Runx scrubs the values it delivered, but a
// provider can answer with secrets runx never saw; such an answer is
// refused before anything of it reaches a receipt or the run's record.
const CodeProviderOutputSecret = "provider_output_secret_refused"

// refuseSecretField refuses a provider's decoded answer holding a field with
// a secret's name, naming the field, never its value.
func refuseSecretField(what string, answer any) *contract.ErrorBody {
	at, found := credential.SecretField(answer)
	if !found {
		return nil
	}
	return &contract.ErrorBody{Code: CodeProviderOutputSecret, Message: fmt.Sprintf(
		"%s: the provider's answer holds the field %s, which names a secret; runx records no provider secret, so the answer was refused before any receipt: have the provider (or the connector's request) leave it out", what, at)}
}

// decodeProviderOutput is decodeOutput for a connector plugin's operation:
// an answer holding a secret's field is refused.
func decodeProviderOutput(id string) func([]byte, *receipt.Body) (any, *contract.ErrorBody) {
	return func(raw []byte, body *receipt.Body) (any, *contract.ErrorBody) {
		out, failure := decodeOutput(raw, body)
		if failure != nil {
			return nil, failure
		}
		if failure := refuseSecretField("operation "+id, out); failure != nil {
			return nil, failure
		}
		return out, nil
	}
}

// renderTarget renders an operation's target template over its inputs.
func renderTarget(op *pkg.ConnectorOperation, inputs map[string]any) string {
	if op.Target == "" {
		return ""
	}
	b := sdk.ConnectorBinding{BaseURL: "https://target.invalid", Request: sdk.RequestTemplate{Path: "/" + op.Target}}
	r, err := sdk.Render(&b, inputs)
	if err != nil {
		return op.Target
	}
	return strings.TrimPrefix(r.URL, "https://target.invalid/")
}

// providerKey is the key a write reaches its provider under: the caller's
// key combined with the connector, operation and target, so revisions of
// the payload and calls from another workspace share it, and one caller
// key cannot collide across operations.
func providerKey(mo *manifestOp, inputs map[string]any, callerKey string) string {
	if callerKey == "" {
		return ""
	}
	d := mustDigest(map[string]any{
		"schema": "runx.provider-key.v1", "connector": mo.connector.ID, "operation": mo.op.Name,
		"target": renderTarget(mo.op, inputs), "key": callerKey,
	})
	return "runx-" + strings.TrimPrefix(d, "sha256:")[:48]
}

// connectorExtra is what a manifest operation's receipt records of its
// connector: the digests that bind it.
func connectorExtra(mo *manifestOp, inputs map[string]any) map[string]any {
	return map[string]any{
		"id": mo.connector.ID, "version": mo.connector.Version,
		"manifest_digest": mo.connector.ManifestDigest, "connector_digest": mo.connector.ConnectorDigest,
		"operation": mo.op.Name, "operation_digest": mo.op.Digest, "verb": mo.op.Verb,
		"scopes": orEmptyList(mo.op.Scopes), "target": renderTarget(mo.op, inputs),
	}
}

func orEmptyList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// addedConnectors lists, by name, the manifest and connector digests of the
// project's added connectors a package's steps and call lists name (its own
// connectors/ are bound by the package digest already).
func addedConnectors(p *pkg.Package, projectDir string) map[string]any {
	if p == nil || projectDir == "" {
		return nil
	}
	var out map[string]any
	add := func(ref string) {
		i := strings.LastIndexByte(ref, '/')
		if i <= 0 {
			return
		}
		name := ref[:i]
		if _, own := p.Connectors[name]; own {
			return
		}
		if _, done := out[name]; done {
			return
		}
		c, err := pkg.LoadAddedConnector(projectDir, name, "")
		if err != nil || c == nil {
			return
		}
		if out == nil {
			out = map[string]any{}
		}
		out[name] = map[string]any{"version": c.Version, "manifest_digest": c.ManifestDigest, "connector_digest": c.ConnectorDigest}
	}
	for _, m := range p.Methods {
		for _, s := range m.Steps {
			if s.Operation != nil {
				add(s.Operation.Ref)
			}
			if s.Agent != nil && s.Agent.Calls != nil {
				for _, op := range s.Agent.Calls.Operations {
					add(op)
				}
			}
			if s.Script != nil && s.Script.Calls != nil {
				for _, op := range s.Script.Calls.Operations {
					add(op)
				}
			}
		}
	}
	return out
}
