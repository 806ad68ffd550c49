// Package registryfetch is the fetcher `runx skill` gives the kernel: it
// adds the registry skills a run needs and the project lacks, before the
// run starts, through the registry client (kernel/registry/client), so
// kernel/run itself never reaches a registry.
package registryfetch

import (
	"context"
	"os"

	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/registry/client"
	"github.com/runxhq/runx/kernel/run/installed"
)

// Fetcher installs registry skills from one registry.
type Fetcher struct {
	client *client.Client
}

// New is the fetcher for the registry --registry names, else
// RUNX_REGISTRY_URL; neither, or a URL the client refuses, is the typed
// error a fetch then reports.
func New(registryFlag string) (installed.RegistryFetcher, error) {
	raw, err := client.ResolveURL(registryFlag, os.LookupEnv)
	if err != nil {
		return nil, err
	}
	c, err := client.New(raw, client.Options{})
	if err != nil {
		return nil, err
	}
	return &Fetcher{client: c}, nil
}

// FetchSkill installs ref into the project's added skills, verified under
// the runx home's trust store; see installed.RegistryFetcher.
func (f *Fetcher) FetchSkill(ctx context.Context, projectDir, homeDir string, ref installed.RegistryRef, digest string) (installed.FetchedSkill, error) {
	trust, err := registry.LoadTrust(homeDir)
	if err != nil {
		return installed.FetchedSkill{}, err
	}
	in, err := f.client.Install(ctx, projectDir, client.Ref{Kind: client.KindSkill, Name: ref.Publisher + "/" + ref.Name, Version: ref.Version}, trust, client.InstallOptions{Digest: digest})
	if err != nil {
		return installed.FetchedSkill{}, err
	}
	got := installed.FetchedSkill{Version: in.Version}
	if u := in.NewestUnread; u != nil {
		got.NewestUnread = []installed.Unread{{Version: u.Version, Why: u.Reason}}
	}
	return got, nil
}
