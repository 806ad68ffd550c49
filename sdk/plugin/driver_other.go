//go:build !linux

package plugin

// dieWithDriver has no parent-death signal to arm outside Linux; the host's
// shutdown stops the plugin and its process group there.
func dieWithDriver(Plugin) {}
