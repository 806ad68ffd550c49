package fs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/sdk/plugin"
)

// Name is the plugin's name; its capability ids are fs.*.
const Name = "fs"

// Version is the plugin's own version; the kernel records it in receipts.
const Version = "0.1.0"

// Capability ids.
const (
	CapabilityRead   = "fs.read"
	CapabilityList   = "fs.list"
	CapabilitySearch = "fs.search"
)

// Refusal and failure codes of the fs tools (the reach codes live with the
// containment rules).
const (
	CodeRequestInvalid = "fs_request_invalid"
	CodeNotFound       = "fs_not_found"
	CodeNotAFile       = "fs_not_a_file"
	CodeNotADirectory  = "fs_not_a_directory"
	CodeBinaryRefused  = "fs_binary_refused"
	CodeReadTooLarge   = "fs_read_too_large"
	CodeQueryEmpty     = "fs_search_query_empty"
	CodeRegexInvalid   = "fs_search_regex_invalid"
	CodeReadFailed     = "fs_read_failed"
	CodeChanged        = "fs_changed_during_read"
	CodeCancelled      = "fs_cancelled"
)

// Plugin serves the read side of the workspace file tools. It holds no
// state: every call's authority arrives in its context.
type Plugin struct{}

// New returns the fs plugin.
func New() *Plugin { return &Plugin{} }

// Info describes fs.read, fs.list and fs.search.
func (*Plugin) Info() plugin.Info {
	def := func(id, summary, in, out string) plugin.Definition {
		return plugin.Definition{
			ID: id, Summary: summary,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out),
			Effect: plugin.EffectRead, Approval: plugin.ApprovalNone, Idempotent: true,
		}
	}
	return plugin.Info{Name: Name, Version: Version, Capabilities: []plugin.Definition{
		def(CapabilityRead, "Read one UTF-8 text file inside the reach, whole and bounded (1 MiB by default, at most 4 MiB), with its content_digest.",
			readRequestSchema, readResponseSchema),
		def(CapabilityList, "List a directory, optionally recursively, with ignore files honoured as Git honours them; .git, .runx, nested worktrees and secrets are not shown.",
			listRequestSchema, listResponseSchema),
		def(CapabilitySearch, "Search files for a literal (or RE2 regex) beneath a directory, or in the one file named, with ignore files honoured as Git honours them and secrets never searched.",
			searchRequestSchema, searchResponseSchema),
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
	}
	return plugin.Refused("capability_not_found", fmt.Sprintf("plugin %s serves no capability %q", Name, call.Capability))
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
		return plugin.Failed("fs_output_invalid", err.Error())
	}
	return plugin.OK(b, nil)
}

// decode reads a request strictly: an unknown field is a mistake the caller
// should hear about, not a silently ignored option.
func decode(call *plugin.Call, into any) *plugin.Result {
	dec := json.NewDecoder(bytes.NewReader(call.Input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return plugin.Refused(CodeRequestInvalid, fmt.Sprintf("%s input is not a valid request: %v", call.Capability, err))
	}
	return nil
}
