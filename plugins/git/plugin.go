package git

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	"github.com/runxhq/runx/sdk/plugin"
)

// Name is the plugin's name; its capability ids are git.*.
const Name = "git"

// Version is the plugin's own version; the kernel records it in receipts.
const Version = "0.1.0"

// Capability ids.
const (
	CapabilityLog  = "git.log"
	CapabilityShow = "git.show"
	CapabilityDiff = "git.diff"
)

// Plugin serves git.log, git.show and git.diff by driving the git binary.
// It holds no state: every call's authority arrives in its context.
type Plugin struct{}

// New returns the git plugin.
func New() *Plugin { return &Plugin{} }

// Info describes the git tools.
func (*Plugin) Info() plugin.Info {
	def := func(id, summary, in, out string) plugin.Definition {
		return plugin.Definition{
			ID: id, Summary: summary,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out),
			Effect: plugin.EffectRead, Approval: plugin.ApprovalNone, Idempotent: true,
			// Each tool's path names a file or directory of the workspace
			// the tool reads (and finds the repository from).
			PathInputs: []plugin.PathInput{{Pointer: "/path", Role: plugin.PathRead}},
		}
	}
	return plugin.Info{Name: Name, Version: Version, Capabilities: []plugin.Definition{
		def(CapabilityLog, "List commits (hash, author, date, subject, changed files) of a repository inside the reach, optionally for one path or range; secrets are named, not listed.",
			logRequestSchema, logResponseSchema),
		def(CapabilityShow, "Show one commit with its patch, or one file at a revision, bounded; secrets are left out of patches and named.",
			showRequestSchema, showResponseSchema),
		def(CapabilityDiff, "Show the patch between two revisions, or from a revision to the working tree, bounded; secrets are left out and named.",
			diffRequestSchema, diffResponseSchema),
	}}
}

// Invoke runs one git call under the reach its context grants.
func (*Plugin) Invoke(ctx context.Context, call *plugin.Call) *plugin.Result {
	switch call.Capability {
	case CapabilityLog:
		return run(ctx, call, func(r *repo, req *LogRequest) (*LogResponse, *plugin.Result) { return gitLog(ctx, r, req) },
			func(req *LogRequest) string { return req.Path })
	case CapabilityShow:
		return run(ctx, call, func(r *repo, req *ShowRequest) (*ShowResponse, *plugin.Result) { return gitShow(ctx, r, req) },
			func(req *ShowRequest) string { return req.Path })
	case CapabilityDiff:
		return run(ctx, call, func(r *repo, req *DiffRequest) (*DiffResponse, *plugin.Result) { return gitDiff(ctx, r, req) },
			func(req *DiffRequest) string { return req.Path })
	}
	return plugin.Refused(errcode.CapabilityNotFound, fmt.Sprintf("plugin %s serves no capability %q", Name, call.Capability))
}

// run decodes a request, contains its path, finds its repository and
// encodes the answer.
func run[Req, Resp any](ctx context.Context, call *plugin.Call, do func(*repo, *Req) (*Resp, *plugin.Result), pathOf func(*Req) string) *plugin.Result {
	var req Req
	if res := decode(call, &req); res != nil {
		return res
	}
	scope, res := pathpolicy.NewScope(call.Context)
	if res != nil {
		return res
	}
	r, res := locate(ctx, scope, pathOf(&req))
	if res != nil {
		return res
	}
	out, res := do(r, &req)
	if res != nil {
		return res
	}
	b, err := json.Marshal(out)
	if err != nil {
		return plugin.Failed(errcode.GitOutputInvalid, err.Error())
	}
	return plugin.OK(b, nil)
}

// decode reads a request strictly: an unknown field is a mistake the caller
// should hear about, not a silently ignored option.
func decode(call *plugin.Call, into any) *plugin.Result {
	dec := json.NewDecoder(bytes.NewReader(call.Input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return plugin.Refused(errcode.GitRequestInvalid, fmt.Sprintf("%s input is not a valid request: %v", call.Capability, err))
	}
	return nil
}
