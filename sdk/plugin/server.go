package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/proto/pluginv1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Plugin is what a plugin author implements.
type Plugin interface {
	// Info names the plugin and describes every capability it serves.
	Info() Info
	// Invoke carries out one call. It honours ctx: a cancelled read stops.
	Invoke(ctx context.Context, call *Call) *Result
}

// Canceler is optional: a plugin whose effects cannot simply be abandoned
// implements it to decide how an in-flight call settles. Without it a call
// of a capability whose effect is none or read is cancelled through its ctx,
// and any other runs to its end.
type Canceler interface {
	Cancel(callID string) string
}

// Cancel states reported by Cancel.
const (
	CancelCancelled  = "cancelled"
	CancelRunsToEnd  = "running_to_end"
	CancelUnknownRun = "unknown"
)

type server struct {
	pluginv1.UnimplementedCapabilityServer
	impl   Plugin
	info   Info
	logger hclog.Logger

	mu       sync.Mutex
	inflight map[string]inflightCall
}

type inflightCall struct {
	cancel context.CancelFunc
	effect string
}

// NewServer is the Capability service for impl, speaking protocolVersion
// (0 means ProtocolVersion). Serve registers it; sdk/plugin/plugintest
// serves it in process. A nil logger discards.
func NewServer(impl Plugin, logger hclog.Logger, protocolVersion int) pluginv1.CapabilityServer {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	if protocolVersion == 0 {
		protocolVersion = ProtocolVersion
	}
	info := impl.Info()
	info.SDKVersion = Version
	info.ProtocolVersion = protocolVersion
	return &server{impl: impl, info: info, logger: logger, inflight: map[string]inflightCall{}}
}

func (s *server) Describe(context.Context, *pluginv1.DescribeRequest) (*pluginv1.DescribeResponse, error) {
	return infoToProto(&s.info), nil
}

func (s *server) effectOf(capability string) (string, bool) {
	for _, d := range s.info.Capabilities {
		if d.ID == capability {
			return d.Effect, true
		}
	}
	return "", false
}

func (s *server) Invoke(stream pluginv1.Capability_InvokeServer) error {
	call, err := receiveCall(stream)
	if err != nil {
		return err
	}
	effect, known := s.effectOf(call.Capability)
	if !known {
		return sendResult(stream, Refused(errcode.CapabilityNotFound,
			fmt.Sprintf("plugin %s serves no capability %q", s.info.Name, call.Capability)))
	}
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	if !call.Context.Deadline.IsZero() {
		var cancelDeadline context.CancelFunc
		ctx, cancelDeadline = context.WithDeadline(ctx, call.Context.Deadline)
		defer cancelDeadline()
	}
	if id := call.Context.CallID; id != "" {
		s.mu.Lock()
		s.inflight[id] = inflightCall{cancel: cancel, effect: effect}
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.inflight, id)
			s.mu.Unlock()
		}()
	}
	return sendResult(stream, s.invokeRecovered(ctx, call))
}

// invokeRecovered keeps a panic in plugin code from crossing the boundary: it
// becomes a typed failure and the kernel discards this process.
func (s *server) invokeRecovered(ctx context.Context, call *Call) *Result {
	return s.recovered(call, func() *Result { return s.impl.Invoke(ctx, call) })
}

// recovered runs one answer of plugin code, turning a panic into a typed
// failure that discards this process and a nil answer into a typed one.
func (s *server) recovered(call *Call, answer func() *Result) (res *Result) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("plugin panicked", "capability", call.Capability, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			res = Failed(errcode.PluginPanicked, fmt.Sprintf("plugin %s failed unexpectedly while running %s", s.info.Name, call.Capability))
			res.DiscardWorker = true
		}
	}()
	res = answer()
	if res == nil {
		res = Failed(errcode.PluginNoAnswer, fmt.Sprintf("plugin %s gave no answer for %s", s.info.Name, call.Capability))
	}
	return res
}

func (s *server) Cancel(_ context.Context, req *pluginv1.CancelRequest) (*pluginv1.CancelResponse, error) {
	s.mu.Lock()
	c, ok := s.inflight[req.GetCallId()]
	s.mu.Unlock()
	if !ok {
		return &pluginv1.CancelResponse{State: CancelUnknownRun}, nil
	}
	if canceler, has := s.impl.(Canceler); has {
		return &pluginv1.CancelResponse{State: canceler.Cancel(req.GetCallId())}, nil
	}
	if c.effect == EffectNone || c.effect == EffectRead {
		c.cancel()
		return &pluginv1.CancelResponse{State: CancelCancelled}, nil
	}
	return &pluginv1.CancelResponse{State: CancelRunsToEnd}, nil
}

func receiveCall(stream pluginv1.Capability_InvokeServer) (*Call, error) {
	first, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	start := first.GetStart()
	if start == nil {
		return nil, status.Error(codes.InvalidArgument, "first invoke frame must carry start")
	}
	if start.GetInputSize() > MaxPayloadBytes {
		return nil, status.Errorf(codes.ResourceExhausted, "input of %d bytes exceeds the %d byte transport ceiling", start.GetInputSize(), MaxPayloadBytes)
	}
	input := make([]byte, 0, start.GetInputSize())
	frame := first
	for {
		input = append(input, frame.GetInputChunk()...)
		if len(input) > MaxPayloadBytes {
			return nil, status.Errorf(codes.ResourceExhausted, "input exceeds the %d byte transport ceiling", MaxPayloadBytes)
		}
		if frame.GetInputEnd() {
			break
		}
		frame, err = stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil, status.Error(codes.InvalidArgument, "input ended without input_end")
		}
		if err != nil {
			return nil, err
		}
	}
	return &Call{Capability: start.GetCapability(), Context: contextFromProto(start.GetContext()), Input: input}, nil
}

func sendResult(stream pluginv1.Capability_InvokeServer, res *Result) error {
	// The last chunk travels in the frame that carries the result, so a
	// small answer is one message: each message is a write the host must
	// wake for, and on a warm call those wake-ups are most of its cost.
	// A result whose own fields could not share a frame with a full chunk
	// sends every chunk on its own, as before.
	last := 0
	if n := len(res.Output); n > 0 {
		last = (n - 1) / MaxChunkBytes * MaxChunkBytes
		if len(res.Evidence)+len(res.Message)+len(res.Code)+len(res.Status) > MaxMessageBytes-MaxChunkBytes-4096 {
			last = n
		}
	}
	// The first of several frames announces the whole size, so the host
	// receives them all into one buffer.
	for off := 0; off < last; off += MaxChunkBytes {
		frame := &pluginv1.InvokeResponse{OutputChunk: res.Output[off:min(off+MaxChunkBytes, len(res.Output))]}
		if off == 0 {
			frame.OutputSize = int64(len(res.Output))
		}
		if err := stream.Send(frame); err != nil {
			return err
		}
	}
	return stream.Send(&pluginv1.InvokeResponse{OutputChunk: res.Output[last:], Result: &pluginv1.InvokeResult{
		Status:        res.Status,
		Code:          string(res.Code),
		Message:       res.Message,
		Evidence:      res.Evidence,
		DiscardWorker: res.DiscardWorker,
		OutputSize:    int64(len(res.Output)),
	}})
}
