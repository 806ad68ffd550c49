package testrun

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/kernel/run/native"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// processStandIn answers a test's process tool calls from its
// providers.processes, passing every other call to the real host. Admission,
// authority and result checks all still run in the kernel; only the
// process's start is replaced.
type processStandIn struct {
	// Invoker is the real host: every call but a process tool's goes there.
	run.Invoker
	mu   sync.Mutex
	by   map[string]*pkg.TestProcess
	used map[string]bool
}

func newProcessStandIn(next run.Invoker, procs []*pkg.TestProcess) *processStandIn {
	s := &processStandIn{Invoker: next, by: map[string]*pkg.TestProcess{}, used: map[string]bool{}}
	for _, p := range procs {
		s.by[pkg.ProcessKey(p.Tool, p.Args)] = p
	}
	return s
}

func (s *processStandIn) Invoke(ctx context.Context, call *sdk.Call, maxOutput int64) (*sdk.Result, host.PluginRef, error) {
	argv, ok := native.ProcessCallArgv(ctx, s.Invoker, call)
	if !ok {
		return s.Invoker.Invoke(ctx, call, maxOutput)
	}
	key := pkg.ProcessKey(argv[0], argv[1:])
	s.mu.Lock()
	p := s.by[key]
	if p != nil {
		s.used[key] = true
	}
	s.mu.Unlock()
	if p == nil {
		shown, _ := json.Marshal(argv)
		return &sdk.Result{Status: sdk.StatusFailed, Code: errcode.TestProcessUnmatched,
			Message: fmt.Sprintf("no providers.processes entry answers %s; the process was not started", shown)}, host.PluginRef{}, nil
	}
	stdout, err := json.Marshal(p.Result)
	if err == nil {
		var answer []byte
		if answer, err = native.ProcessAnswer(stdout); err == nil {
			return &sdk.Result{Status: sdk.StatusOK, Output: answer}, host.PluginRef{}, nil
		}
	}
	return nil, host.PluginRef{}, err
}

// unused names each declared process call the run never made.
func (s *processStandIn) unused() []string {
	var out []string
	for key, p := range s.by {
		if !s.used[key] {
			shown, _ := json.Marshal(append([]string{p.Tool}, p.Args...))
			out = append(out, fmt.Sprintf("providers.processes %s was never called", shown))
		}
	}
	sort.Strings(out)
	return out
}
