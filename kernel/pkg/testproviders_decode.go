package pkg

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// decodeTestProviders reads providers: processes, http and mcp are
// carried out; hosted is refused (this runx has no hosted operations for
// it to stand in for), so a test that declares it fails at load instead of
// passing without it.
func decodeTestProviders(d decoder, e *entry) (*TestProviders, error) {
	f, err := d.object(e.value, "providers", "http", "mcp", "processes", "hosted")
	if err != nil {
		return nil, err
	}
	if err := d.unsupported(f, errcode.TestFieldUnsupported, "providers.", "hosted"); err != nil {
		return nil, err
	}
	p := &TestProviders{}
	if he := f.get("http"); he != nil {
		if p.HTTP, err = decodeTestHTTP(d, he); err != nil {
			return nil, err
		}
	}
	if me := f.get("mcp"); me != nil {
		if p.MCP, err = decodeTestMCP(d, me); err != nil {
			return nil, err
		}
	}
	pe := f.get("processes")
	if pe == nil {
		return p, nil
	}
	if pe.value.kind != seqNode {
		return nil, d.fail(pe.value.pos, "providers processes must be a list of {tool, args, result}")
	}
	if len(pe.value.items) > MaxTestProcesses {
		return nil, d.fail(pe.value.pos, "providers processes holds %d calls; at most %d are admitted", len(pe.value.items), MaxTestProcesses)
	}
	seen := map[string]bool{}
	for i, n := range pe.value.items {
		label := fmt.Sprintf("providers processes %d", i+1)
		pf, err := d.object(n, label, "tool", "args", "result")
		if err != nil {
			return nil, err
		}
		proc := &TestProcess{Args: []string{}}
		if proc.Tool, err = d.nonEmpty(pf, "tool", label+" tool"); err != nil {
			return nil, err
		}
		if proc.Tool == "" {
			return nil, d.fail(n.pos, "%s needs the tool it answers for", label)
		}
		if ae := pf.get("args"); ae != nil {
			if ae.value.kind != seqNode {
				return nil, d.fail(ae.value.pos, "%s args must be a list of strings", label)
			}
			for _, it := range ae.value.items {
				s, ok := it.value.(string)
				if it.kind != scalarNode || !ok {
					return nil, d.fail(it.pos, "%s args must be a list of strings", label)
				}
				proc.Args = append(proc.Args, s)
			}
		}
		key, _ := json.Marshal(append([]string{proc.Tool}, proc.Args...))
		if len(key) > MaxTestProcessArgs {
			return nil, d.fail(n.pos, "%s arguments exceed %d bytes", label, MaxTestProcessArgs)
		}
		if seen[string(key)] {
			return nil, d.fail(n.pos, "%s repeats the tool and arguments of an earlier call; each call is answered once", label)
		}
		seen[string(key)] = true
		re := pf.get("result")
		if re == nil {
			return nil, d.fail(n.pos, "%s needs the result: the JSON object the process prints", label)
		}
		if proc.Result, err = d.rawMap(re, label+" result"); err != nil {
			return nil, err
		}
		if raw, _ := json.Marshal(proc.Result); len(raw) > MaxTestProcessResult {
			return nil, d.fail(re.value.pos, "%s result exceeds %d bytes", label, MaxTestProcessResult)
		}
		p.Processes = append(p.Processes, proc)
	}
	return p, nil
}

// ProcessKey names a process call by its tool and exact arguments.
func ProcessKey(tool string, args []string) string {
	return strings.Join(append([]string{tool}, args...), "\x00")
}
