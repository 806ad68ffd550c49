package run

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Module step ceilings, named for the capability they constrain.
const (
	ModuleMaxSourceBytes = 4 << 20
	ModuleDefaultTimeout = 2 * time.Second
	ModuleMaxTimeout     = 30 * time.Second
	moduleHostGrace      = 3 * time.Second
	moduleMaxOutputBytes = 4 << 20
	// ModuleMaxInputBytes bounds the input document a module step sends,
	// the worker's own ceiling: an input past it is refused before it is
	// sent, where sending 64 MiB took 16 s and ended in the worker's
	// timeout.
	ModuleMaxInputBytes = 4 << 20
)

// moduleFiles is a package's JavaScript, read once per run and sent to the
// worker in memory: the worker never sees a path.
type moduleFiles struct {
	pkg   *pkg.Package
	once  sync.Once
	files map[string]string
	err   error
}

func (m *moduleFiles) load() (map[string]string, error) {
	m.once.Do(func() { m.files, m.err = readModuleFiles(m.pkg) })
	return m.files, m.err
}

// moduleSourcesKey names readModuleFiles' value among what is derived
// from a package's files.
type moduleSourcesKey struct{}

// readModuleFiles returns the package's module sources by relative path.
// They are remembered while nothing in the package changed, so a server
// does not gather the same sources again on every call, and a package
// that Load checked gets the sources of the files it checked, without a
// second check of every stamp (pkg.Package.DeriveFromFiles); each caller
// gets its own map.
func readModuleFiles(p *pkg.Package) (map[string]string, error) {
	v, err := p.DeriveFromFiles(moduleSourcesKey{}, func(entries []pkg.TreeEntry) (any, error) {
		return gatherModuleFiles(entries)
	})
	if err != nil {
		return nil, err
	}
	return maps.Clone(v.(map[string]string)), nil
}

func gatherModuleFiles(entries []pkg.TreeEntry) (map[string]string, error) {
	files := map[string]string{}
	total := 0
	for _, e := range entries {
		if underNodeModules(e.Rel) {
			continue
		}
		name := path.Base(e.Rel)
		if e.Type.IsDir() || !strings.HasSuffix(name, ".js") && !strings.HasSuffix(name, ".mjs") {
			continue
		}
		if e.Type&fs.ModeSymlink != 0 {
			return nil, contract.Errorf(errcode.ModuleSymlinkRefused, "module file %s is a symlink; a package's JavaScript must be regular files inside it", e.Rel)
		}
		if !e.Type.IsRegular() {
			continue
		}
		raw, err := pkg.ReadFileCached(e.Path, int64(ModuleMaxSourceBytes-total))
		if errors.Is(err, pkg.ErrFileOverLimit) {
			return nil, contract.Errorf(errcode.ModuleSourceTooLarge, "the package's JavaScript exceeds the %d byte module source ceiling (at %s)", ModuleMaxSourceBytes, e.Rel)
		}
		if err != nil {
			return nil, err
		}
		total += len(raw)
		if total > ModuleMaxSourceBytes {
			return nil, contract.Errorf(errcode.ModuleSourceTooLarge, "the package's JavaScript exceeds the %d byte module source ceiling", ModuleMaxSourceBytes)
		}
		files[e.Rel] = string(raw)
	}
	return files, nil
}

// underNodeModules reports whether rel lies in a node_modules directory
// (or is one), which a package's module sources never come from.
func underNodeModules(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if seg == "node_modules" {
			return true
		}
	}
	return false
}

func (rc *runCtx) moduleDispatch(ctx context.Context, step *pkg.Step, local string, inputs map[string]any) (*dispatch, error) {
	capability, err := rc.e.roleCapability(ctx, sdk.RoleModule)
	if err != nil {
		return nil, err
	}
	timeout := ModuleDefaultTimeout
	if step.TimeoutSeconds != 0 {
		timeout = time.Duration(step.TimeoutSeconds) * time.Second
		if timeout < time.Second || timeout > ModuleMaxTimeout {
			return nil, contract.Errorf(errcode.ModuleTimeoutInvalid, "step %s: a module's timeout_seconds must be 1 to 30", step.ID)
		}
	}
	// Measured before it is written: an input over the ceiling is refused
	// without a copy of it.
	size, err := canon.Length(inputs)
	if err != nil {
		return nil, contract.Errorf(errcode.StepInputInvalid, "step %s: %v", step.ID, err)
	}
	if size > ModuleMaxInputBytes {
		return nil, contract.Errorf(errcode.ModuleInputTooLarge, "step %s: its input is %d bytes, over the %d byte ceiling on a module's input (ModuleMaxInputBytes); pass large content as an artifact", step.ID, size, ModuleMaxInputBytes)
	}
	input, err := canon.Canonical(inputs)
	if err != nil {
		return nil, contract.Errorf(errcode.StepInputInvalid, "step %s: %v", step.ID, err)
	}
	files, err := rc.modules.load()
	if err != nil {
		return nil, err
	}
	env := step.Tool.Module.Environment
	if env == nil {
		env = map[string]string{}
	}
	return &dispatch{
		capability: capability,
		execution:  execModule,
		input: map[string]any{
			"entry":       step.Tool.Module.Module,
			"files":       files,
			"input":       json.RawMessage(input),
			"environment": env,
			"timeout_ms":  timeout.Milliseconds(),
		},
		timeout:   timeout + moduleHostGrace,
		maxOutput: moduleMaxOutputBytes,
		interpret: decodeOutput,
	}, nil
}
