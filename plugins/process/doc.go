// Package process is the first-party plugin that runs process tools
// (`tool: {command: ...}` steps): exact argv with no shell, a working
// directory, only the environment the kernel delivers, input on stdin,
// a timeout and bounded output, with the whole process group killed on
// timeout or cancellation. It is trusted host code: runx supervises the
// process and records what happened, and claims no filesystem, network or
// syscall confinement.
//
// It imports the SDK only, never kernel packages.
package process
