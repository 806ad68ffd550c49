package receipt

// sysSyncfs is syncfs(2). The frozen syscall package has no SYS_SYNCFS on
// amd64 and 386, and this package may not import golang.org/x/sys, so the
// number is written here from the kernel's syscall table.
const sysSyncfs = 306
