package run

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/native"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// definer is the part of the plugin host that reads a capability's
// description (the catalog's, for a first-party plugin, without starting it).
type definer interface {
	Definition(ctx context.Context, capability string) (*sdk.Definition, host.PluginRef, error)
}

// reachGate holds every path a capability's description names in a call's
// input (its path_inputs: fs.read's path, fs.list's, a command's cwd, each
// file of a bundle) to the step's reach before anything is dispatched. The
// kernel owns reach, so every capability that names a path is held to the
// same rule, whichever plugin serves it: under reach workspace a path must
// lie in the workspace, under reach inputs in the workspace or a root the
// run's inputs name, and under either nothing inside .git or .runx, or a
// secret, is reached; nor, at any reach, runx's own places (protectedRoots),
// wherever they lie and whichever way the path names them. A plugin checks
// again where it opens the file, told the same places in its call context.
func (rc *runCtx) reachGate(ctx context.Context, step *pkg.Step, inputs map[string]any) *contract.ErrorBody {
	if step.Kind != pkg.KindTool || step.Tool == nil || step.Tool.Capability == "" || native.Lookup(step.Tool.Capability) != nil {
		return nil
	}
	d, ok := rc.e.Host.(definer)
	if !ok {
		return nil
	}
	def, _, err := d.Definition(ctx, step.Tool.Capability)
	if err != nil || def == nil || len(def.PathInputs) == 0 {
		return nil // an unknown capability is refused by its dispatch, with its own code
	}
	ws := resolvedPath(rc.e.Workspace)
	var roots []string
	for _, r := range rc.reachRoots() {
		roots = append(roots, filepath.ToSlash(resolvedPath(r)))
	}
	eff := gate.Effective(rc.Base, rc.method, step)
	protected := rc.e.protectedRoots()
	for _, pi := range def.PathInputs {
		for _, v := range pointerValues(inputs, pi.Pointer) {
			s, ok := v.(string)
			if !ok {
				continue // the input schema check refuses a path that is not a string
			}
			p := filepath.FromSlash(s)
			if !filepath.IsAbs(p) {
				p = filepath.Join(rc.e.Workspace, p)
			}
			if root := protectedRoot(protected, p); root != "" {
				return &contract.ErrorBody{Code: errcode.ReachProtectedDir, Message: "step " + step.ID + ": " + step.Tool.Capability + " input " + pi.Pointer + ": path " + strconv.Quote(s) + " is inside " + root + ", where runx keeps its own state; no tool reaches it, at any reach"}
			}
			p = resolvedPath(p)
			if err := eff.CheckPath(filepath.ToSlash(ws), roots, filepath.ToSlash(p)); err != nil {
				body := contract.BodyOf(err)
				body.Message = "step " + step.ID + ": " + step.Tool.Capability + " input " + pi.Pointer + ": " + body.Message
				return body
			}
		}
	}
	return nil
}

// protectedRoots are runx's own places, out of every tool's reach at any
// reach and whatever the workspace holds: its home (keys, secrets,
// plugins), the project's state directory (state.sqlite, journals,
// artifacts) and the receipt store. Each is named as configured and as its
// symlinks resolve, so a path reaching one by either form is caught.
func (e *engine) protectedRoots() []string {
	e.protectedOnce.Do(func() { e.protected = e.findProtectedRoots() })
	return e.protected
}

// findProtectedRoots names the places protectedRoots holds, once an engine:
// every call's context carries them.
func (e *engine) findProtectedRoots() []string {
	var roots []string
	for _, dir := range []string{e.HomeDir, e.CredentialHome, e.ProjectDir, e.storeDir()} {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		for _, form := range []string{filepath.Clean(dir), resolvedPath(dir)} {
			if !slices.Contains(roots, form) {
				roots = append(roots, form)
			}
		}
	}
	return roots
}

func (e *engine) storeDir() string {
	if e.Store == nil {
		return ""
	}
	return e.Store.Dir()
}

// protectedRoot is the protected root p lies in, as named or with its
// symlinks resolved (a dangling link followed to where it would land), or "".
func protectedRoot(roots []string, p string) string {
	lexical := filepath.Clean(p)
	real, err := pathpolicy.RealPath(lexical)
	if err != nil {
		real = resolvedPath(lexical) // a link loop: judge what resolves
	}
	for _, r := range roots {
		if pathpolicy.Within(r, lexical) || pathpolicy.Within(r, real) {
			return r
		}
	}
	return ""
}

// resolvedPath is p cleaned, with the symlinks of its longest existing
// prefix resolved, so a link cannot carry a path out of its reach unseen.
func resolvedPath(p string) string {
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

// pointerValues are the values a JSON pointer names in v; a "*" token names
// every element of an array (or every value of an object) at that place.
func pointerValues(v any, pointer string) []any {
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
