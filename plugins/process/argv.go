package process

import (
	"fmt"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// The argv budget: what an exec can carry, refused before anything starts
// rather than failing in execve with E2BIG ("argument list too long").
const (
	// ArgvMaxArgBytes is Linux's own ceiling on one argument
	// (MAX_ARG_STRLEN, 32 pages).
	ArgvMaxArgBytes = 128 << 10
	// ArgvMaxBytes bounds the whole argv: half the usual 2 MiB ARG_MAX,
	// which the environment and the pointers share.
	ArgvMaxBytes = 1 << 20
)

// checkArgv refuses an argv no process can receive: a NUL byte (with code
// invalid, the caller's request code), or one over the argv budget.
func checkArgv(argv []string, invalid errcode.Code) *plugin.Result {
	total := 0
	for i, a := range argv {
		if strings.ContainsRune(a, 0) {
			return plugin.Refused(invalid, fmt.Sprintf("argv[%d] holds a NUL byte, which no process can receive", i))
		}
		if len(a) >= ArgvMaxArgBytes {
			return plugin.Refused(errcode.CommandArgvTooLarge, fmt.Sprintf("argv[%d] is %d bytes, over the %d byte ceiling on one argument (ArgvMaxArgBytes); pass large content in a file", i, len(a), ArgvMaxArgBytes-1))
		}
		total += len(a) + 1
	}
	if total > ArgvMaxBytes {
		return plugin.Refused(errcode.CommandArgvTooLarge, fmt.Sprintf("argv is %d bytes, over the %d byte argv budget (ArgvMaxBytes); pass large content in a file", total, ArgvMaxBytes))
	}
	return nil
}
