// Package process holds the first-party plugins that run processes under
// supervision (supervise.go): exact argv with no shell, a working
// directory, only the environment the kernel delivers, a timeout and
// bounded output, with the whole process group killed on timeout or
// cancellation. It is trusted host code: runx supervises the process and
// records what happened, and claims no filesystem, network or syscall
// confinement.
//
// Two plugins share it: "process" serves process.run for process tools
// (`tool: {command: ...}` steps), whose stdout is their JSON answer; and
// "command" serves command.execute (command.go), a command run in the
// workspace, its directory contained by the fs tools' rules, its output
// kept whole up to a bound and recorded as a process of kind command.
//
// It imports the SDK and the fs plugin's containment, never kernel
// packages.
package process
