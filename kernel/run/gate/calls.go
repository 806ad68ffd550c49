package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Calls are a run's capability calls as the gates hold them and as each
// call is told of its run: the run, where it runs (the workspace, its
// package's directory, the project's), whose run it is (Actor), runx's own
// places, out of every tool's reach at any reach (Protected), and the
// run's inputs, whose directories a tool may reach under reach inputs.
type Calls struct {
	RunID      string
	Workspace  string
	PackageDir string
	ProjectDir string
	Actor      string
	Protected  []string
	Inputs     map[string]any
}

// Context is what one step's capability call at local is told about the
// run: its place, the step's reach and, under reach inputs, the roots the
// run's inputs name; binding (nil: the default one), creds and now as the
// call is made.
func (c Calls) Context(local string, reach authority.Reach, binding json.RawMessage, creds map[string]string, now time.Time) sdk.Context {
	if binding == nil {
		binding = c.Binding()
	}
	out := sdk.Context{
		RunID:         c.RunID,
		StepAddress:   local,
		CallID:        c.RunID + "#" + local + "@1",
		Attempt:       1,
		WorkspaceRoot: c.Workspace,
		PackageRoot:   c.PackageDir,
		Reach:         "inputs",
		Binding:       binding,
		// At any reach, no path of the call reaches runx's own places.
		ProtectedRoots: c.Protected,
		Clock:          now,
		Credentials:    creds,
	}
	if reach == authority.ReachWorkspace {
		out.Reach = "workspace"
	} else {
		out.ReachRoots = c.Roots()
	}
	return out
}

// Binding is what a call is told beyond its input when it is bound to
// nothing else: the project directory, where a plugin journals its
// changes, and whose run it is.
func (c Calls) Binding() json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"project_dir": c.ProjectDir, "actor": c.Actor})
	return raw
}

// Roots are the directories the run's inputs name: under reach inputs
// they are where tools may go.
func (c Calls) Roots() []string {
	var roots []string
	for _, v := range c.Inputs {
		s, ok := v.(string)
		if !ok || s == "" || strings.ContainsRune(s, '\n') {
			continue
		}
		p := s
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.Workspace, p)
		}
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			roots = append(roots, filepath.Clean(p))
		}
	}
	sort.Strings(roots)
	return roots
}

// Reach holds every path a capability's description def names in a call's
// input (at: the run's calls, their workspace, roots and runx's own places) (its path_inputs: fs.read's path, fs.list's, a command's cwd, each
// file of a bundle) to the reach eff of the step before anything is
// dispatched. The kernel owns reach, so every capability that names a path
// is held to the same rule, whichever plugin serves it: under reach
// workspace a path must lie in the workspace, under reach inputs in the
// workspace or a root the run's inputs name, and under either nothing
// inside .git or .runx, or a secret, is reached; nor, at any reach, runx's
// own places, wherever they lie and whichever way the path names them. A
// plugin checks again where it opens the file, told the same places in its
// call context.
func Reach(step *pkg.Step, def *sdk.Definition, inputs map[string]any, eff authority.Effective, at Calls) *contract.ErrorBody {
	ws := ResolvedPath(at.Workspace)
	var roots []string
	for _, r := range at.Roots() {
		roots = append(roots, filepath.ToSlash(ResolvedPath(r)))
	}
	for _, pi := range def.PathInputs {
		for _, v := range PointerValues(inputs, pi.Pointer) {
			s, ok := v.(string)
			if !ok {
				continue // the input schema check refuses a path that is not a string
			}
			p := filepath.FromSlash(s)
			if !filepath.IsAbs(p) {
				p = filepath.Join(at.Workspace, p)
			}
			if root := ProtectedRoot(at.Protected, p); root != "" {
				return &contract.ErrorBody{Code: errcode.ReachProtectedDir, Message: "step " + step.ID + ": " + step.Tool.Capability + " input " + pi.Pointer + ": path " + strconv.Quote(s) + " is inside " + root + ", where runx keeps its own state; no tool reaches it, at any reach"}
			}
			p = ResolvedPath(p)
			if err := eff.CheckPath(filepath.ToSlash(ws), roots, filepath.ToSlash(p)); err != nil {
				body := contract.BodyOf(err)
				body.Message = "step " + step.ID + ": " + step.Tool.Capability + " input " + pi.Pointer + ": " + body.Message
				return body
			}
		}
	}
	return nil
}

// ProtectedRoot is the protected root p lies in, as named or with its
// symlinks resolved (a dangling link followed to where it would land), or "".
func ProtectedRoot(roots []string, p string) string {
	lexical := filepath.Clean(p)
	real, err := pathpolicy.RealPath(lexical)
	if err != nil {
		real = ResolvedPath(lexical) // a link loop: judge what resolves
	}
	for _, r := range roots {
		if pathpolicy.Within(r, lexical) || pathpolicy.Within(r, real) {
			return r
		}
	}
	return ""
}

// ResolvedPath is p cleaned, with the symlinks of its longest existing
// prefix resolved, so a link cannot carry a path out of its reach unseen.
func ResolvedPath(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for cur := p; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// PointerValues are the values a JSON pointer names in v; a "*" token names
// every element of an array (or every value of an object) at that place.
func PointerValues(v any, pointer string) []any {
	if pointer == "" {
		return []any{v}
	}
	tokens := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	cur := []any{v}
	for _, raw := range tokens {
		tok := strings.ReplaceAll(strings.ReplaceAll(raw, "~1", "/"), "~0", "~")
		var next []any
		for _, c := range cur {
			switch node := c.(type) {
			case map[string]any:
				if tok == "*" {
					for _, x := range node {
						next = append(next, x)
					}
				} else if x, ok := node[tok]; ok {
					next = append(next, x)
				}
			case []any:
				if tok == "*" {
					next = append(next, node...)
				} else if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(node) {
					next = append(next, node[i])
				}
			}
		}
		cur = next
	}
	return cur
}
