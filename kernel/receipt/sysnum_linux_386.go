package receipt

// sysSyncfs is syncfs(2); see sysnum_linux_amd64.go for why it is spelled out.
const sysSyncfs = 344
