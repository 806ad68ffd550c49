package benchtmp

import (
	"sort"
	"testing"
	"time"
)

type latencies []time.Duration

func (l latencies) quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := append(latencies(nil), l...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1))]
}

func (l latencies) report(b *testing.B, unit time.Duration, suffix string) {
	b.ReportMetric(float64(l.quantile(0.5))/float64(unit), "p50_"+suffix)
	b.ReportMetric(float64(l.quantile(0.99))/float64(unit), "p99_"+suffix)
}
