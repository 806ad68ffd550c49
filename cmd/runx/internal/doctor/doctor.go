// Package doctor is `runx doctor`: it reads the runx home and the workspace
// this invocation finds and says, check by check, what is wrong and how to
// fix it. It writes nothing, starts no plugin and prints no secret or key
// material.
package doctor

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// Options are the command's arguments.
type Options struct {
	Factory *cli.Factory
	JSON    bool
	// Plugins starts every plugin and checks its handshake.
	Plugins bool
}

// New wires the command. A test passes runF to see the options a command
// line parses to without running anything; nil runs the checks.
func New(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the runx home, its keys, the workspace found, registry trust and pinned plugins",
		Long: `Check, one line each, what runx depends on and say how to fix what is
wrong: the runx home's permissions, its keys and secrets directories, the
signing key, the workspace this directory resolves to and why, the registry
trust store, the managed agent's configuration (never its key), and the
plugins runx carries or has pinned (each pinned binary's sha256 against its
pin; no plugin is started).

--plugins also starts every plugin, compiled-in and pinned, through the
same discovery, pin check and handshake a run uses, and reports each one's
version, protocol, capabilities and start time; the plugins are stopped
again before doctor exits. It opens runx as any read does, so it makes
the runx home and its signing key when they do not exist yet.

Without --plugins doctor only reads: it makes no runx home, no key and no
.runx; with it, never a .runx. It exits 1
when any check fails; a warning alone exits 0.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document")
	cmd.Flags().BoolVar(&opts.Plugins, "plugins", false, "also start every plugin and check its handshake")
	return cmd
}

// Status is one check's verdict.
type Status string

// The statuses a check has.
const (
	StatusOK   Status = "ok"
	StatusWarn Status = "warn"
	StatusFail Status = "fail"
)

// Check is one line of the report.
type Check struct {
	Check  string `json:"check"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
}

// Schema names the --json document.
const Schema = "runx.doctor.v1"

// Report is the --json document.
type Report struct {
	Schema string  `json:"schema"`
	OK     bool    `json:"ok"`
	Checks []Check `json:"checks"`
}

// Run runs the checks and prints them; any failed check exits 1.
func Run(opts *Options) error {
	f := opts.Factory
	checks := Checks(f.Options())
	if opts.Plugins {
		checks = append(checks, startPlugins(f)...)
	}
	ok := true
	for _, c := range checks {
		ok = ok && c.Status != StatusFail
	}
	if opts.JSON {
		if err := cli.PrintJSON(f.IO.Out, Report{Schema: Schema, OK: ok, Checks: checks}); err != nil {
			return err
		}
	} else {
		for _, c := range checks {
			line := fmt.Sprintf("%-4s  %-14s  %s", c.Status, c.Check, c.Detail)
			if c.Fix != "" {
				line += "; fix: " + c.Fix
			}
			fmt.Fprintln(f.IO.Out, line)
		}
	}
	if !ok {
		return cli.Exit(cli.ExitFailed)
	}
	return nil
}

// Checks runs every check for the invocation's options, in report order.
func Checks(o run.Options) []Check {
	resolved, err := run.ResolveOptions(o)
	if err != nil {
		return []Check{{Check: "home", Status: StatusFail, Detail: contract.BodyOf(err).Message, Fix: "set RUNX_HOME to the runx home directory"}}
	}
	home := resolved.HomeDir
	checks := []Check{checkHome(home)}
	checks = append(checks, checkPrivateDir("keys", filepath.Dir(receipt.KeyPath(home)), "signing key")...)
	checks = append(checks, checkPrivateDir("secrets", filepath.Join(home, credential.SecretsDir), "secret")...)
	checks = append(checks, checkKey(home), checkWorkspace(o, resolved), checkTrust(home), checkAgent(home, resolved.LookupEnv))
	return append(checks, checkPlugins(resolved)...)
}

// checkHome: the home exists, is a directory and no one else may write it.
func checkHome(home string) Check {
	c := Check{Check: "home"}
	info, err := os.Lstat(home)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail = StatusWarn, fmt.Sprintf("%s does not exist yet", home)
		c.Fix = "none needed: the first run makes it (0700); set RUNX_HOME to use another"
	case err != nil:
		c.Status, c.Detail, c.Fix = StatusFail, fmt.Sprintf("cannot read %s: %v", home, err), "make it readable by this user"
	case !info.IsDir():
		c.Status, c.Detail, c.Fix = StatusFail, fmt.Sprintf("%s is not a directory", home), "move it aside, or set RUNX_HOME to a directory"
	case info.Mode().Perm()&0o022 != 0:
		c.Status = StatusFail
		c.Detail = fmt.Sprintf("%s has mode %04o; others may write it", home, info.Mode().Perm())
		c.Fix = "chmod 700 " + home
	default:
		c.Status, c.Detail = StatusOK, fmt.Sprintf("%s (mode %04o)", home, info.Mode().Perm())
	}
	return c
}

// checkPrivateDir: dir, when it exists, is 0700 and no file in it may be
// read by others. One line for the directory, one per file that fails.
func checkPrivateDir(name, dir, what string) []Check {
	info, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Check{{Check: name, Status: StatusOK, Detail: fmt.Sprintf("%s does not exist yet (no %s stored)", dir, what)}}
	}
	if err != nil {
		return []Check{{Check: name, Status: StatusFail, Detail: fmt.Sprintf("cannot read %s: %v", dir, err), Fix: "make it readable by this user"}}
	}
	if !info.IsDir() {
		return []Check{{Check: name, Status: StatusFail, Detail: fmt.Sprintf("%s is not a directory", dir), Fix: "move it aside; runx makes it again"}}
	}
	var checks []Check
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		checks = append(checks, Check{Check: name, Status: StatusFail, Detail: fmt.Sprintf("%s has mode %04o; others may list or reach it", dir, perm), Fix: "chmod 700 " + dir})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return append(checks, Check{Check: name, Status: StatusFail, Detail: fmt.Sprintf("cannot list %s: %v", dir, err), Fix: "chmod 700 " + dir})
	}
	files := 0
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		files++
		path := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(path)
		if err != nil {
			continue
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			checks = append(checks, Check{Check: name, Status: StatusFail, Detail: fmt.Sprintf("%s has mode %04o; others may read it", path, perm), Fix: "chmod 600 " + path})
		}
	}
	if len(checks) == 0 {
		checks = append(checks, Check{Check: name, Status: StatusOK, Detail: fmt.Sprintf("%s (mode %04o, %d file(s), none readable by others)", dir, info.Mode().Perm(), files)})
	}
	return checks
}

// checkKey: the signing key is present and loads; only its public key id
// is shown.
func checkKey(home string) Check {
	c := Check{Check: "signing_key"}
	key, err := receipt.LoadKey(home)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail = StatusWarn, fmt.Sprintf("no signing key at %s yet", receipt.KeyPath(home))
		c.Fix = "none needed: the first run makes one"
	case err != nil:
		body := contract.BodyOf(err)
		c.Status, c.Detail = StatusFail, fmt.Sprintf("%s [%s]", body.Message, body.Code)
		c.Fix = "see the message: chmod 600 the key file, or move a malformed one aside"
	default:
		pub, _ := key.Public().(ed25519.PublicKey)
		c.Status, c.Detail = StatusOK, fmt.Sprintf("ed25519 key %s", receipt.KeyID(pub))
	}
	return c
}

// checkWorkspace says which workspace this directory resolves to and why,
// by the markers run.FindWorkspace looks for.
func checkWorkspace(o, resolved run.Options) Check {
	c := Check{Check: "workspace", Status: StatusOK}
	ws := resolved.Workspace
	var why string
	switch {
	case o.Workspace != "":
		why = "named by the caller"
	case exists(filepath.Join(ws, ".runx", run.ProjectIdentityFile)):
		why = "it holds runx's .runx"
	case exists(filepath.Join(ws, ".git")):
		why = "it holds .git"
	case isDir(filepath.Join(ws, "skills")):
		why = "it holds skills/"
	case exists(filepath.Join(ws, ".runx")):
		why = "it holds a .runx"
	default:
		why = "no .git, skills/ or .runx was found above " + resolved.Cwd + ", so the current directory is used"
		c.Status = StatusWarn
		c.Fix = "run runx inside a project (a directory with .git or skills/), or set RUNX_PROJECT_DIR"
	}
	state := "no project state yet"
	if exists(resolved.ProjectDir) {
		state = "project state in " + resolved.ProjectDir
	}
	if filepath.Clean(resolved.ProjectDir) == filepath.Clean(resolved.HomeDir) {
		c.Status = StatusFail
		c.Fix = "run runx in a project, not in the runx home's parent, or set RUNX_PROJECT_DIR"
	}
	c.Detail = fmt.Sprintf("%s (%s); %s", ws, why, state)
	return c
}

// checkTrust: the registry trust store reads; an absent one trusts no key.
func checkTrust(home string) Check {
	c := Check{Check: "registry_trust"}
	path := registry.TrustPath(home)
	t, err := registry.LoadTrust(home)
	if err != nil {
		body := contract.BodyOf(err)
		c.Status, c.Detail = StatusFail, fmt.Sprintf("%s [%s]", body.Message, body.Code)
		c.Fix = "repair or move aside " + path + ", then trust registries again with runx registry trust add"
		return c
	}
	if len(t.Keys) == 0 {
		c.Status, c.Detail = StatusOK, fmt.Sprintf("no registry key trusted (%s)", path)
		return c
	}
	seen := map[string]bool{}
	var regs []string
	for _, k := range t.Keys {
		if !seen[k.Registry] {
			seen[k.Registry] = true
			regs = append(regs, k.Registry)
		}
	}
	sort.Strings(regs)
	c.Status, c.Detail = StatusOK, fmt.Sprintf("%d key(s) trusted for %s", len(t.Keys), strings.Join(regs, ", "))
	return c
}

// checkPlugins lists the plugins compiled into runx and, per pin in the
// project's plugins.lock, whether its binary is where discovery looks and
// matches its pin. No plugin is started.
func checkPlugins(o run.Options) []Check {
	names := make([]string, 0, len(o.FirstParty))
	for n := range o.FirstParty {
		names = append(names, n)
	}
	sort.Strings(names)
	checks := []Check{{Check: "plugins", Status: StatusOK, Detail: "compiled in: " + strings.Join(names, ", ")}}
	if len(names) == 0 {
		checks[0].Detail = "none compiled in"
	}
	lock, err := host.ReadLock(o.ProjectDir)
	if err != nil {
		body := contract.BodyOf(err)
		return append(checks, Check{Check: "plugins", Status: StatusFail, Detail: fmt.Sprintf("%s [%s]", body.Message, body.Code), Fix: "repair .runx/" + host.LockFileName + " or re-pin each plugin with runx plugin pin <name>"})
	}
	for _, n := range lock.Names() {
		checks = append(checks, checkPin(o, n, lock.Plugins[n]))
	}
	return checks
}

// checkPin checks one pinned plugin as discovery would before starting it:
// runx-plugin-<name> in the project's plugins/, then the home's.
func checkPin(o run.Options, name string, pin host.LockEntry) Check {
	c := Check{Check: "plugin:" + name}
	binary := "runx-plugin-" + name
	var path string
	for _, dir := range []string{filepath.Join(o.ProjectDir, "plugins"), filepath.Join(o.HomeDir, "plugins")} {
		if info, err := os.Stat(filepath.Join(dir, binary)); err == nil && info.Mode().IsRegular() {
			path = filepath.Join(dir, binary)
			break
		}
	}
	if path == "" {
		c.Status, c.Detail = StatusFail, fmt.Sprintf("pinned but no %s in .runx/plugins or the runx home's plugins", binary)
		c.Fix = "put the binary at .runx/plugins/" + binary + ", or remove its pin"
		return c
	}
	got, err := host.FileSHA256(path)
	if err != nil {
		c.Status, c.Detail, c.Fix = StatusFail, fmt.Sprintf("cannot read %s: %v", path, err), "make it readable by this user"
		return c
	}
	if hex.EncodeToString(got) != strings.ToLower(pin.SHA256) {
		c.Status, c.Detail = StatusFail, fmt.Sprintf("%s has sha256 %x, but its pin is %s: runx refuses to start it", path, got, pin.SHA256)
		c.Fix = "if the new binary is trusted, run runx plugin pin " + name
		return c
	}
	c.Status, c.Detail = StatusOK, fmt.Sprintf("%s matches its pin", path)
	return c
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
