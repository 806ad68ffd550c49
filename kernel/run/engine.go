package run

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/runxhq/runx/kernel/packet"
	"sync"
	"time"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/datasource"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/runstate"
	runstep "github.com/runxhq/runx/kernel/run/step"
	"github.com/runxhq/runx/sdk/canon"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Invoker is what the engine needs of the plugin host (host.Supervisor):
// dispatch, and the catalog of descriptions everything else derives from.
type Invoker interface {
	Invoke(ctx context.Context, call *sdk.Call, maxOutput int64) (*sdk.Result, host.PluginRef, error)
	Preview(ctx context.Context, call *sdk.Call, maxOutput int64) (*sdk.Result, host.PluginRef, error)
	Recover(ctx context.Context, call *sdk.Call) (*sdk.Result, host.PluginRef, error)
	Definition(ctx context.Context, capability string) (*sdk.Definition, host.PluginRef, error)
	Info(ctx context.Context, plugin string) (*sdk.Info, error)
	RoleCapability(ctx context.Context, role string) (*host.Capability, error)
	Adapter(ctx context.Context, id string) (string, *sdk.Adapter, error)
	Packet(ctx context.Context, id string) (string, *sdk.Packet, error)
}

// Tree bounds every verifier holds a receipt tree to.
const (
	TreeMaxReceipts = runstate.TreeMaxReceipts
	TreeMaxDepth    = runstate.TreeMaxDepth
	// DefaultMaxConcurrency is the host ceiling when RUNX_MAX_CONCURRENCY is
	// unset: a conservative default, not a measured limit.
	DefaultMaxConcurrency = 16
)

// engine runs methods behind the Kernel, one engine to a kernel process.
// It is unexported so that every caller runs, resumes, reads and closes
// through the Kernel.
type engine struct {
	Host Invoker
	// Taint is the runs' taint set (credential.Taint): what a sealed
	// run's result, failure and envelope carry is scrubbed of it.
	Taint       *credential.Taint
	Signer      *receipt.Signer
	Store       *receipt.Store
	Journal     *journal.Journal
	Clock       func() time.Time
	RunxVersion string
	// Workspace is the absolute workspace root.
	Workspace string
	// LookupEnv reads the host environment for a process tool's declared
	// variables; nothing else of the host environment reaches a step.
	LookupEnv func(string) (string, bool)
	// Resolver finds the packages skill steps name.
	Resolver *skillResolver
	// MaxReceipts narrows the tree bound (RUNX_MAX_RECEIPTS); 0 means the bound.
	MaxReceipts int
	// MaxConcurrency is the host ceiling (RUNX_MAX_CONCURRENCY); 0 means 16.
	MaxConcurrency int
	// MaxPluginAnswerBytes bounds what one run's plugins answer
	// (RUNX_MAX_PLUGIN_ANSWER_BYTES); 0 means DefaultMaxPluginAnswerBytes.
	MaxPluginAnswerBytes int64
	// ProjectDir and HomeDir locate data-source bindings and credentials.
	ProjectDir string
	HomeDir    string
	// HTTPReplay, set only by runx test, is the test's providers.http and
	// providers.mcp: the only answers a connector request gets.
	HTTPReplay *connector.Replay
	// CredentialHome is the runx home credentials are read from (empty:
	// HomeDir). runx test points it at the test's scratch home, so a test
	// never reads the person's secrets.
	CredentialHome string
	// CredentialEnv reads credential variables (nil: LookupEnv). runx test
	// sets one that finds nothing: a test has no live fallback.
	CredentialEnv func(string) (string, bool)
	// LocalStore binds the stores the kernel places itself.
	LocalStore datasource.LocalStore
	// LockToken is the workspace lock hold this process was started under,
	// if any (RUNX_WORKSPACE_LOCK_TOKEN).
	LockToken string
	// recovering remembers which run and capability pairs are already
	// recorded for recovery (recover.go).
	recovering sync.Map
	// hooks lets tests stop the process at exact points.
	hooks func(point string)
	// files is the journal as the write-ahead log of Store's files
	// (filelog.go); nil seals a root with flushes of the store instead.
	files *fileLog
	// protected are runx's own places, out of every tool's reach
	// (protectedRoots), found once.
	protectedOnce sync.Once
	protected     []string
}

// Start is a resolved request to run one method.
type Start struct {
	Package *pkg.Package
	Method  *pkg.Method
	Inputs  map[string]any
	Act     string
	RunID   string
	// Authority is the host-stated authority document, if any (canonical JSON).
	Authority json.RawMessage
}

// ClosureDigest binds a package to the runtime that runs it, so a
// continuation cannot silently cross a runx upgrade.
func ClosureDigest(runxVersion, packageDigest string) string {
	return mustDigest(map[string]any{"runx_version": runxVersion, "package_digest": packageDigest})
}

// Run records a new run, drives it until it seals or pauses, and returns its
// envelope.
func (e *engine) Run(ctx context.Context, st Start) (*contract.SkillRun, error) {
	if err := e.prepare(ctx, st.Package, st.Method, nil); err != nil {
		return e.SealRefused(ctx, st, err)
	}
	stated, err := gate.Recorded(st.Authority)
	if err == nil {
		err = gate.AdmitAuthority(ctx, stated, e.Host.Info)
	}
	if err != nil {
		return e.SealRefused(ctx, st, err)
	}
	if st.Inputs, _, err = packet.Inputs(st.Package, st.Method, e.ProjectDir, nil, st.Inputs); err != nil {
		return e.SealRefused(ctx, st, err)
	}
	rec, err := e.newRecord(st, "", "")
	if err != nil {
		return nil, err
	}
	rc, err := e.root(rec, st.Package, st.Method, st.Inputs)
	if err != nil {
		return nil, err
	}
	if err := rc.admitSteps(ctx); err != nil {
		return e.SealRefused(ctx, st, err)
	}
	if err := rc.refuseCertainChanges(ctx); err != nil {
		return e.sealRefusedAs(ctx, st, err, seal.OutcomeRefused)
	}
	if runstep.EffectFreeSteps(ctx, rc.method.Steps, gatePort{rc}) {
		// Nothing this run does needs its record before its seal: its
		// transitions share the seal's one fsync (journal.Deferred).
		ctx = journal.Deferred(ctx)
		rc.held.Last = true
	}
	if err := e.Journal.CreateRun(durable(ctx), rec); err != nil {
		return nil, err
	}
	drv, err := e.Journal.Drive(rec.RunID)
	if err != nil {
		return nil, err
	}
	defer drv.Release()
	reportDriving(ctx, rec.RunID)
	rc.fresh = true
	env, err := e.finish(ctx, rc, rc.drive(ctx))
	rc.held.Record(ctx, e.Journal)
	return env, err
}

func (e *engine) newRecord(st Start, parent, address string) (*journal.Run, error) {
	inputs, err := canon.Canonical(orEmpty(st.Inputs))
	if err != nil {
		return nil, err
	}
	authority := st.Authority
	if len(authority) == 0 {
		authority = gate.HostAuthority
	}
	return &journal.Run{
		RunID: st.RunID, ParentRunID: parent, ParentAddress: address,
		SkillName: st.Package.Name, Method: st.Method.Name, PackageDir: st.Package.Dir,
		PackageDigest: st.Package.Digest, ClosureDigest: e.closureOf(st.Package),
		Authority: authority, Inputs: inputs, Act: st.Act,
	}, nil
}

func (e *engine) root(rec *journal.Run, p *pkg.Package, m *pkg.Method, inputs map[string]any) (*runCtx, error) {
	limit := TreeMaxReceipts
	if e.MaxReceipts > 0 && e.MaxReceipts < limit {
		limit = e.MaxReceipts
	}
	rc := newRunCtx(e, rec, p, m, inputs, &runstate.Budget{Limit: limit, AnswerLimit: e.answerLimit()}, 0, "")
	rc.Chain = []string{gate.PackageRef(e.HomeDir, p)}
	rc.Spend = &runstate.SpendTree{RootID: rec.RunID}
	a, err := gate.Recorded(rec.Authority)
	if err != nil {
		return nil, err
	}
	rc.Base = authority.Narrow(a.Layer())
	rc.Standing = a.Standing()
	return rc, nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func mustDigest(v any) string {
	d, err := canon.Digest(v)
	if err != nil {
		panic(errors.New("digest of a kernel-built value failed: " + err.Error()))
	}
	return d
}

// dataSources resolves bindings against the adapters the installed plugins
// declare.
func (e *engine) dataSources() *datasource.Resolver {
	r := &datasource.Resolver{
		ProjectDir: e.ProjectDir, Workspace: e.Workspace, LookupEnv: e.LookupEnv, Local: e.LocalStore,
		Adapter: func(ctx context.Context, id string) (*sdk.Adapter, error) {
			_, a, err := e.Host.Adapter(ctx, id)
			return a, err
		},
	}
	if k, ok := e.Host.(interface{ Adapters() []string }); ok {
		r.Known = k.Adapters
	}
	return r
}

// hook calls the test hook at a named point, if one is set.
func (e *engine) hook(point string) {
	if e.hooks != nil {
		e.hooks(point)
	}
}

// SetHook installs a function called at named points of a run (tests only).
func (e *engine) SetHook(fn func(point string)) { e.hooks = fn }

// durable is the context run records are written under: a stop request
// admits no further step, but what happened is always recorded.
func durable(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// CredentialResolver resolves connector credentials for this engine's runs:
// from CredentialHome's bindings and secrets and CredentialEnv's variables.
func (e *engine) CredentialResolver() *credential.Resolver {
	home, env := e.CredentialHome, e.CredentialEnv
	if home == "" {
		home = e.HomeDir
	}
	if env == nil {
		env = e.LookupEnv
	}
	return &credential.Resolver{HomeDir: home, LookupEnv: env}
}
