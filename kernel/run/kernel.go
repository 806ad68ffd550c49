package run

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"encoding/json"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/authority"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/datasource"
	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/kernel/run/installed"
	"github.com/runxhq/runx/sdk/errcode"
)

// Kernel is one process's runtime: its receipt store, signer, plugin host
// and engine. It is the one exported way to run (Skill, TurnCall), resume
// (Resume), read (ReadRun, ReadRequestPayload, the queries) and close a
// run; the engine behind it is this package's own.
type Kernel struct {
	Options Options
	host    *host.Supervisor
	store   *receipt.Store
	journal *journal.Journal
	engine  *engine
}

// Close stops the kernel's plugins.
func (k *Kernel) Close() {
	k.host.Close()
	if k.engine != nil && k.engine.files != nil {
		k.engine.files.close()
	}
	_ = k.store.Close()
	_ = k.journal.Close()
}

// SkillRequest is `runx skill <ref>[#method] [method]`.
type SkillRequest struct {
	Ref    string
	Method string
	Inputs pkg.InputSource
	Act    string
	// RunID is fixed by runx test; empty means a fresh one.
	RunID string
	// Authority is what the host states with --run-authority (JSON), if any.
	Authority []byte
	// PackageDigest and ClosureDigest bind the run when a host states them.
	PackageDigest string
	ClosureDigest string
	// MaxSpend narrows the authority's max_spend_micro_usd (--max-spend).
	MaxSpend authority.Limit
	// RegistryDigest is the content digest a registry skill the ref names
	// must have (--digest): checked by the fetch and again at the bind.
	RegistryDigest string
}

// Skill resolves a package and method, binds inputs and runs it. A refusal
// before the method resolves is an error; one after it seals a blocked run.
func (k *Kernel) Skill(ctx context.Context, req SkillRequest) (*contract.SkillRun, error) {
	unread, err := k.prefetch(ctx, req.Ref, req.RegistryDigest)
	if err != nil {
		return nil, err
	}
	p, m, err := k.locator().Package(req.Ref, req.Method)
	if err != nil {
		return nil, err
	}
	if err := installed.CheckDigest(p, req.RegistryDigest); err != nil {
		return nil, err
	}
	k.engine.prestart(ctx, m)
	if req.PackageDigest != "" && req.PackageDigest != p.Digest {
		return nil, contract.Errorf(errcode.BindingPackageMismatch, "--package-digest %s is not package %s's digest (%s)", req.PackageDigest, p.Name, p.Digest)
	}
	if req.ClosureDigest != "" {
		if closure := k.engine.closureOf(p); req.ClosureDigest != closure {
			return nil, contract.Errorf(errcode.BindingClosureMismatch, "--closure-digest %s is not this runx's closure for %s (%s)", req.ClosureDigest, p.Name, closure)
		}
	}
	if _, err := gate.ParseAuthority(req.Authority); err != nil {
		return nil, err
	}
	if n, ok := req.MaxSpend.Value(); ok {
		narrowed, err := connector.WithSpendLimit(req.Authority, n)
		if err != nil {
			return nil, err
		}
		req.Authority = narrowed
	}
	runID := req.RunID
	if runID == "" {
		runID = NewRunID(k.Options.Clock())
	}
	st := Start{Package: p, Method: m, Act: req.Act, RunID: runID, Authority: req.Authority}
	inputs, err := pkg.BindInputs(m, req.Inputs)
	if err != nil {
		return k.engine.SealRefused(ctx, st, err)
	}
	st.Inputs = inputs
	env, err := k.engine.Run(ctx, st)
	return installed.DescribeRun(env, p, unread), err
}

// Run records a resolved method's run and drives it until it seals or
// pauses (engine.Run). Skill is the path from a command line; runx test
// resolves its case itself and starts it here.
func (k *Kernel) Run(ctx context.Context, st Start) (*contract.SkillRun, error) {
	return k.engine.Run(ctx, st)
}

// SealRefused seals a resolved run refused before any step ran (an input
// that does not bind), so even the refusal leaves a receipt.
func (k *Kernel) SealRefused(ctx context.Context, st Start, cause error) (*contract.SkillRun, error) {
	return k.engine.SealRefused(ctx, st, cause)
}

// Resume admits a resume document into a paused run and drives it on
// (resume.go).
func (k *Kernel) Resume(ctx context.Context, req ResumeRequest) (*contract.SkillRun, error) {
	return k.engine.Resume(ctx, req)
}

// ReadRun reads a run's record: what it waits on, what it was answered and
// its events after a cursor (kernel/run/readmodel).
func (k *Kernel) ReadRun(ctx context.Context, runID, after string) (*RunRead, error) {
	return readModel(k.engine).ReadRun(ctx, runID, after)
}

// ReadRequestPayload is the exact payload of the request a run waits on at
// address (kernel/run/readmodel).
func (k *Kernel) ReadRequestPayload(ctx context.Context, runID, address string) (json.RawMessage, error) {
	return readModel(k.engine).ReadRequestPayload(ctx, runID, address)
}

// Taint is the taint set of the runs this kernel drives: a value added to
// it is scrubbed from everything the runs write. Nil for a kernel that was
// never opened.
func (k *Kernel) Taint() *credential.Taint {
	if k.engine == nil {
		return nil
	}
	return k.engine.Taint
}

// ConcurrencyCeiling is the host's concurrency ceiling
// (RUNX_MAX_CONCURRENCY), under which every run's max_concurrency falls.
func (k *Kernel) ConcurrencyCeiling() int {
	if k.engine == nil || k.engine.MaxConcurrency <= 0 {
		return DefaultMaxConcurrency
	}
	return k.engine.MaxConcurrency
}

var runIDEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// NewRunID makes a time-ordered, unguessable run id.
func NewRunID(now time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	_, _ = rand.Read(b[6:])
	return "run_" + strings.ToLower(runIDEncoding.EncodeToString(b[:]))
}

// Discovery is how this kernel finds plugins.
func (k *Kernel) Discovery() *host.Discovery {
	first := map[string]bool{}
	for n := range k.Options.FirstParty {
		first[n] = true
	}
	return &host.Discovery{Self: k.Options.Self, FirstParty: first, ProjectDir: k.Options.ProjectDir, HomeDir: k.Options.HomeDir}
}

// DataSources is the resolver of this kernel's data-source bindings.
func (k *Kernel) DataSources() *datasource.Resolver { return k.engine.dataSources() }
