//go:build !linux

package root

// interruptOnParentDeath has no portable equivalent off Linux.
func interruptOnParentDeath() {}
