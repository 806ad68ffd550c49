//go:build linux && !amd64 && !386

package receipt

import "syscall"

// sysSyncfs is syncfs(2), which the syscall package names on these
// architectures.
const sysSyncfs = syscall.SYS_SYNCFS
