//go:build !unix

package host

import "syscall"

func pluginProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(int) {}
