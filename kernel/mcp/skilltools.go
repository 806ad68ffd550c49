package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
)

// skillTools lists every ref's methods as tools. A ref with #method offers
// that method under the skill's name. A ref without one offers its default
// method under the skill's name and, under <skill>_<method>, each other
// method that holds an agent turn: work that only a connection like this
// one can carry, since its turns are worked over it.
func (s *Server) skillTools() ([]served, error) {
	var out []served
	for _, ref := range s.opts.Refs {
		p, m, err := s.k.LoadSkill(ref)
		if err != nil {
			return nil, err
		}
		_, named := pkg.SplitRef(ref)
		out = append(out, s.skillTool(ref, p, m, toolName(p.Name)))
		if named != "" {
			continue
		}
		for _, other := range p.Methods {
			if other != m && holdsTurn(other) {
				out = append(out, s.skillTool(ref+"#"+other.Name, p, other, toolName(p.Name, other.Name)))
			}
		}
	}
	return out, nil
}

func holdsTurn(m *pkg.Method) bool {
	for _, st := range m.Steps {
		if st.Kind == pkg.KindAgent {
			return true
		}
	}
	return false
}

func (s *Server) skillTool(ref string, p *pkg.Package, m *pkg.Method, name string) served {
	dir := p.Dir + "#" + m.Name
	return served{
		tool: &mcp.Tool{
			Name:        name,
			Title:       p.Name + "#" + m.Name,
			Description: description(p, m),
			InputSchema: InputSchema(m),
		},
		source: ref,
		handler: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return s.callSkill(ctx, req, dir, m)
		},
	}
}

// callSkill runs one method through Kernel.Skill, the path `runx skill`
// takes: the arguments are the inputs document, bound by the method's
// declarations. It never blocks on a pause: a paused run comes back at once
// with its id and requests, and its turns are served here.
func (s *Server) callSkill(ctx context.Context, req *mcp.CallToolRequest, ref string, m *pkg.Method) (*mcp.CallToolResult, error) {
	args, err := argumentsObject(req.Params.Arguments)
	if err != nil {
		return errorResult(err), nil
	}
	for _, name := range sortedNames(args) {
		if m.Input(name) == nil {
			return errorResult(contract.Errorf(errcode.InputUnknown, "argument %q is not an input of method %s; it takes %s", name, m.Name, inputList(m))), nil
		}
	}
	doc, _ := json.Marshal(args)
	ctx = s.withProgress(ctx, req)
	env, err := s.k.Skill(ctx, run.SkillRequest{Ref: ref, Inputs: pkg.InputSource{Document: doc, HasDocument: true}, Authority: s.opts.Authority})
	if err != nil {
		return errorResult(err), nil
	}
	if env.Status != contract.StatusSealed {
		s.track(env.RunID)
	}
	return envelopeResult(env), nil
}

func inputList(m *pkg.Method) string {
	if len(m.Inputs) == 0 {
		return "none"
	}
	names := make([]string, len(m.Inputs))
	for i, in := range m.Inputs {
		names[i] = in.Name
	}
	return strings.Join(names, ", ")
}

// withProgress reports a run's steps as MCP progress notifications when the
// client sent a progress token with its call.
func (s *Server) withProgress(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return ctx
	}
	var n float64
	session := req.Session
	return run.WithProgress(ctx, func(p run.Progress) {
		if p.Event == run.ProgressCallStarted {
			return // a call's deadline is the terminal's to show, not a step done
		}
		n++
		msg := fmt.Sprintf("%s %s", strings.ReplaceAll(p.Event, "_", " "), p.Address)
		if p.Status != "" {
			msg += " (" + string(p.Status) + ")"
		}
		_ = session.NotifyProgress(context.WithoutCancel(ctx), &mcp.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: msg})
	})
}
