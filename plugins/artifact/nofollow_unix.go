//go:build unix

package artifact

import "syscall"

// oNoFollow makes an open refuse a symbolic link at the path's end.
const oNoFollow = syscall.O_NOFOLLOW
