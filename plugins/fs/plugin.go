package fs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// Name is the plugin's name; its capability ids are fs.*.
const Name = "fs"

// Version is the plugin's own version; the kernel records it in receipts.
const Version = "0.1.0"

// Capability ids.
const (
	CapabilityRead        = "fs.read"
	CapabilityList        = "fs.list"
	CapabilitySearch      = "fs.search"
	CapabilityWrite       = "fs.write"
	CapabilityEdit        = "fs.edit"
	CapabilityApplyBundle = "fs.apply_bundle"
)

// Refusal and failure codes of the fs tools (the reach codes live with the
// containment rules).
const ()

// Plugin serves the workspace file tools. It holds no state: every call's
// authority arrives in its context, and every change's record lives in the
// journal beneath the project directory the kernel names.
type Plugin struct{}

// New returns the fs plugin.
func New() *Plugin { return &Plugin{} }

// Info describes the fs tools. The change tools declare effect write and
// are idempotent by call id: a call sent again answers from its committed
// journal instead of changing anything twice.
func (*Plugin) Info() plugin.Info {
	def := func(id, summary, in, out string) plugin.Definition {
		return plugin.Definition{
			ID: id, Summary: summary,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out),
			Effect: plugin.EffectRead, Approval: plugin.ApprovalNone, Idempotent: true,
		}
	}
	reads := func(d plugin.Definition, pointers ...string) plugin.Definition {
		for _, p := range pointers {
			d.PathInputs = append(d.PathInputs, plugin.PathInput{Pointer: p, Role: plugin.PathRead})
		}
		return d
	}
	// A change tool writes the paths it names (a bundle entry may also
	// delete its path), previews its change set and recovers what a crash
	// left begun.
	change := func(d plugin.Definition, pointer string, roles ...string) plugin.Definition {
		d.Effect = plugin.EffectWrite
		for _, r := range append([]string{plugin.PathWrite}, roles...) {
			d.PathInputs = append(d.PathInputs, plugin.PathInput{Pointer: pointer, Role: r})
		}
		d.Previews, d.Recovers = true, true
		return d
	}
	return plugin.Info{Name: Name, Version: Version, Capabilities: []plugin.Definition{
		reads(def(CapabilityRead, "Read one UTF-8 text file inside the reach, whole and bounded (1 MiB by default, at most 4 MiB), with its content_digest.",
			readRequestSchema, readResponseSchema), "/path"),
		reads(def(CapabilityList, "List a directory, optionally recursively, with ignore files honoured as Git honours them; .git, .runx, nested worktrees and secrets are not shown.",
			listRequestSchema, listResponseSchema), "/path"),
		reads(def(CapabilitySearch, "Search files for a literal (or RE2 regex) beneath a directory, or in the one file named, with ignore files honoured as Git honours them and secrets never searched.",
			searchRequestSchema, searchResponseSchema), "/path"),
		change(def(CapabilityWrite, "Write one file whole: expected_digest names the content it replaces (from fs.read's content_digest), or create: true (or no digest) makes a file that must not exist. Journaled, checked again immediately before an atomic rename.",
			writeRequestSchema, writeResponseSchema), "/path"),
		change(def(CapabilityEdit, "Replace exact text in one file, edits applied in order: each old occurs once, or at least once with replace_all. Bound to the content it read; journaled, checked again immediately before an atomic rename.",
			editRequestSchema, editResponseSchema), "/path"),
		change(def(CapabilityApplyBundle, "Write, create and delete several files whole or not at all: every existing file named by its expected_digest, journaled before the first rename and rolled back by recovery if interrupted.",
			bundleRequestSchema, bundleResponseSchema), "/changes/*/path", plugin.PathDelete),
	}}
}

// Invoke runs one fs call under the reach its context grants.
func (*Plugin) Invoke(ctx context.Context, call *plugin.Call) *plugin.Result {
	switch call.Capability {
	case CapabilityRead:
		return run(call, func(scope *Scope, req *ReadRequest) (*ReadResponse, *plugin.Result) {
			return read(scope, req)
		})
	case CapabilityList:
		return run(call, func(scope *Scope, req *ListRequest) (*ListResponse, *plugin.Result) {
			return list(ctx, scope, req)
		})
	case CapabilitySearch:
		return run(call, func(scope *Scope, req *SearchRequest) (*SearchResponse, *plugin.Result) {
			return search(ctx, scope, req)
		})
	case CapabilityWrite:
		var req WriteRequest
		if res := decode(call, &req); res != nil {
			return res
		}
		return runChange(ctx, call, func(s *Scope) (*changeSet, *plugin.Result) { return planWrite(s, &req) }, writeAnswer)
	case CapabilityEdit:
		var req EditRequest
		if res := decode(call, &req); res != nil {
			return res
		}
		return runChange(ctx, call, func(s *Scope) (*changeSet, *plugin.Result) { return planEdit(s, &req) }, editAnswer)
	case CapabilityApplyBundle:
		var req BundleRequest
		if res := decode(call, &req); res != nil {
			return res
		}
		return runChange(ctx, call, func(s *Scope) (*changeSet, *plugin.Result) { return planBundle(s, &req) }, bundleAnswer)
	}
	return plugin.Refused(errcode.CapabilityNotFound, fmt.Sprintf("plugin %s serves no capability %q", Name, call.Capability))
}

// run decodes a request, builds the call's scope and encodes the answer.
func run[Req, Resp any](call *plugin.Call, do func(*Scope, *Req) (*Resp, *plugin.Result)) *plugin.Result {
	var req Req
	if res := decode(call, &req); res != nil {
		return res
	}
	scope, res := NewScope(call.Context)
	if res != nil {
		return res
	}
	out, res := do(scope, &req)
	if res != nil {
		return res
	}
	b, err := json.Marshal(out)
	if err != nil {
		return plugin.Failed(errcode.FSOutputInvalid, err.Error())
	}
	return plugin.OK(b, nil)
}

// decode reads a request strictly: an unknown field is a mistake the caller
// should hear about, not a silently ignored option.
func decode(call *plugin.Call, into any) *plugin.Result {
	dec := json.NewDecoder(bytes.NewReader(call.Input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return plugin.Refused(errcode.FSRequestInvalid, fmt.Sprintf("%s input is not a valid request: %v", call.Capability, err))
	}
	return nil
}
