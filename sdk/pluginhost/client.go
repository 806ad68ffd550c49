package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/internal/wire"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/proto/pluginv1"
	"google.golang.org/grpc"
)

// Client speaks runx.plugin.v1 to one served plugin. A Go error from it
// means the transport failed; a refusal or failure is a *plugin.Result.
type Client struct {
	rpc pluginv1.CapabilityClient
}

// NewClient speaks to the Capability service on conn (a connection whose
// dial options include GRPCDialOptions).
func NewClient(conn grpc.ClientConnInterface) *Client {
	return &Client{rpc: pluginv1.NewCapabilityClient(conn)}
}

// Describe asks the plugin for its identity and capabilities.
func (c *Client) Describe(ctx context.Context, runxVersion string) (*plugin.Info, error) {
	resp, err := c.rpc.Describe(ctx, &pluginv1.DescribeRequest{RunxVersion: runxVersion})
	if err != nil {
		return nil, err
	}
	return infoFromProto(resp), nil
}

// ErrOutputTooLarge is returned when a plugin streams more than the caller's
// bound allows; the stream is abandoned at once rather than buffered.
var ErrOutputTooLarge = errors.New("plugin output exceeds its bound")

// Invoke streams call's input to the plugin and collects the answer, taking
// at most maxOutput bytes of output (0 means plugin.MaxPayloadBytes).
func (c *Client) Invoke(ctx context.Context, call *plugin.Call, maxOutput int64) (*plugin.Result, error) {
	// The stream carries no deadline of its own: the call's deadline
	// travels in its invocation context (Context.Deadline), where the
	// plugin reads it. Were gRPC to propagate ctx's deadline too, a timer
	// in the plugin would race the host's, and a call that never answered
	// would end as the plugin's own failure or as the host's timeout by
	// chance. The stream is cancelled when ctx ends, so the host decides.
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	stream, err := c.rpc.Invoke(sctx, grpc.ForceCodecV2(wire.Codec{}))
	if err != nil {
		return nil, err
	}
	if err := sendCall(stream, call); err != nil {
		return nil, err
	}
	return receiveResult(stream, maxOutput)
}

// Cancel asks the plugin to cancel one in-flight call.
func (c *Client) Cancel(ctx context.Context, callID string) (string, error) {
	resp, err := c.rpc.Cancel(ctx, &pluginv1.CancelRequest{CallId: callID})
	if err != nil {
		return "", err
	}
	return resp.GetState(), nil
}

// receiveResult collects a streamed answer: output frames, then the result.
// The wire codec copies each frame's chunk once, from gRPC's buffers into
// the answer's output, which is allocated once at the size the plugin
// announces on its first frame (an older plugin announces nothing, and its
// output grows as it arrives).
func receiveResult(stream grpc.ClientStream, maxOutput int64) (*plugin.Result, error) {
	if maxOutput <= 0 || maxOutput > plugin.MaxPayloadBytes {
		maxOutput = plugin.MaxPayloadBytes
	}
	a := wire.Answer{Limit: maxOutput}
	for {
		err := stream.RecvMsg(&a)
		if errors.Is(err, io.EOF) {
			return nil, errors.New("plugin closed the stream without a result")
		}
		if err != nil {
			return nil, err
		}
		if a.Over || a.Announced > maxOutput {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrOutputTooLarge, maxOutput)
		}
		if r := a.Result; r != nil {
			if r.GetOutputSize() != int64(len(a.Output)) || a.Announced != 0 && a.Announced != r.GetOutputSize() {
				return nil, fmt.Errorf("plugin announced %d output bytes and sent %d", r.GetOutputSize(), len(a.Output))
			}
			return resultFromProto(r, a.Output), nil
		}
	}
}

func resultFromProto(r *pluginv1.InvokeResult, output []byte) *plugin.Result {
	return &plugin.Result{
		Status:        r.GetStatus(),
		Code:          errcode.Code(r.GetCode()),
		Message:       r.GetMessage(),
		Output:        output,
		Evidence:      r.GetEvidence(),
		DiscardWorker: r.GetDiscardWorker(),
	}
}

// sendCall streams a call: start with the first chunk, then the rest, each
// at most plugin.MaxChunkBytes.
func sendCall(stream pluginv1.Capability_InvokeClient, call *plugin.Call) error {
	start := &pluginv1.InvokeRequest{Start: &pluginv1.InvokeStart{
		Capability: call.Capability,
		Context:    contextToProto(&call.Context),
		InputSize:  int64(len(call.Input)),
	}}
	in := call.Input
	first := min(len(in), plugin.MaxChunkBytes)
	start.InputChunk = in[:first]
	start.InputEnd = first == len(in)
	if err := stream.Send(start); err != nil {
		return streamEnded(stream, err)
	}
	for off := first; off < len(in); off += plugin.MaxChunkBytes {
		end := min(off+plugin.MaxChunkBytes, len(in))
		if err := stream.Send(&pluginv1.InvokeRequest{InputChunk: in[off:end], InputEnd: end == len(in)}); err != nil {
			return streamEnded(stream, err)
		}
	}
	return stream.CloseSend()
}

// streamEnded turns a Send's io.EOF, which only says the server already
// ended the stream, into the status it ended it with (Unimplemented from a
// plugin without an optional RPC, ResourceExhausted for an input over the
// ceiling), which gRPC hands to the next Recv.
func streamEnded(stream pluginv1.Capability_InvokeClient, err error) error {
	if !errors.Is(err, io.EOF) {
		return err
	}
	for {
		if _, rerr := stream.Recv(); rerr != nil {
			if errors.Is(rerr, io.EOF) {
				return errors.New("plugin closed the stream before taking the whole input")
			}
			return rerr
		}
	}
}
