package fs

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// Preview answers the Preview RPC for fs.write, fs.edit and fs.apply_bundle:
// the call is planned exactly as Invoke would plan it, refusals included,
// and nothing changes. The answer is a runx.change_set.v1 document with the
// complete diff and both digests of every file, which the kernel puts on the
// call's approval gate.
func (*Plugin) Preview(_ context.Context, call *plugin.Call) *plugin.Result {
	scope, res := NewScope(call.Context)
	if res != nil {
		return res
	}
	cs, res := planCall(scope, call)
	if res != nil {
		return res
	}
	out := plugin.ChangeSet{Schema: plugin.ChangeSetSchema, Changes: make([]plugin.Change, 0, len(cs.files))}
	for _, fc := range cs.files {
		out.Changes = append(out.Changes, plugin.Change{
			Path: fc.target.Display, Op: changeSetOp(fc.op),
			BeforeDigest: fc.beforeDigest, AfterDigest: fc.afterDigest,
			Diff: unifiedDiff(fc),
		})
	}
	return encode(out)
}

// Recover answers the Recover RPC: it rolls back every begun journal of the
// call's run. The three change tools share one journal and one commit lock,
// so recovery settles the run's begun changes whichever of them began one:
// what the next driver needs is that nothing is left half applied.
func (*Plugin) Recover(ctx context.Context, call *plugin.Call) *plugin.Result {
	return recoverRun(ctx, call)
}

// planCall decodes a change tool's input and plans it, changing nothing.
func planCall(scope *Scope, call *plugin.Call) (*changeSet, *plugin.Result) {
	switch call.Capability {
	case CapabilityWrite:
		var req WriteRequest
		if res := decode(call, &req); res != nil {
			return nil, res
		}
		return planWrite(scope, &req)
	case CapabilityEdit:
		var req EditRequest
		if res := decode(call, &req); res != nil {
			return nil, res
		}
		return planEdit(scope, &req)
	case CapabilityApplyBundle:
		var req BundleRequest
		if res := decode(call, &req); res != nil {
			return nil, res
		}
		return planBundle(scope, &req)
	}
	return nil, plugin.Refused(errcode.PreviewUnsupported, fmt.Sprintf("plugin %s does not preview capability %q", Name, call.Capability))
}

// changeSetOp names an fs op in the change set's vocabulary: a file written
// over is modified.
func changeSetOp(op string) string {
	switch op {
	case OpCreate:
		return plugin.ChangeCreate
	case OpDelete:
		return plugin.ChangeDelete
	}
	return plugin.ChangeModify
}
