package engine

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// gogcMetric is the collector's GOGC setting, negative when collection is off.
const gogcMetric = "/gc/gogc:percent"

// heapMetric is the bytes of live and not-yet-swept heap objects. goja keeps
// every JavaScript value on the Go heap, so the growth of this number during
// a call is the call's JavaScript heap, plus whatever else the process
// allocates at the same time (see heapMeter).
const heapMetric = "/memory/classes/heap/objects:bytes"

// confirmInterval is the least time between two collections one call's
// watchdog forces.
const confirmInterval = 50 * time.Millisecond

// heapMeter measures one call's heap growth against a baseline taken when
// the call started. The measure is process-wide: calls running at the same
// time in one process are charged for each other's allocations, so a host
// that needs the ceiling to be exact runs one call per process at a time.
//
// A sample counts garbage as well as live objects, so a module churning
// short-lived objects could cross the ceiling with a small live set. A
// sample over the ceiling is therefore confirmed by a forced collection, run
// on a goroutine of its own so the watchdog keeps answering the deadline
// while it runs, and at most every confirmInterval so a module hovering near
// the ceiling does not keep the collector running.
//
// A sample far over the ceiling needs no confirmation. The collector starts a
// cycle once the heap reaches its goal, live × (1 + GOGC/100), so while the
// call's live heap stays under the ceiling the heap cannot exceed
// (base + MaxHeapBytes) × (1 + GOGC/100), with a tenth more for what the
// mutator allocates while a cycle runs. Past that bound the call is stopped
// at once, which matters for a module doubling a string: every doubling is
// one long copy the collector has to wait for.
type heapMeter struct {
	base      uint64
	certain   uint64 // the heap above which no confirmation is needed; 0 when GOGC is off
	sample    []metrics.Sample
	confirmed chan uint64 // growth after a forced collection
	pending   bool
	collected time.Time
}

func newHeapMeter() *heapMeter {
	m := &heapMeter{sample: []metrics.Sample{{Name: heapMetric}}, confirmed: make(chan uint64, 1)}
	m.base = m.read()
	gogc := []metrics.Sample{{Name: gogcMetric}}
	metrics.Read(gogc)
	if gogc[0].Value.Kind() == metrics.KindUint64 {
		// The metric is a uint64 that holds a negative GOGC (off) as a huge value.
		if percent := gogc[0].Value.Uint64(); percent <= 10000 {
			m.certain = (m.base + MaxHeapBytes) * (100 + percent) / 100 * 11 / 10
		}
	}
	return m
}

func (m *heapMeter) read() uint64 {
	metrics.Read(m.sample)
	if m.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0 // the metric is missing from this Go release; the watchdog never fires
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

// poll reads the heap. Over the certain bound it reports the call over the
// ceiling; over the ceiling it starts a confirming collection whose result
// arrives on m.confirmed.
func (m *heapMeter) poll() (uint64, bool) {
	now := m.read()
	if m.certain > 0 && now > m.certain {
		return now - m.base, true
	}
	if m.pending || now <= m.base+MaxHeapBytes || time.Since(m.collected) < confirmInterval {
		return 0, false
	}
	m.pending = true
	go func() {
		runtime.GC()
		m.confirmed <- m.growthAfterCollection()
	}()
	return 0, false
}

// confirm records a confirming collection's result and reports whether the
// live heap is over the ceiling.
func (m *heapMeter) confirm(grown uint64) bool {
	m.pending = false
	m.collected = time.Now()
	return grown > MaxHeapBytes
}

// growthAfterCollection reads the heap with its own sample slice, because it
// runs on the collecting goroutine while the watchdog may read m.sample.
func (m *heapMeter) growthAfterCollection() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[0].Value.Uint64() <= m.base {
		return 0
	}
	return s[0].Value.Uint64() - m.base
}

// final checks a finished call: a spike between two samples is still
// caught, and confirmed synchronously since the call is over.
func (m *heapMeter) final() (uint64, bool) {
	if g := m.growth(); g <= MaxHeapBytes {
		return g, false
	}
	runtime.GC()
	g := m.growth()
	return g, g > MaxHeapBytes
}
