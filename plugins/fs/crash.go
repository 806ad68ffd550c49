package fs

import "os"

// CrashEnv names the variable a test sets to kill the plugin process at a
// named point, proving that what the journal records is enough to put the
// workspace back. The kernel passes it through to plugins; nothing in
// runx sets it, and unset it costs one getenv per change.
const CrashEnv = "RUNX_TEST_CRASH_AT"

// CrashBetweenRenames kills the process right after the first rename of a
// change of two or more files: the workspace then holds part of a bundle
// and its journal says begun.
const CrashBetweenRenames = "fs_between_renames"

// crashExitCode is what a process killed by SIGKILL reports to its parent
// (128 + 9), so a kernel sees this exit as the crash it stands in for.
const crashExitCode = 137

func crashArmed(point string) bool { return os.Getenv(CrashEnv) == point }

// crash exits at once: no deferred call runs and no lock is released except
// by the operating system, as in a real crash.
func crash() { os.Exit(crashExitCode) }
