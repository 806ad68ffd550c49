package plugin

import (
	"context"
	"errors"
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/proto/pluginv1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Previewer is optional: a plugin with capabilities that declare Previews
// answers Preview with the exact change set a call would make (a
// runx.change_set.v1 document, see ChangeSet), changing nothing. The kernel
// puts it on the call's approval gate.
type Previewer interface {
	Preview(ctx context.Context, call *Call) *Result
}

// Recoverer is optional: a plugin with capabilities that declare Recovers
// settles, whole, any change a crash left begun under call.Context.RunID.
// call.Input is empty.
type Recoverer interface {
	Recover(ctx context.Context, call *Call) *Result
}

// ErrNotImplemented is what a host's Preview and Recover calls return when
// the plugin does not implement the RPC (an older plugin, or one without
// the optional interface); sdk/pluginhost and sdk/plugin/plugintest answer
// it.
var ErrNotImplemented = errors.New("plugin does not implement this optional RPC")

// ChangeSet is the document Preview answers with: every target the call
// would change, each with what it holds now, what it would hold and the
// complete diff between them. Nothing in it is truncated.
type ChangeSet struct {
	Schema  string   `json:"schema"`
	Changes []Change `json:"changes"`
}

// Ops of a Change.
const (
	ChangeCreate = "create"
	ChangeModify = "modify"
	ChangeDelete = "delete"
)

// Change is one target of a change set. Path is workspace-relative; Op is
// ChangeCreate, ChangeModify or ChangeDelete.
type Change struct {
	Path         string `json:"path"`
	Op           string `json:"op"`
	BeforeDigest string `json:"before_digest,omitempty"`
	AfterDigest  string `json:"after_digest,omitempty"`
	Diff         string `json:"diff"`
}

func (s *server) definition(capability string) *Definition {
	return s.info.Find(capability)
}

func (s *server) Preview(stream pluginv1.Capability_PreviewServer) error {
	previewer, ok := s.impl.(Previewer)
	if !ok {
		return status.Error(codes.Unimplemented, "plugin does not preview")
	}
	call, err := receiveCall(stream)
	if err != nil {
		return err
	}
	def := s.definition(call.Capability)
	if def == nil || !def.Previews {
		return sendResult(stream, Refused(errcode.PreviewUnsupported,
			fmt.Sprintf("plugin %s does not preview capability %q", s.info.Name, call.Capability)))
	}
	return sendResult(stream, s.recovered(call, func() *Result { return previewer.Preview(stream.Context(), call) }))
}

func (s *server) Recover(ctx context.Context, req *pluginv1.RecoverRequest) (*pluginv1.RecoverResponse, error) {
	recoverer, ok := s.impl.(Recoverer)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "plugin does not recover")
	}
	call := &Call{Capability: req.GetCapability(), Context: contextFromProto(req.GetContext())}
	var res *Result
	if def := s.definition(call.Capability); def == nil || !def.Recovers {
		res = Refused(errcode.RecoverUnsupported, fmt.Sprintf("plugin %s does not recover capability %q", s.info.Name, call.Capability))
	} else {
		res = s.recovered(call, func() *Result { return recoverer.Recover(ctx, call) })
	}
	if len(res.Output) > MaxChunkBytes {
		res = Failed(errcode.RecoverOutputTooLarge, fmt.Sprintf("plugin %s answered Recover with more than %d bytes", s.info.Name, MaxChunkBytes))
	}
	return &pluginv1.RecoverResponse{Output: res.Output, Result: &pluginv1.InvokeResult{
		Status: res.Status, Code: string(res.Code), Message: res.Message, Evidence: res.Evidence,
		DiscardWorker: res.DiscardWorker, OutputSize: int64(len(res.Output)),
	}}, nil
}
