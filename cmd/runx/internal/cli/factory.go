package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/kernel/datasource"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/kernel/run/installed"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Version is runx's release version.
const Version = "0.1.0"

// Factory opens kernels for commands, carrying the global flags.
type Factory struct {
	IO         *IO
	ReceiptDir string
	// FirstParty describes the plugins compiled into this binary, by name.
	FirstParty map[string]func() sdk.Info
	// LocalStore binds the stores the kernel places itself.
	LocalStore datasource.LocalStore
	// CoreSkills are the runx/<name> skills compiled into this binary.
	CoreSkills fs.FS
	// Taint is the invocation's taint set, shared by every kernel it
	// opens; root wraps IO.Out and IO.Err with it, so nothing this
	// invocation prints holds a value it delivered.
	Taint *credential.Taint

	// RegistryURL is the registry a command fetches missing registry
	// skills from (--registry); empty means RUNX_REGISTRY_URL.
	RegistryURL string
	// NewFetcher builds the fetcher a kernel fetches registry skills with,
	// for the registry URL given (possibly empty); nil means this binary
	// fetches nothing.
	NewFetcher func(registryURL string) (installed.RegistryFetcher, error)

	mu      sync.Mutex
	kernels []*run.Kernel
	// atInterrupt are what commands that hold no kernel (a server) wait on
	// before an interrupt exits: their own orderly stop.
	atInterrupt []func()
}

// FirstPartyNames lists the compiled-in plugins, sorted.
func (f *Factory) FirstPartyNames() []string {
	names := make([]string, 0, len(f.FirstParty))
	for n := range f.FirstParty {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Options returns kernel options for this invocation.
func (f *Factory) Options() run.Options {
	self, _ := os.Executable()
	return run.Options{
		ReceiptDir:  f.ReceiptDir,
		Self:        self,
		FirstParty:  f.FirstParty,
		LocalStore:  f.LocalStore,
		RunxVersion: Version,
		CoreSkills:  f.CoreSkills,
		Taint:       f.Taint,
		Registry:    f.fetcher(),
	}
}

// fetcher is the registry fetcher for this invocation, or nil. A
// registry URL that cannot be used is reported by the fetch that needs
// it, so a run that fetches nothing never fails on it.
func (f *Factory) fetcher() installed.RegistryFetcher {
	if f.NewFetcher == nil {
		return nil
	}
	fetcher, err := f.NewFetcher(f.RegistryURL)
	if err != nil {
		return failingFetcher{err}
	}
	return fetcher
}

// failingFetcher refuses every fetch with the error its registry's
// configuration met.
type failingFetcher struct{ err error }

func (f failingFetcher) FetchSkill(context.Context, string, string, installed.RegistryRef, string) (installed.FetchedSkill, error) {
	return installed.FetchedSkill{}, f.err
}

// Locator finds what the command line names as the kernel would, without
// opening the project's state: a command loads its package through it first,
// so one that fails before it needs state makes no .runx.
func (f *Factory) Locator() (*run.Locator, error) { return run.NewLocator(f.Options()) }

// Kernel opens a kernel with the invocation's options.
func (f *Factory) Kernel(ctx context.Context) (*run.Kernel, error) {
	return f.open(ctx, f.Options())
}

func (f *Factory) open(ctx context.Context, o run.Options) (*run.Kernel, error) {
	k, err := run.Open(ctx, o)
	if err == nil {
		f.mu.Lock()
		f.kernels = append(f.kernels, k)
		f.mu.Unlock()
	}
	return k, err
}

// AtInterrupt registers fn to run when the invocation is interrupted,
// within the cleanup window: a command that serves (and holds no kernel)
// finishes its stop there before runx exits.
func (f *Factory) AtInterrupt(fn func()) {
	f.mu.Lock()
	f.atInterrupt = append(f.atInterrupt, fn)
	f.mu.Unlock()
}

// Interrupt stops every plugin the invocation started, and waits for what
// AtInterrupt registered, within the cleanup window an interrupt allows.
func (f *Factory) Interrupt(window time.Duration) {
	f.mu.Lock()
	kernels, waits := f.kernels, f.atInterrupt
	f.mu.Unlock()
	done := make(chan struct{})
	go func() {
		for _, k := range kernels {
			k.StopPlugins()
		}
		for _, fn := range waits {
			fn()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(window):
	}
}

// WithKernel opens a kernel for one command, runs fn with it and closes it;
// a kernel that cannot open is reported as the command's failure.
func (f *Factory) WithKernel(ctx context.Context, asJSON bool, fn func(k *run.Kernel) ExitCode) ExitCode {
	k, err := f.Kernel(ctx)
	if err != nil {
		return ReportError(f.IO, asJSON, err)
	}
	defer k.Close()
	return fn(k)
}

// ReadKernel is WithKernel for a command that only reads the project's
// state (history, verify, process list, tool inspect...): a project with no
// state yet reads as an empty one, and reading it makes no .runx. The
// kernel then opens over an empty state of its own in the temporary
// directory, removed once fn returns, so every read answers as it would
// in a project that has run nothing (no runs, no processes, a receipt not
// found) by the same code.
func (f *Factory) ReadKernel(ctx context.Context, asJSON bool, fn func(k *run.Kernel) ExitCode) ExitCode {
	k, done, err := f.OpenRead(ctx)
	if err != nil {
		return ReportError(f.IO, asJSON, err)
	}
	defer done()
	return fn(k)
}

// OpenRead opens the kernel ReadKernel runs its function with, for a
// command that reports the failure to open in its own way; done closes it
// and removes the empty state it may have opened over.
func (f *Factory) OpenRead(ctx context.Context) (*run.Kernel, func(), error) {
	o, cleanup, err := f.readOptions()
	if err != nil {
		return nil, nil, err
	}
	k, err := f.open(ctx, o)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return k, func() { k.Close(); cleanup() }, nil
}

// readOptions are the invocation's options for a read: as they are when
// the project's state exists, else pointed at an empty state of their own.
// An explicit receipt store that exists is still the one read.
func (f *Factory) readOptions() (run.Options, func(), error) {
	o := f.Options()
	resolved, err := run.ResolveOptions(o)
	if err != nil {
		return o, func() {}, err
	}
	if _, err := os.Lstat(resolved.ProjectDir); !errors.Is(err, fs.ErrNotExist) {
		return o, func() {}, nil
	}
	return emptyReadOptions(o, resolved)
}

// emptyReadOptions points o at an empty state of its own in the temporary
// directory, for a read that found no project state (resolved is o with
// its defaults filled). The choice is made from that finding alone: the
// project's own receipt store is never read, since one a run is creating
// now may not hold its index yet. Only a store named apart from the
// project (RUNX_RECEIPT_DIR, --receipt-dir) that exists is read.
func emptyReadOptions(o, resolved run.Options) (run.Options, func(), error) {
	tmp, err := os.MkdirTemp("", "runx-read-")
	if err != nil {
		return o, func() {}, err
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	o.ProjectDir = filepath.Join(tmp, ".runx")
	o.ReceiptDir = filepath.Join(o.ProjectDir, "receipts")
	if named := resolved.ReceiptDir; named != filepath.Join(resolved.ProjectDir, "receipts") {
		if _, err := os.Lstat(named); !errors.Is(err, fs.ErrNotExist) {
			o.ReceiptDir = named
		}
	}
	return o, cleanup, nil
}
