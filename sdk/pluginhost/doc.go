// Package pluginhost is the host side of runx.plugin.v1: what a kernel (or a
// test harness) uses to start a plugin over go-plugin and talk to it. A
// plugin author never needs it; sdk/plugin is the author's package.
//
// It must not import kernel packages: the kernel imports it.
package pluginhost
