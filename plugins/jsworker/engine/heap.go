package engine

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// confirmInterval is the least time between two forced collections of one
// call's watchdog.
const confirmInterval = 50 * time.Millisecond

// heapMetric is the bytes of live and not-yet-swept heap objects. goja keeps
// every JavaScript value on the Go heap, so the growth of this number during
// a call is the call's JavaScript heap, plus whatever else the process
// allocates at the same time (see heapMeter).
const heapMetric = "/memory/classes/heap/objects:bytes"

// heapMeter measures one call's heap growth against a baseline taken when
// the call started. The measure is process-wide: calls running at the same
// time in one process are charged for each other's allocations, so a host
// that needs the ceiling to be exact runs one call per process at a time.
type heapMeter struct {
	base      uint64
	sample    []metrics.Sample
	collected time.Time // when exceeded last forced a collection
}

func newHeapMeter() *heapMeter {
	m := &heapMeter{sample: []metrics.Sample{{Name: heapMetric}}}
	m.base = m.read()
	return m
}

func (m *heapMeter) read() uint64 {
	metrics.Read(m.sample)
	if m.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0 // the metric is missing in this Go release; the watchdog then never fires
	}
	return m.sample[0].Value.Uint64()
}

// growth is the heap growth since the baseline, in bytes.
func (m *heapMeter) growth() uint64 {
	now := m.read()
	if now <= m.base {
		return 0
	}
	return now - m.base
}

// exceeded reports whether the call holds more than MaxHeapBytes. The cheap
// sample counts garbage too, so a module that churns short-lived objects
// could trip it with a small live set; a sample over the ceiling is
// therefore confirmed after a forced collection, and only live memory
// fails the call. The collection runs on the watchdog goroutine, never on
// the VM's, only when the cheap sample is already over, and at most every
// confirmInterval, so a module hovering near the ceiling does not turn the
// watchdog into a collector running every few milliseconds.
// A final check (force) confirms regardless of the interval.
func (m *heapMeter) exceeded(force bool) (uint64, bool) {
	g := m.growth()
	if g <= MaxHeapBytes || !force && time.Since(m.collected) < confirmInterval {
		return g, false
	}
	runtime.GC()
	m.collected = time.Now()
	g = m.growth()
	return g, g > MaxHeapBytes
}
