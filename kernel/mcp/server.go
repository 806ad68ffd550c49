package mcp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
)

// Options say what one server serves.
type Options struct {
	// Refs are the skill references served as tools (ref or ref#method).
	Refs []string
	// RunID scopes the server to one paused run's turns (runx mcp --run).
	RunID string
	// Authority is a saved preset's authority, the only authority runx mcp
	// applies; nil means none is stated.
	Authority json.RawMessage
	// Version is runx's version, given as the server's.
	Version string
}

// Server is one MCP server over one kernel: every call of the session runs
// through that kernel, so plugin workers are reused across calls.
type Server struct {
	k    *run.Kernel
	opts Options
	srv  *mcp.Server

	mu   sync.Mutex
	runs []string // the runs this session's skill calls opened, in order
	// base is the context Run serves under: a stop of the server (SIGTERM)
	// stops every call in flight as a client's cancellation stops one.
	base     context.Context
	inflight sync.WaitGroup
}

// New builds a server: each ref's methods as tools, and the turn tools.
// A ref that does not load, or two tools of one name, refuse the start.
func New(k *run.Kernel, opts Options) (*Server, error) {
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := &Server{k: k, opts: opts}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "runx", Version: version}, &mcp.ServerOptions{
		Instructions: instructions(opts),
	})
	s.srv.AddReceivingMiddleware(scrubResults(k.Taint()))
	names := map[string]string{}
	if opts.RunID != "" {
		if _, err := k.RunRecord(context.Background(), opts.RunID); err != nil {
			return nil, err
		}
		s.runs = []string{opts.RunID}
	}
	tools, err := s.skillTools()
	if err != nil {
		return nil, err
	}
	for _, t := range append(tools, s.turnTools()...) {
		if prev, dup := names[t.tool.Name]; dup {
			return nil, contract.Errorf(errcode.MCPToolNameConflict, "%s and %s would both be the tool %q; serve one of them", prev, t.source, t.tool.Name)
		}
		names[t.tool.Name] = t.source
		s.srv.AddTool(t.tool, s.guard(t.handler))
	}
	return s, nil
}

// served is one tool and where it comes from.
type served struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
	source  string
}

func instructions(opts Options) string {
	if opts.RunID != "" {
		return "runx serves the agent turns run " + opts.RunID + " waits on. turn_list shows them; turn_status reads one; turn_read reads what a locator names; turn_call makes a call the turn allows; turn_complete ends the turn with its output."
	}
	return "Each skill tool runs one runx skill method under runx's authority and returns its sealed result with a receipt id, or the run id and requests of a run that paused. Work a paused run's agent turns with the turn tools."
}

// MCP returns the go-sdk server, for a caller that connects transports itself.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves one session over t until the client disconnects or ctx ends.
// A call in flight when ctx ends is stopped as a driver is on SIGTERM (no
// further step is admitted, and what was in flight is recorded as it
// ended), and Run returns only once it has.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	s.mu.Lock()
	s.base = ctx
	s.mu.Unlock()
	err := s.srv.Run(ctx, t)
	s.inflight.Wait()
	return err
}

// guard runs a handler under a context that ends when its request is
// cancelled (notifications/cancelled) or the server stops, and counts it in
// flight so a stopping server waits for what it stopped to be recorded.
func (s *Server) guard(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.mu.Lock()
		base := s.base
		s.inflight.Add(1)
		s.mu.Unlock()
		defer s.inflight.Done()
		if base != nil {
			c, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			stop := context.AfterFunc(base, func() { cancel(context.Cause(base)) })
			defer stop()
			ctx = c
		}
		return h(ctx, req)
	}
}

// track remembers a run a skill call opened, so the turn tools serve it.
func (s *Server) track(runID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		if r == runID {
			return
		}
	}
	s.runs = append(s.runs, runID)
}

// sessionRuns are the runs the turn tools serve.
func (s *Server) sessionRuns() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.runs...)
}
