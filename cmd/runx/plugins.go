package main

import (
	"github.com/runxhq/runx/kernel/datasource"
	"github.com/runxhq/runx/plugins/artifact"
	"github.com/runxhq/runx/plugins/git"
	rxhttp "github.com/runxhq/runx/plugins/http"
	"github.com/runxhq/runx/plugins/jsworker"
	"github.com/runxhq/runx/plugins/store"
	"github.com/runxhq/runx/plugins/store/private"
	"github.com/runxhq/runx/plugins/verdict"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// firstParty is every capability plugin compiled into this binary, by name:
// these, and the platform's own (plugins_unix.go, plugins_windows.go).
// Only these files link plugin implementations, and only to serve them in
// plugin mode: the kernel reaches them as it reaches any third-party plugin.
var firstParty = withPlatformPlugins(map[string]func() sdk.Plugin{
	jsworker.Name: func() sdk.Plugin { return jsworker.New() },
	git.Name:      func() sdk.Plugin { return git.New() },
	store.Name:    func() sdk.Plugin { return store.New() },
	private.Name:  func() sdk.Plugin { return private.New() },
	artifact.Name: func() sdk.Plugin { return artifact.New() },
	rxhttp.Name:   func() sdk.Plugin { return rxhttp.New() },
	verdict.Name:  func() sdk.Plugin { return verdict.New() },
})

// localStore is how the kernel binds the stores it places itself (the
// workspace store, unbound local:// refs): one SQLite file each, in the
// store plugin's data.sqlite adapter.
var localStore = datasource.LocalStore{Adapter: store.AdapterSQLite, PathParam: "database_path", Ext: ".sqlite"}

// firstPartyInfo hands the kernel each compiled-in plugin's description,
// computed only when the kernel first asks: learning what a first-party
// plugin serves starts no process.
func firstPartyInfo() map[string]func() sdk.Info {
	infos := make(map[string]func() sdk.Info, len(firstParty))
	for name, newPlugin := range firstParty {
		infos[name] = func() sdk.Info { return newPlugin().Info() }
	}
	return infos
}

func serve(p sdk.Plugin) { sdk.Serve(p) }
