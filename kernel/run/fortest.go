package run

import (
	"time"

	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/connector"
)

// Scratch is the isolated state `runx test` runs one case on: a scratch
// workspace with its own receipt store, run records, fixture signer and
// fixed clock, the case's stand-ins in front of the plugin host, and a
// scratch runx home for credentials, so a test reads nothing of the
// person's state and writes nothing to it.
type Scratch struct {
	// Host is the kernel's plugin host, or a stand-in in front of it.
	Host    Invoker
	Signer  *receipt.Signer
	Store   *receipt.Store
	Journal *journal.Journal
	Clock   func() time.Time
	// Workspace is the scratch workspace root; ProjectDir its .runx.
	Workspace  string
	ProjectDir string
	// HTTPReplay is the case's providers.http and providers.mcp: the only
	// answers a connector request gets.
	HTTPReplay *connector.Replay
	// CredentialHome is where credentials are read from; CredentialEnv
	// reads credential variables (one that finds nothing: no live
	// fallback).
	CredentialHome string
	CredentialEnv  func(string) (string, bool)
}

// ForTest is a kernel that runs on s's state with k's options, plugin host
// and ceilings. It owns nothing: closing s's store and journal is the
// caller's, and it must not be closed itself.
func (k *Kernel) ForTest(s Scratch) *Kernel {
	e := &engine{
		Host: s.Host, Signer: s.Signer, Store: s.Store, Journal: s.Journal, Clock: s.Clock,
		RunxVersion: k.Options.RunxVersion, Workspace: s.Workspace, LookupEnv: k.Options.LookupEnv,
		Resolver:       newResolver(s.Workspace, k.Options),
		ProjectDir:     s.ProjectDir,
		HomeDir:        k.Options.HomeDir,
		LocalStore:     k.Options.LocalStore,
		HTTPReplay:     s.HTTPReplay,
		CredentialHome: s.CredentialHome,
		CredentialEnv:  s.CredentialEnv,
	}
	if k.engine != nil {
		e.MaxReceipts, e.MaxConcurrency = k.engine.MaxReceipts, k.engine.MaxConcurrency
	}
	return &Kernel{Options: k.Options, engine: e, host: k.host, store: s.Store, journal: s.Journal}
}

// CredentialResolver resolves connector credentials as this kernel's runs
// do.
func (k *Kernel) CredentialResolver() *credential.Resolver { return k.engine.CredentialResolver() }
