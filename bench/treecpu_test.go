package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clockTicks is the unit of /proc/<pid>/stat's times (USER_HZ, 100 on
// Linux on every architecture runx is built for).
const clockTicks = 100

// treeCPU is the user and system time so far of this process and of its
// live children (the plugin processes a host started): the work a
// workload costs, whatever else the shared machine is running. Wall time
// on a loaded two-core machine says more about the load than the code.
func treeCPU(tb testing.TB) time.Duration {
	cpu := fsBenchCPU(tb)
	self := strconv.Itoa(os.Getpid())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// The fields after the command name, which may hold spaces, in
		// parentheses: state ppid ... utime (14th field) stime (15th).
		s := string(raw)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 || f[1] != self {
			continue
		}
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		cpu += time.Duration(utime+stime) * time.Second / clockTicks
	}
	return cpu
}

// reportTreeCPU adds cpu_MB/s: bytes moved per CPU second of the kernel
// and its plugins together. Their work is sequential per page, so this is
// about the wall throughput of an otherwise idle machine.
func reportTreeCPU(b *testing.B, bytesPerOp int64, cpu time.Duration) {
	if cpu > 0 {
		b.ReportMetric(float64(bytesPerOp)*float64(b.N)/1e6/cpu.Seconds(), "cpu_MB/s")
	}
}
