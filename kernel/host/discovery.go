package host

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runxhq/runx/sdk/boundedre"
	"github.com/runxhq/runx/sdk/errcode"
)

// Launch says how to start one plugin.
type Launch struct {
	Name string
	Path string
	Args []string
	// SHA256 pins a third-party binary; nil for the runx binary itself.
	SHA256 []byte
	// FirstParty is true for capabilities compiled into runx.
	FirstParty bool
}

// LockFileName is the pin file under the project's .runx directory.
const LockFileName = "plugins.lock"

// LockSchema names the pin file's format.
const LockSchema = "runx.plugins_lock.v1"

// Lock is the project's pin file: every third-party plugin runx will start,
// by name, with the sha256 of its binary.
type Lock struct {
	Schema  string               `json:"schema"`
	Plugins map[string]LockEntry `json:"plugins"`
}

// Names lists the pinned plugins, sorted.
func (l *Lock) Names() []string {
	names := make([]string, 0, len(l.Plugins))
	for n := range l.Plugins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LockEntry pins one plugin binary.
type LockEntry struct {
	SHA256 string `json:"sha256"`
}

var pluginName = boundedre.MustCompile(`^[a-z][a-z0-9_-]*$`, 1, 64)

// Discovery finds plugins. Third-party binaries are looked up only in the
// project's and the runx home's plugin directories, never on PATH and never
// in the current directory.
type Discovery struct {
	// Self is the runx executable, re-executed for first-party plugins.
	Self string
	// FirstParty lists the plugins compiled into Self.
	FirstParty map[string]bool
	// ProjectDir is the project's .runx directory.
	ProjectDir string
	// HomeDir is the runx home.
	HomeDir string
}

// Resolve returns how to launch the named plugin, or a typed refusal.
func (d *Discovery) Resolve(name string) (*Launch, error) {
	if d.FirstParty[name] {
		return &Launch{Name: name, Path: d.Self, Args: []string{"plugin", "serve", name}, FirstParty: true}, nil
	}
	if !pluginName.MatchString(name) {
		return nil, hostErr(errcode.PluginNotFound, nil, "no plugin named %q: plugin names are lowercase letters, digits, '-' and '_'", name)
	}
	path, err := d.binary(name)
	if err != nil {
		return nil, err
	}
	lock, err := ReadLock(d.ProjectDir)
	if err != nil {
		return nil, err
	}
	entry, ok := lock.Plugins[name]
	if !ok {
		return nil, hostErr(errcode.PluginUnpinned, nil, "plugin %q at %s is not pinned in .runx/%s: pin its sha256 before runx will start it (runx plugin pin %s)", name, path, LockFileName, name)
	}
	want, err := hex.DecodeString(entry.SHA256)
	if err != nil || len(want) != sha256.Size {
		return nil, hostErr(errcode.PluginLockInvalid, err, "the pin for plugin %q in .runx/%s is not a sha256 hex digest", name, LockFileName)
	}
	l := &Launch{Name: name, Path: path, SHA256: want}
	if launchers {
		// The launcher checks the bytes it executes against the pin; a
		// second read here would only cost the start another hash.
		return l, nil
	}
	got, err := FileSHA256(path)
	if err != nil {
		return nil, hostErr(errcode.PluginStartFailed, err, "cannot read plugin %q at %s: %v", name, path, err)
	}
	if err := l.checkPin(got); err != nil {
		return nil, err
	}
	return l, nil
}

// checkPin refuses a binary whose sha256 is not the pinned one.
func (l *Launch) checkPin(got []byte) error {
	if bytes.Equal(got, l.SHA256) {
		return nil
	}
	return hostErr(errcode.PluginChecksumMismatch, nil, "plugin %q at %s has sha256 %x, but .runx/%s pins %x: the binary changed since it was pinned, so runx refuses it", l.Name, l.Path, got, LockFileName, l.SHA256)
}

// ReadLock reads the project's pin file; a missing file is an empty lock.
func ReadLock(projectDir string) (*Lock, error) {
	lock := &Lock{Schema: LockSchema, Plugins: map[string]LockEntry{}}
	raw, err := os.ReadFile(filepath.Join(projectDir, LockFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return lock, nil
	}
	if err != nil {
		return nil, hostErr(errcode.PluginLockInvalid, err, "cannot read .runx/%s: %v", LockFileName, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(lock); err != nil || lock.Schema != LockSchema {
		return nil, hostErr(errcode.PluginLockInvalid, err, ".runx/%s is not a %s document", LockFileName, LockSchema)
	}
	if lock.Plugins == nil {
		lock.Plugins = map[string]LockEntry{}
	}
	return lock, nil
}

// WriteLock writes the pin file atomically.
func WriteLock(projectDir string, lock *Lock) error {
	lock.Schema = LockSchema
	raw, err := json.MarshalIndent(lock, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(projectDir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(projectDir, LockFileName+".tmp")
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(projectDir, LockFileName))
}

// FileSHA256 hashes a file's bytes.
func FileSHA256(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// PluginFor names the plugin that owns a capability id: the part before the
// first '.' or '/', so fs.read is the fs plugin's and store/events.append the
// store plugin's.
func PluginFor(capability string) string {
	if i := strings.IndexAny(capability, "./"); i > 0 {
		return capability[:i]
	}
	return capability
}

// Pin records the sha256 of a third-party plugin's binary in the project's
// pin file, so runx will start it.
func (d *Discovery) Pin(name string) (path, sum string, err error) {
	if d.FirstParty[name] {
		return "", "", hostErr(errcode.PluginNotFound, nil, "plugin %q is compiled into runx and needs no pin", name)
	}
	if !pluginName.MatchString(name) {
		return "", "", hostErr(errcode.PluginNotFound, nil, "no plugin named %q", name)
	}
	if path, err = d.binary(name); err != nil {
		return "", "", err
	}
	raw, err := FileSHA256(path)
	if err != nil {
		return "", "", err
	}
	lock, err := ReadLock(d.ProjectDir)
	if err != nil {
		return "", "", err
	}
	sum = hex.EncodeToString(raw)
	lock.Plugins[name] = LockEntry{SHA256: sum}
	return path, sum, WriteLock(d.ProjectDir, lock)
}

// binary finds runx-plugin-<name> in the project's plugin directory, then
// the runx home's: never on PATH, never in the current directory.
func (d *Discovery) binary(name string) (string, error) {
	binary := "runx-plugin-" + name
	for _, dir := range []string{filepath.Join(d.ProjectDir, "plugins"), filepath.Join(d.HomeDir, "plugins")} {
		candidate := filepath.Join(dir, binary)
		if info, err := os.Stat(candidate); err == nil && info.Mode().IsRegular() {
			return candidate, nil
		}
	}
	return "", hostErr(errcode.PluginNotFound, nil, "no plugin %q: put its binary at .runx/plugins/%s or <runx home>/plugins/%s", name, binary, binary)
}
