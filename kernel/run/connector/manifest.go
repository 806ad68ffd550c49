package connector

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Connector manifests. An operation a connector.yaml declares is described
// to the kernel as one sdk Definition, exactly as an operation a plugin
// declares in Describe, so the floor, approvals, spend, taint and
// inspection treat both alike. It is sent through whichever plugin declares
// the connector.request role, found by role, never by name.

// ManifestOp is a step's operation resolved to the manifest declaring it.
type ManifestOp struct {
	Connector *pkg.Connector
	Op        *pkg.ConnectorOperation
	Def       *sdk.Definition
}

// Project is where a run finds the connectors runx added: the project
// directory (.runx) holding added-connectors, and the runx home whose
// trust store verifies the ones a registry installed. Verified, when set,
// is the run's own memory of the installed connectors it verified
// (registry.Verified), which must not outlive the run.
type Project struct {
	Dir      string
	Home     string
	Verified *registry.Verified
}

// Verified is a run's memory of the installed connectors it verified.
type Verified = registry.Verified

// With is pr remembering what it verifies in v, the run's own.
func (pr Project) With(v *registry.Verified) Project {
	pr.Verified = v
	return pr
}

// LoadAdded reads the added connector name (kernel/registry's
// LoadAddedConnector): one a registry installed only while it verifies
// against its signed record, once a run for the same bytes. nil when the
// project adds none.
func (pr Project) LoadAdded(name string) (*pkg.Connector, error) {
	if pr.Dir == "" {
		return nil, nil
	}
	return pr.Verified.LoadAddedConnector(pr.Dir, pr.Home, name, "")
}

// ManifestOperation resolves ref to a connector manifest: the package's own
// connectors/<name>/ first, then the project's added connectors. It returns
// nil when no manifest names the connector (a plugin may declare it).
func ManifestOperation(p *pkg.Package, ref *pkg.OperationStep, pr Project) (*ManifestOp, error) {
	var c *pkg.Connector
	if p != nil {
		c = p.Connectors[ref.Connector]
	}
	if c == nil {
		var err error
		if c, err = pr.LoadAdded(ref.Connector); err != nil {
			return nil, err
		}
		if err := checkPin(p, ref.Connector, c); err != nil {
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
		return nil, contract.Errorf(errcode.ConnectorOperationUnknown, "connector %s %s declares no operation %q (it declares %s); no step was started", c.ID, c.Version, ref.Operation, strings.Join(names, ", "))
	}
	return &ManifestOp{Connector: c, Op: op, Def: Definition(c, op)}, nil
}

// Manifests holds each operation reference's manifest lookup for the life
// of a run: admission, the approval gate, spend and dispatch all ask, and an
// added connector is read from disk. The run bound the manifests it found
// at its start (the closure digest), so every step of it must see those,
// not a copy edited while it runs. The zero value is ready.
type Manifests struct {
	lookups sync.Map
}

// manifestLookup is one operation reference's manifest lookup.
type manifestLookup struct {
	mo  *ManifestOp
	err error
}

// Lookup is ManifestOperation once per operation reference and run.
func (m *Manifests) Lookup(p *pkg.Package, ref *pkg.OperationStep, pr Project) (*ManifestOp, error) {
	if v, ok := m.lookups.Load(ref.Ref); ok {
		l := v.(manifestLookup)
		return l.mo, l.err
	}
	mo, err := ManifestOperation(p, ref, pr)
	v, _ := m.lookups.LoadOrStore(ref.Ref, manifestLookup{mo: mo, err: err})
	l := v.(manifestLookup)
	return l.mo, l.err
}

// Of is the step's manifest operation, or nil for a step that is not one
// (or whose connector cannot be read: dispatch reports that).
func (m *Manifests) Of(p *pkg.Package, step *pkg.Step, pr Project) *ManifestOp {
	if step.Kind != pkg.KindOperation || step.Operation == nil {
		return nil
	}
	mo, _ := m.Lookup(p, step.Operation, pr)
	return mo
}

// Definition describes a manifest operation as a capability.
func Definition(c *pkg.Connector, op *pkg.ConnectorOperation) *sdk.Definition {
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

// Binding is what the connector.request capability is told about
// one call of mo: the authenticated destination and request template from
// the manifest, never from the caller.
func Binding(mo *ManifestOp) sdk.ConnectorBinding {
	c, op := mo.Connector, mo.Op
	b := sdk.ConnectorBinding{
		Connector: c.ID, Version: c.Version, Operation: op.Name, Verb: op.Verb, BaseURL: c.BaseURL,
		Request: sdk.RequestTemplate{Method: op.Request.Method, Path: op.Request.Path, Query: op.Request.Query, Tool: op.Request.Tool, Body: op.Request.Body},
	}
	if cr := c.Credential; cr != nil {
		b.Credential = &sdk.ConnectorCredential{Variable: cr.Variable, Header: cr.Header, Scheme: cr.Scheme}
	}
	if op.Idempotency != nil {
		b.IdempotencyHeader = op.Idempotency.Header
	}
	return b
}

// RefuseSecretField refuses a provider's decoded answer holding a field with
// a secret's name, naming the field, never its value.
func RefuseSecretField(what string, answer any) *contract.ErrorBody {
	at, found := credential.SecretField(answer)
	if !found {
		return nil
	}
	return &contract.ErrorBody{Code: errcode.ProviderOutputSecretRefused, Message: fmt.Sprintf(
		"%s: the provider's answer holds the field %s, which names a secret; runx records no provider secret, so the answer was refused before any receipt: have the provider (or the connector's request) leave it out", what, at)}
}

// RenderTarget renders an operation's target template over its inputs.
func RenderTarget(op *pkg.ConnectorOperation, inputs map[string]any) string {
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

// ProviderKey is the key a write reaches its provider under: the caller's
// key combined with the connector, operation and target, so revisions of
// the payload and calls from another workspace share it, and one caller
// key cannot collide across operations.
func ProviderKey(mo *ManifestOp, inputs map[string]any, callerKey string) string {
	if callerKey == "" {
		return ""
	}
	d := mustDigest(map[string]any{
		"schema": "runx.provider-key.v1", "connector": mo.Connector.ID, "operation": mo.Op.Name,
		"target": RenderTarget(mo.Op, inputs), "key": callerKey,
	})
	return "runx-" + strings.TrimPrefix(d, "sha256:")[:48]
}

// Extra is what a manifest operation's receipt records of its
// connector: the digests that bind it.
func Extra(mo *ManifestOp, inputs map[string]any) map[string]any {
	return map[string]any{
		"id": mo.Connector.ID, "version": mo.Connector.Version,
		"manifest_digest": mo.Connector.ManifestDigest, "connector_digest": mo.Connector.ConnectorDigest,
		"operation": mo.Op.Name, "operation_digest": mo.Op.Digest, "verb": mo.Op.Verb,
		"scopes": orEmptyList(mo.Op.Scopes), "target": RenderTarget(mo.Op, inputs),
	}
}

func orEmptyList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Added lists, by name, the manifest and connector digests of the
// project's added connectors a package's steps and call lists name (its own
// connectors/ are bound by the package digest already).
func Added(p *pkg.Package, pr Project) map[string]any {
	if p == nil || pr.Dir == "" {
		return nil
	}
	var out map[string]any
	for _, name := range calledConnectors(p) {
		if _, own := p.Connectors[name]; own {
			continue
		}
		if _, done := out[name]; done {
			continue
		}
		c, err := pr.LoadAdded(name)
		if err != nil || c == nil {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[name] = map[string]any{"version": c.Version, "manifest_digest": c.ManifestDigest, "connector_digest": c.ConnectorDigest}
	}
	return out
}

func mustDigest(v any) string {
	d, err := canon.Digest(v)
	if err != nil {
		panic(errors.New("digest of a kernel-built value failed: " + err.Error()))
	}
	return d
}

// checkPin holds an added connector to the manifest digest the package's
// run.yaml pins it to: an install of other bytes, however validly signed,
// is not the connector the package was written against. A connector a
// registry installed (one with a registry version) must be pinned: the
// signature says who published it, the pin says it is the one this
// package was written for. Connectors added from the release are checked
// against the release instead and need no pin.
func checkPin(p *pkg.Package, name string, c *pkg.Connector) error {
	if p == nil || c == nil {
		return nil
	}
	pin, ok := p.ConnectorPins[name]
	if !ok {
		if c.RegistryVersion == "" {
			return nil
		}
		return contract.Errorf(errcode.ConnectorPinMissing, "package %s binds connector %s, which a registry installed at version %s, without pinning it: add connectors: {%s: {manifest_digest: %q}} to its run.yaml once you have read that manifest", p.Name, c.ID, c.RegistryVersion, name, c.ManifestDigest)
	}
	if pin == c.ManifestDigest {
		return nil
	}
	return contract.Errorf(errcode.ConnectorPinMismatch, "package %s pins connector %s to manifest %s, and the one added to the project is %s (version %s): install the pinned version, or pin the installed manifest's digest", p.Name, c.ID, pin, c.ManifestDigest, c.Version)
}
