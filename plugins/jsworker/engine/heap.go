package engine

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// The runtime metrics the watchdog reads. goja keeps every JavaScript value
// on the Go heap, so the heap's growth during a call is the call's
// JavaScript heap, plus whatever else the process allocates meanwhile.
const (
	// objectsMetric is the bytes of heap objects, live or not yet swept.
	objectsMetric = "/memory/classes/heap/objects:bytes"
	// liveMetric is the bytes the last completed collection found live.
	liveMetric = "/gc/heap/live:bytes"
	// cyclesMetric counts completed collections.
	cyclesMetric = "/gc/cycles/total:gc-cycles"
	// gogcMetric is GOGC; collection off reads as a huge value.
	gogcMetric = "/gc/gogc:percent"
)

// confirmInterval is the least time between two collections one call's
// watchdog forces.
const confirmInterval = 50 * time.Millisecond

// heapMeter measures one call's heap growth against a baseline taken when
// the call started. The measure is process-wide: calls running at the same
// time in one process are charged for each other's allocations, so a host
// that needs the ceiling to be exact runs one call per process at a time.
//
// A sample of the heap counts garbage as well as live objects, so a module
// churning short-lived objects could cross the ceiling with a small live
// set. The watchdog therefore decides on live bytes, from three sources:
//
//   - The collector's own count: when a collection has completed since the
//     call started, its live bytes are exact as of its end. A module growing
//     its heap triggers collections as it grows, at no cost to the watchdog.
//   - A forced collection, when the sample is over the ceiling but the
//     collector has not run lately. It runs on a goroutine of its own, so
//     the watchdog keeps answering the deadline meanwhile, and at most every
//     confirmInterval, so a module hovering near the ceiling does not keep
//     the collector busy.
//   - Certainty: the collector starts a cycle once the heap reaches
//     live × (1 + GOGC/100), so while the call's live heap stays under the
//     ceiling the heap cannot exceed (base + MaxHeapBytes) × (1 + GOGC/100),
//     plus a tenth for what is allocated while a cycle runs. Past that the
//     call is stopped without waiting for a collection; a module doubling a
//     string makes every doubling one long copy a collection must wait for.
type heapMeter struct {
	base      uint64 // heap objects at the start
	baseLive  uint64 // live bytes of the last collection before the start
	cycles    uint64 // collections completed before the start
	certain   uint64 // heap objects past which the call is certainly over; 0 when GOGC is off
	sample    []metrics.Sample
	confirmed chan uint64 // growth after a forced collection
	pending   bool
	collected time.Time
}

func newHeapMeter() *heapMeter {
	m := &heapMeter{
		sample:    []metrics.Sample{{Name: objectsMetric}, {Name: liveMetric}, {Name: cyclesMetric}, {Name: gogcMetric}},
		confirmed: make(chan uint64, 1),
	}
	metrics.Read(m.sample)
	m.base, m.baseLive, m.cycles = value(m.sample[0]), value(m.sample[1]), value(m.sample[2])
	if percent := value(m.sample[3]); m.sample[3].Value.Kind() == metrics.KindUint64 && percent <= 10000 {
		m.certain = (m.base + MaxHeapBytes) * (100 + percent) / 100 * 11 / 10
	}
	m.sample = m.sample[:3]
	return m
}

// value reads a uint64 metric; one missing from this Go release reads as 0,
// which disarms the checks that use it rather than firing them.
func value(s metrics.Sample) uint64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s.Value.Uint64()
}

func over(now, base uint64) (uint64, bool) {
	if now <= base {
		return 0, false
	}
	return now - base, now-base > MaxHeapBytes
}

// poll samples the heap and reports the call over the ceiling when that is
// known; when it only may be, it starts a confirming collection whose
// result arrives on m.confirmed.
func (m *heapMeter) poll() (uint64, bool) {
	metrics.Read(m.sample)
	objects, live, cycles := value(m.sample[0]), value(m.sample[1]), value(m.sample[2])
	if m.certain > 0 && objects > m.certain {
		return objects - m.base, true
	}
	if cycles > m.cycles {
		if grown, isOver := over(live, m.baseLive); isOver {
			return grown, true
		}
	}
	if _, mayBe := over(objects, m.base); !mayBe || m.pending || time.Since(m.collected) < confirmInterval {
		return 0, false
	}
	m.pending = true
	go func() {
		runtime.GC()
		m.confirmed <- m.growthNow()
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

// growthNow reads the heap's growth with a sample slice of its own: it runs
// on the collecting goroutine while the watchdog may be reading m.sample.
func (m *heapMeter) growthNow() uint64 {
	s := []metrics.Sample{{Name: objectsMetric}}
	metrics.Read(s)
	grown, _ := over(value(s[0]), m.base)
	return grown
}

// final checks a finished call: a spike between two samples is still
// caught, and confirmed synchronously since the call is over.
func (m *heapMeter) final() (uint64, bool) {
	if _, mayBe := over(m.growthNow()+m.base, m.base); !mayBe {
		return 0, false
	}
	runtime.GC()
	grown := m.growthNow()
	return grown, grown > MaxHeapBytes
}
