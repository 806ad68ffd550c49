package pkg

import (
	"slices"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// maxScriptCalls is the kernel's ceiling on the calls one script step makes;
// the receipt-tree bound (30,002) is derived from it.
const maxScriptCalls = 10_000

// decodeTool reads `tool:` as a capability id or one inline module or command.
func decodeTool(d decoder, e *entry, label string) (StepKind, *ToolStep, error) {
	if e.value.kind == scalarNode {
		id, err := d.str(e, label+" tool")
		if err != nil {
			return "", nil, err
		}
		if !isCapabilityID(id) {
			return "", nil, d.fail(e.value.pos, "%s tool %q is not a capability id (like fs.read or store/events.append)", label, id)
		}
		return KindTool, &ToolStep{Capability: id}, nil
	}
	f, err := d.object(e.value, label+" tool", "module", "requires", "environment", "command", "args", "cwd", "input_mode")
	if err != nil {
		return "", nil, err
	}
	switch {
	case f.has("module") && f.has("command"):
		return "", nil, d.fail(f.get("command").keyPos, "%s tool has both module and command; declare exactly one", label)
	case f.has("module"):
		m, err := decodeModuleTool(d, f, label)
		return KindModule, &ToolStep{Module: m}, err
	case f.has("command"):
		c, err := decodeCommandTool(d, f, label)
		return KindCommand, &ToolStep{Command: c}, err
	}
	return "", nil, d.fail(e.value.pos, "%s tool must name a capability or declare a module or a command", label)
}

func decodeModuleTool(d decoder, f fields, label string) (*ModuleTool, error) {
	for _, k := range []string{"args", "cwd", "input_mode"} {
		if e := f.get(k); e != nil {
			return nil, d.fail(e.keyPos, "%s: %s applies to command tools, not modules", label, k)
		}
	}
	m := &ModuleTool{}
	var err error
	if m.Module, err = decodeModulePath(d, f.get("module"), label+" module"); err != nil {
		return nil, err
	}
	if e := f.get("requires"); e != nil {
		if m.Requires, err = d.strList(e, label+" requires"); err != nil {
			return nil, err
		}
	}
	if e := f.get("environment"); e != nil {
		if m.Environment, err = d.stringMap(e, label+" environment"); err != nil {
			return nil, err
		}
		for i := range e.value.entries {
			if k := e.value.entries[i].key; !isEnvName(k) {
				return nil, d.fail(e.value.entries[i].keyPos, "%s environment name %q is not a valid variable name", label, k)
			}
		}
	}
	return m, nil
}

func decodeModulePath(d decoder, e *entry, what string) (string, error) {
	p, err := d.str(e, what)
	if err != nil {
		return "", err
	}
	clean := cleanModulePath(p)
	if clean == "" {
		return "", d.fail(e.value.pos, "%s %q must be a package-relative .js or .mjs path that stays inside the package", what, p)
	}
	return clean, nil
}

func decodeCommandTool(d decoder, f fields, label string) (*CommandTool, error) {
	if e := f.get("requires"); e != nil {
		return nil, d.fail(e.keyPos, "%s: requires applies to modules, not command tools", label)
	}
	c := &CommandTool{InputMode: "stdin"}
	var err error
	if c.Command, err = d.nonEmpty(f, "command", label+" command"); err != nil {
		return nil, err
	}
	if e := f.get("args"); e != nil {
		if e.value.kind != seqNode {
			return nil, d.fail(e.value.pos, "%s args must be a list of strings, not %s", label, e.value.describe())
		}
		for _, it := range e.value.items {
			s, ok := it.value.(string)
			if it.kind != scalarNode || !ok {
				return nil, d.fail(it.pos, "%s args must be strings, exactly as the process receives them; quote this one", label)
			}
			c.Args = append(c.Args, s)
		}
	}
	if c.Cwd, err = d.text(f, "cwd", label+" cwd"); err != nil {
		return nil, err
	}
	if mode, err := d.oneOf(f, "input_mode", label+" input_mode", "stdin", "env"); err != nil {
		return nil, err
	} else if mode != "" {
		c.InputMode = mode
	}
	if e := f.get("environment"); e != nil {
		ef, err := d.object(e.value, label+" environment", "required", "optional")
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, k := range []string{"required", "optional"} {
			le := ef.get(k)
			if le == nil {
				continue
			}
			names, err := d.strList(le, label+" environment "+k)
			if err != nil {
				return nil, err
			}
			for i, name := range names {
				if !isEnvName(name) || seen[name] {
					return nil, d.fail(le.value.items[i].pos, "%s environment %s: %q is not a valid variable name or is listed twice", label, k, name)
				}
				seen[name] = true
			}
			if k == "required" {
				c.Environment.Required = names
			} else {
				c.Environment.Optional = names
			}
		}
	}
	return c, nil
}

func decodeOperation(d decoder, e *entry, f fields, label string, sc refScope) (*OperationStep, error) {
	ref, err := d.str(e, label+" operation")
	if err != nil {
		return nil, err
	}
	op := &OperationStep{Ref: ref}
	var ok bool
	if op.Connector, op.Operation, ok = splitOperationRef(ref); !ok {
		return nil, d.fail(e.value.pos, "%s operation %q must be <connector>/<operation>", label, ref)
	}
	if ke := f.get("idempotency_key"); ke != nil {
		if op.IdempotencyKey, err = d.str(ke, label+" idempotency_key"); err != nil {
			return nil, err
		}
		if strings.TrimSpace(op.IdempotencyKey) == "" {
			return nil, d.fail(ke.value.pos, "%s idempotency_key must not be empty", label)
		}
		if err := d.walkRefs(ke.value, sc); err != nil {
			return nil, err
		}
	}
	if ae := f.get("approval"); ae != nil {
		af, err := d.object(ae.value, label+" approval", "reason", "type")
		if err != nil {
			return nil, err
		}
		op.Approval = &Approval{}
		if op.Approval.Reason, err = d.nonEmpty(af, "reason", label+" approval reason"); err != nil {
			return nil, err
		}
		if op.Approval.Reason == "" {
			return nil, d.fail(ae.value.pos, "%s approval needs a reason a person reads before deciding", label)
		}
		if op.Approval.Type, err = d.nonEmpty(af, "type", label+" approval type"); err != nil {
			return nil, err
		}
	}
	// Nothing holds an operation's result to a required list yet: refused.
	if err := d.unsupported(f, errcode.StepFieldUnsupported, label+" ", "result"); err != nil {
		return nil, err
	}
	return op, nil
}

func decodeSkillRef(d decoder, e *entry, label string) (string, error) {
	ref, err := d.str(e, label+" skill")
	if err != nil {
		return "", err
	}
	path, method := SplitRef(ref)
	if path == "" || hasSpace(ref) || (strings.Contains(ref, "#") && !isName(method)) {
		return "", d.fail(e.value.pos, "%s skill %q must be <ref>[#method]: ./path, runx/<name> or registry:<publisher>/<name>[@version]", label, ref)
	}
	return ref, nil
}

func decodeAgent(d decoder, e *entry, label string) (*AgentStep, error) {
	f, err := d.object(e.value, label+" agent", "task", "calls", "ask", "context")
	if err != nil {
		return nil, err
	}
	a := &AgentStep{}
	if a.Task, err = d.nonEmpty(f, "task", label+" agent task"); err != nil {
		return nil, err
	}
	if a.Task == "" {
		return nil, d.fail(e.value.pos, "%s agent needs a task: what the turn must do", label)
	}
	if ce := f.get("calls"); ce != nil {
		if a.Calls, err = decodeCalls(d, ce, label+" agent calls", true); err != nil {
			return nil, err
		}
	}
	if ae := f.get("ask"); ae != nil {
		if a.Ask, err = d.boolean(ae, label+" agent ask"); err != nil {
			return nil, err
		}
	}
	if ce := f.get("context"); ce != nil {
		if a.ContextSkills, err = decodeContext(d, ce, label+" agent context"); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// maxContextSkills bounds the context skills one turn reads.
const maxContextSkills = 8

// decodeContext reads context.skills: package-relative paths (./, ../) and
// registry: refs, each once; what each resolves to is preparation's.
func decodeContext(d decoder, e *entry, what string) ([]string, error) {
	f, err := d.object(e.value, what, "skills")
	if err != nil || f.get("skills") == nil {
		return nil, err
	}
	refs, err := d.strList(f.get("skills"), what+" skills")
	for i, ref := range refs {
		pos := f.get("skills").value.items[i].pos
		local := strings.HasPrefix(ref, "./") || strings.HasPrefix(ref, "../")
		if !local && !strings.HasPrefix(ref, "registry:") || hasSpace(ref) || strings.Contains(ref, "#") || slices.Contains(refs[:i], ref) {
			return nil, d.fail(pos, "%s skills: %q must be a ./ or ../ path or registry:<publisher>/<name>[@version], each once", what, ref)
		}
		if i == maxContextSkills {
			return nil, d.fail(pos, "%s skills: at most %d context skills a turn", what, maxContextSkills)
		}
	}
	return refs, err
}

// decodeCalls reads what a turn or script may call. Each list grants only
// what it names; an absent list grants nothing.
func decodeCalls(d decoder, e *entry, what string, turn bool) (*Calls, error) {
	f, err := d.object(e.value, what, "tools", "operations", "skills", "load")
	if err != nil {
		return nil, err
	}
	if e := f.get("load"); e != nil && !turn { // only a turn loads packages
		return nil, refuseAt(d.file, e.keyPos, errcode.StepFieldUnsupported, "%s load is not supported by this runx; remove it", what)
	}
	c := &Calls{}
	lists := map[string]*[]string{"tools": &c.Tools, "operations": &c.Operations, "skills": &c.Skills, "load": &c.Load}
	for _, k := range []string{"tools", "operations", "skills", "load"} {
		le := f.get(k)
		if le == nil {
			continue
		}
		if *lists[k], err = d.strList(le, what+" "+k); err != nil {
			return nil, err
		}
	}
	for i, rule := range c.Load {
		pub, name, ok := strings.Cut(rule, "/")
		if !ok || !loadSegment(pub) || !loadSegment(name) {
			return nil, d.fail(f.get("load").value.items[i].pos, "%s load: %q must be <publisher>/<name>, * standing for one whole segment (acme/*)", what, rule)
		}
	}
	for i, op := range c.Operations {
		if _, _, ok := splitOperationRef(op); !ok {
			return nil, d.fail(f.get("operations").value.items[i].pos, "%s operations: %q must be <connector>/<operation>", what, op)
		}
	}
	return c, nil
}

func decodeScript(d decoder, e *entry, label string) (*ScriptStep, error) {
	f, err := d.object(e.value, label+" script", "module", "max_calls", "concurrency", "calls")
	if err != nil {
		return nil, err
	}
	s := &ScriptStep{}
	me := f.get("module")
	if me == nil {
		return nil, d.fail(e.value.pos, "%s script needs a module", label)
	}
	if s.Module, err = decodeModulePath(d, me, label+" script module"); err != nil {
		return nil, err
	}
	if ce := f.get("max_calls"); ce != nil {
		if s.MaxCalls, err = d.positive(ce, label+" script max_calls", maxScriptCalls); err != nil {
			return nil, err
		}
	}
	if ce := f.get("concurrency"); ce != nil {
		if s.Concurrency, err = d.positive(ce, label+" script concurrency", maxCount); err != nil {
			return nil, err
		}
	}
	if ce := f.get("calls"); ce != nil {
		if s.Calls, err = decodeCalls(d, ce, label+" script calls", false); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// loadSegment is one segment of a load rule: * or a registry name.
func loadSegment(s string) bool {
	return s == "*" || s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == "" && s[0] != '-'
}
