//go:build !linux

package main

// dieWithDriver has no parent-death signal to arm outside Linux; the host's
// shutdown stops the plugin there.
func dieWithDriver(any) {}
