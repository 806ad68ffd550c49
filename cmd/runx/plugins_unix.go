//go:build unix

package main

import (
	"github.com/runxhq/runx/plugins/fs"
	"github.com/runxhq/runx/plugins/process"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// withPlatformPlugins adds the plugins built on POSIX file and process
// calls: fs (no-follow opens, fsync of directories), process and command
// (sessions, process groups, signals, advisory locks).
func withPlatformPlugins(m map[string]func() sdk.Plugin) map[string]func() sdk.Plugin {
	m[process.Name] = func() sdk.Plugin { return process.New() }
	m[process.CommandName] = func() sdk.Plugin { return process.NewCommand() }
	m[fs.Name] = func() sdk.Plugin { return fs.New() }
	return m
}

func superviseProcess(args []string) int { return process.Supervise(args) }
