package artifact

import (
	"context"
	"encoding/json"

	"github.com/runxhq/runx/sdk/artifactstore"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// Name is the plugin's name; its capabilities are artifact.*.
const Name = "artifact"

// Version is the plugin's own version.
const Version = "0.1.0"

// Capability ids.
const (
	AdmitCapability = "artifact.admit"
	ReadCapability  = "artifact.read"
	StoreCapability = "artifact.store"
	OpenCapability  = "artifact.open"
)

// Schemas of the documents it answers.
const (
	ArtifactSchema = artifactstore.DescriptorSchema
	PageSchema     = "runx.artifact_page.v1"
)

// Ceilings.
const (
	// MaxRunAdmission is the most a run admits in all, across its calls.
	MaxRunAdmission = 512 << 20
	// MaxPageBytes is a page's ceiling (not the artifact's).
	MaxPageBytes = 4 << 20
	// DefaultPageBytes is a page when the call names no max_bytes.
	DefaultPageBytes = 1 << 20
)

// Plugin serves artifact.*.
type Plugin struct{}

// New returns the artifact plugin.
func New() *Plugin { return &Plugin{} }

// Info describes artifact.*.
func (p *Plugin) Info() plugin.Info {
	return plugin.Info{Name: Name, Version: Version, Capabilities: []plugin.Definition{
		{
			ID:           AdmitCapability,
			Summary:      "Snapshot one contained regular file into the run's artifacts and return its runx.artifact.v1 reference (media type, byte count, digest; never the host path). At most 512 MiB per run.",
			InputSchema:  json.RawMessage(admitRequestSchema),
			OutputSchema: json.RawMessage(artifactSchema),
			Effect:       plugin.EffectRead, Approval: plugin.ApprovalNone, Idempotent: true,
			Scopes:     []string{"fs.read"},
			PathInputs: []plugin.PathInput{{Pointer: "/path", Role: plugin.PathRead}},
		},
		{
			ID:           ReadCapability,
			Summary:      "Read one page (at most 4 MiB, default 1 MiB) of an artifact of this run by offset, as base64, whole UTF-8 characters or whole JSON-array items, with the page's range digest and the artifact's digest.",
			InputSchema:  json.RawMessage(readRequestSchema),
			OutputSchema: json.RawMessage(pageSchema),
			Effect:       plugin.EffectRead, Approval: plugin.ApprovalNone, Idempotent: true,
			Scopes: []string{"fs.read"},
		},
		{
			// It changes no workspace file: it records a value in runx's own
			// content-addressed store, as a receipt is recorded.
			ID:           StoreCapability,
			Summary:      "Retain a JSON value as its canonical JSON in this project's artifact store and return its runx.artifact.v1 descriptor (artifact id, root, size, digest). Needs reach inputs.",
			InputSchema:  json.RawMessage(storeRequestSchema),
			OutputSchema: json.RawMessage(artifactSchema),
			Effect:       plugin.EffectNone, Approval: plugin.ApprovalNone, Idempotent: true,
			Scopes: []string{"artifact.write"},
		},
		{
			ID:           OpenCapability,
			Summary:      "Check a retained artifact's root, size and digest against this project's store and return a reference of this run that artifact.read pages. Needs reach inputs.",
			InputSchema:  json.RawMessage(openRequestSchema),
			OutputSchema: json.RawMessage(artifactSchema),
			Effect:       plugin.EffectRead, Approval: plugin.ApprovalNone, Idempotent: true,
			Scopes: []string{"artifact.read"},
		},
	}}
}

// Invoke serves one call.
func (p *Plugin) Invoke(ctx context.Context, call *plugin.Call) *plugin.Result {
	st, res := openStore(call.Context)
	if res != nil {
		return res
	}
	switch call.Capability {
	case AdmitCapability:
		var req admitRequest
		if res := decode(call, &req); res != nil {
			return res
		}
		return st.admit(ctx, call, &req)
	case ReadCapability:
		var req readRequest
		if res := decode(call, &req); res != nil {
			return res
		}
		return st.read(call, &req)
	case StoreCapability:
		var req storeRequest
		if res := decode(call, &req); res != nil {
			return res
		}
		return st.retain(call, &req)
	case OpenCapability:
		var req openRequest
		if res := decode(call, &req); res != nil {
			return res
		}
		return st.open(call, &req)
	}
	return plugin.Refused(errcode.CapabilityUnknown, "the artifact plugin serves no capability "+call.Capability)
}

func decode(call *plugin.Call, v any) *plugin.Result {
	if err := json.Unmarshal(call.Input, v); err != nil {
		return plugin.Refused(errcode.ArtifactRequestInvalid, call.Capability+" input is not a valid request: "+err.Error())
	}
	return nil
}

func answer(v any) *plugin.Result {
	out, err := json.Marshal(v)
	if err != nil {
		return plugin.Failed(errcode.ArtifactStoreUnavailable, "cannot write the answer: "+err.Error())
	}
	return plugin.OK(out, nil)
}
