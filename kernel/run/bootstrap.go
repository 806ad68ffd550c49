package run

// Bootstrap: how a kernel starts, in one place. A command names what it
// knows (Options: the global flags, the binary's first-party plugins and
// core skills); ResolveOptions fills the rest from the environment and
// finds the workspace (FindWorkspace, workspace.go: the nearest project
// mark); then either NewLocator, which finds packages and opens nothing,
// or Open, which claims the project's .runx (claimProject), opens the
// receipt store, the signing key and the journal, repairs what a crash
// left, and makes the plugin host and the engine behind the Kernel.

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/datasource"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/installed"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Options locate a kernel's state and plugins. Zero fields take the
// defaults of docs/architecture.md ("State on disk") from Env.
type Options struct {
	Workspace string // the workspace root (default: FindWorkspace from Cwd)
	// Cwd is the invocation directory (RUNX_CWD, default the current
	// directory): a relative path on the command line resolves from it.
	Cwd        string
	ProjectDir string // .runx (RUNX_PROJECT_DIR)
	HomeDir    string // the runx home (RUNX_HOME, default ~/.runx)
	ReceiptDir string // RUNX_RECEIPT_DIR / --receipt-dir
	Self       string // the runx executable, re-executed for first-party plugins
	// FirstParty describes, in process, each plugin compiled into the runx
	// binary (re-executed as "runx plugin serve <name>"), by name.
	FirstParty map[string]func() sdk.Info
	// LocalStore binds the stores the kernel places itself (the workspace
	// store, unbound local:// refs); cmd/runx names its adapter.
	LocalStore  datasource.LocalStore
	RunxVersion string
	Clock       func() time.Time
	// Signer overrides the runx home's key (runx test signs with the fixture key).
	Signer *receipt.Signer
	Logger hclog.Logger
	// Taint is the taint set of the runs this kernel drives: every value
	// delivered to a plugin or a provider joins it, and runx's own log,
	// the journal, envelopes and receipts are scrubbed of it. Nil means a
	// fresh set.
	Taint     *credential.Taint
	LookupEnv func(string) (string, bool)
	// CoreSkills are the runx/<name> skills this binary carries.
	CoreSkills fs.FS
	// Registry fetches the registry skills a run needs and the project
	// lacks, before the run starts (fetch.go); nil when no registry is
	// configured, and a missing one is then refused.
	Registry installed.RegistryFetcher

	// projectFound is set when ProjectDir is the workspace's .runx, found
	// rather than named: Open then uses it only when it is runx's own.
	projectFound bool
}

// ResolveOptions fills defaults from the environment.
func ResolveOptions(o Options) (Options, error) {
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	env := func(k string) string { v, _ := o.LookupEnv(k); return v }
	if o.Cwd == "" {
		o.Cwd = env("RUNX_CWD")
	}
	if o.Cwd == "" {
		o.Cwd = o.Workspace
	}
	if o.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, err
		}
		o.Cwd = wd
	}
	abs, err := filepath.Abs(o.Cwd)
	if err != nil {
		return o, err
	}
	o.Cwd = abs
	if o.HomeDir == "" {
		o.HomeDir = env("RUNX_HOME")
	}
	if o.HomeDir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return o, contract.Errorf(errcode.RunxHomeUnknown, "cannot find a home directory: set RUNX_HOME")
		}
		o.HomeDir = filepath.Join(home, ".runx")
	}
	if o.HomeDir, err = filepath.Abs(o.HomeDir); err != nil {
		return o, err
	}
	if o.Workspace == "" {
		o.Workspace = FindWorkspace(o.Cwd, o.HomeDir)
	}
	if o.Workspace, err = filepath.Abs(o.Workspace); err != nil {
		return o, err
	}
	if o.ProjectDir == "" {
		o.ProjectDir = env("RUNX_PROJECT_DIR")
	}
	if o.ProjectDir == "" {
		o.ProjectDir = filepath.Join(o.Workspace, ".runx")
		o.projectFound = true
	}
	if o.ReceiptDir == "" {
		o.ReceiptDir = env("RUNX_RECEIPT_DIR")
	}
	if o.ReceiptDir == "" {
		o.ReceiptDir = filepath.Join(o.ProjectDir, "receipts")
	}
	if o.Clock == nil {
		o.Clock = func() time.Time { return time.Now().UTC() }
		if fixed := env("RUNX_TEST_NOW"); fixed != "" {
			// Tests of runx's own waits (a bounded retry, ctx.wait) run on
			// a stated clock instead of sleeping until a time passes.
			at, err := time.Parse(time.RFC3339, fixed)
			if err != nil {
				return o, contract.Errorf(errcode.TestClockInvalid, "RUNX_TEST_NOW must be an RFC 3339 time")
			}
			o.Clock = func() time.Time { return at.UTC() }
		}
	}
	if o.Taint == nil {
		o.Taint = &credential.Taint{}
	}
	if o.Logger == nil {
		// Plugins' logs are re-emitted through this logger: its output
		// passes the taint set, so a plugin that logs a credential it was
		// given writes only the marker.
		o.Logger = hclog.New(&hclog.LoggerOptions{Name: "runx", Output: o.Taint.Writer(os.Stderr), Level: logLevel(env("RUNX_LOG"))})
	}
	return o, nil
}

func logLevel(s string) hclog.Level {
	if s == "" {
		return hclog.Off
	}
	return hclog.LevelFromString(s)
}

// ClaimProject resolves options and makes the project directory runx's,
// as Open does first, without opening the project's state: a command that
// only adds files there (runx registry install) needs no journal.
func ClaimProject(o Options) (Options, error) {
	o, err := ResolveOptions(o)
	if err != nil {
		return o, err
	}
	if o.projectFound && filepath.Clean(o.ProjectDir) == filepath.Clean(o.HomeDir) {
		return o, contract.Errorf(errcode.ProjectUnrecognized, "%s is the runx home, never a project: run runx in a project (a directory with .git or skills/), or set RUNX_PROJECT_DIR", o.ProjectDir)
	}
	return o, claimProject(o.ProjectDir, !o.projectFound)
}

// Open resolves options and opens the kernel's state; plugins start
// lazily. What it repairs is written under ctx's values but never cut short
// by its cancellation: a half-made repair would lose what the crash left.
func Open(ctx context.Context, o Options) (*Kernel, error) {
	o, err := ClaimProject(o)
	if err != nil {
		return nil, err
	}
	store, err := receipt.Open(o.ReceiptDir)
	if err != nil {
		return nil, err
	}
	signer := o.Signer
	if signer == nil {
		key, err := receipt.LoadOrCreateKey(o.HomeDir)
		if err != nil {
			return nil, err
		}
		if signer, err = receipt.NewSigner(key); err != nil {
			return nil, err
		}
	}
	maxConcurrency, err := hostCeiling(o.LookupEnv, "RUNX_MAX_CONCURRENCY", DefaultMaxConcurrency, 1<<20)
	if err != nil {
		return nil, err
	}
	maxReceipts, err := hostCeiling(o.LookupEnv, "RUNX_MAX_RECEIPTS", TreeMaxReceipts, TreeMaxReceipts)
	if err != nil {
		return nil, err
	}
	maxAnswer, err := hostCeiling(o.LookupEnv, "RUNX_MAX_PLUGIN_ANSWER_BYTES", DefaultMaxPluginAnswerBytes, 1<<40)
	if err != nil {
		return nil, err
	}
	j, err := journal.Open(o.ProjectDir, o.Clock)
	if err != nil {
		return nil, err
	}
	j.Scrub = o.Taint.ScrubJSON
	// A torn last index line is repaired first, so the repairs below
	// append whole lines and restore what the cut line described.
	if torn, err := store.RecoverTail(); err != nil {
		j.Close()
		return nil, err
	} else if torn != nil {
		o.Logger.Warn("receipt index ended in a torn line; repaired", "offset", torn.Offset, "bytes", torn.Bytes, "set_aside", torn.SetAside)
		if err := reindexTorn(durable(ctx), j, store, torn); err != nil {
			j.Close()
			return nil, err
		}
	}
	if err := repairIndex(durable(ctx), j, store); err != nil {
		j.Close()
		return nil, err
	}
	files, err := openFileLog(durable(ctx), j, store)
	if err != nil {
		j.Close()
		return nil, err
	}
	k := &Kernel{Options: o, store: store, journal: j}
	sup, err := host.NewSupervisor(host.Config{Discovery: k.Discovery(), RunxVersion: o.RunxVersion, Logger: o.Logger, FirstParty: o.FirstParty, Taint: o.Taint})
	if err != nil {
		j.Close()
		return nil, err
	}
	k.host = sup
	k.engine = &engine{
		Host: sup, Taint: o.Taint, Signer: signer, Store: store, Journal: j, Clock: o.Clock,
		RunxVersion: o.RunxVersion, Workspace: o.Workspace, LookupEnv: o.LookupEnv,
		Resolver:    newResolver(o.Workspace, o),
		MaxReceipts: maxReceipts, MaxConcurrency: maxConcurrency, MaxPluginAnswerBytes: int64(maxAnswer),
		ProjectDir: o.ProjectDir, HomeDir: o.HomeDir,
		LocalStore: o.LocalStore,
		LockToken:  func() string { v, _ := o.LookupEnv("RUNX_WORKSPACE_LOCK_TOKEN"); return v }(),
		files:      files,
	}
	if point, ok := o.LookupEnv("RUNX_TEST_CRASH_AT"); ok && point != "" {
		// Crash tests stop the process at an exact point of a run, as a
		// power cut would, to prove the next driver loses nothing.
		k.engine.SetHook(func(at string) {
			if at == point {
				os.Exit(137)
			}
		})
	}
	return k, nil
}

// hostCeiling reads a positive integer from the environment; anything else
// refuses the start. A value is narrowed to max.
func hostCeiling(lookup func(string) (string, bool), name string, def, max int) (int, error) {
	raw, ok := lookup(name)
	if !ok || raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || n <= 0 {
		return 0, contract.Errorf(errcode.HostCeilingInvalid, "%s must be a positive integer", name)
	}
	return min(n, max), nil
}

// NewLocator resolves o's defaults from the environment, as Open does.
func NewLocator(o Options) (*Locator, error) {
	o, err := ResolveOptions(o)
	if err != nil {
		return nil, err
	}
	return newLocator(o), nil
}

func newLocator(o Options) *Locator {
	return &Locator{Options: o, resolver: newResolver(o.Workspace, o)}
}
