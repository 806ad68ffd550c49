// Package preset keeps saved authority presets in the runx home: a person
// gives authority ahead of time, for the workspaces a preset lists, and a run
// applies one only when it names it (--authority <name>) in a listed
// workspace. Nothing applies a preset unnamed.
package preset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/boundedre"
	"github.com/runxhq/runx/sdk/errcode"
)

// Schema names a saved preset.
const Schema = "runx.authority_preset.v1"

// Preset is one saved authority.
type Preset struct {
	Schema     string          `json:"schema"`
	Name       string          `json:"name"`
	Authority  json.RawMessage `json:"authority"`
	Digest     string          `json:"digest"`
	Workspaces []string        `json:"workspaces"`
}

var presetName = boundedre.MustCompile(`^[a-z0-9][a-z0-9._-]*$`, 1, 64)

// WorkspaceID names a workspace by the digest of its resolved path.
func WorkspaceID(workspace string) (string, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(real))
	return "ws_" + hex.EncodeToString(sum[:12]), nil
}

func dir(home string) string { return filepath.Join(home, "authority") }

func path(home, name string) (string, error) {
	if !presetName.MatchString(name) {
		return "", contract.Errorf(errcode.AuthorityPresetNameInvalid, "a preset name is lowercase letters, digits, '.', '-' and '_' (at most 64)")
	}
	return filepath.Join(dir(home), name+".json"), nil
}

// Save validates raw as an authority and keeps it under name for the given
// workspaces (replacing a preset of that name).
func Save(home, name string, raw []byte, workspaces []string) (*Preset, error) {
	p, err := path(home, name)
	if err != nil {
		return nil, err
	}
	a, err := authority.Parse(raw)
	if err != nil {
		return nil, err
	}
	digest, err := a.Digest()
	if err != nil {
		return nil, err
	}
	sort.Strings(workspaces)
	pr := &Preset{Schema: Schema, Name: name, Authority: json.RawMessage(raw), Digest: digest, Workspaces: slices.Compact(workspaces)}
	body, err := json.MarshalIndent(pr, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir(home), 0o700); err != nil {
		return nil, err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(body, '\n'), 0o600); err != nil {
		return nil, err
	}
	return pr, os.Rename(tmp, p)
}

// Show reads one preset.
func Show(home, name string) (*Preset, error) {
	p, err := path(home, name)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, contract.Errorf(errcode.AuthorityPresetNotFound, "no authority preset %q (runx authority list shows them)", name)
	}
	if err != nil {
		return nil, err
	}
	var pr Preset
	if err := json.Unmarshal(raw, &pr); err != nil || pr.Schema != Schema {
		return nil, contract.Errorf(errcode.AuthorityPresetInvalid, "authority preset %q is not a %s document", name, Schema)
	}
	return &pr, nil
}

// List reads every preset, by name.
func List(home string) ([]*Preset, error) {
	entries, err := os.ReadDir(dir(home))
	if errors.Is(err, fs.ErrNotExist) {
		return []*Preset{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []*Preset{}
	for _, e := range entries {
		name, ok := trimJSON(e.Name())
		if !ok {
			continue
		}
		pr, err := Show(home, name)
		if err != nil {
			return nil, err
		}
		out = append(out, pr)
	}
	return out, nil
}

func trimJSON(n string) (string, bool) {
	if filepath.Ext(n) != ".json" {
		return "", false
	}
	return n[:len(n)-len(".json")], true
}

// Remove deletes a preset.
func Remove(home, name string) error {
	if _, err := Show(home, name); err != nil {
		return err
	}
	p, _ := path(home, name)
	return os.Remove(p)
}

// Resolve returns a preset's authority for a run in workspace, refusing a
// preset that does not list it.
func Resolve(home, name, workspace string) (json.RawMessage, error) {
	pr, err := Show(home, name)
	if err != nil {
		return nil, err
	}
	id, err := WorkspaceID(workspace)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(pr.Workspaces, id) {
		return nil, contract.Errorf(errcode.AuthorityPresetNotForWorkspace, "authority preset %q does not list this workspace (%s); save it here to use it here", name, id)
	}
	return pr.Authority, nil
}
