package pluginhost

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/sdk/internal/wire"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/proto/pluginv1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ErrNotImplemented is what Preview and Recover return when the plugin
// does not implement the RPC (an older plugin, or one without the optional
// interface). It is plugin.ErrNotImplemented, so either name matches.
var ErrNotImplemented = plugin.ErrNotImplemented

// Preview asks the plugin for the change set a call would make (a
// runx.change_set.v1 document in the result's output). It returns
// ErrNotImplemented when the plugin does not preview at all.
func (c *Client) Preview(ctx context.Context, call *plugin.Call, maxOutput int64) (*plugin.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.rpc.Preview(ctx, grpc.ForceCodecV2(wire.Codec{}))
	if err != nil {
		return nil, notImplemented(err)
	}
	if err := sendCall(stream, call); err != nil {
		return nil, notImplemented(err)
	}
	res, err := receiveResult(stream, maxOutput)
	return res, notImplemented(err)
}

// Recover asks the plugin to settle what a crash left begun under the
// call's run. It returns ErrNotImplemented when the plugin does not recover
// at all.
func (c *Client) Recover(ctx context.Context, call *plugin.Call) (*plugin.Result, error) {
	resp, err := c.rpc.Recover(ctx, &pluginv1.RecoverRequest{Capability: call.Capability, Context: contextToProto(&call.Context)})
	if err != nil {
		return nil, notImplemented(err)
	}
	return resultFromProto(resp.GetResult(), resp.GetOutput()), nil
}

func notImplemented(err error) error {
	if status.Code(err) == codes.Unimplemented {
		return fmt.Errorf("%w: %v", ErrNotImplemented, err)
	}
	return err
}
