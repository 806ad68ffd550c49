package process

import (
	"sync"
	"syscall"
	"time"

	"github.com/runxhq/runx/sdk/plugin"
)

// registry tracks the process running under each call, so a Cancel by call
// id reaches the right process group. Its zero value is ready to use.
type registry struct {
	mu      sync.Mutex
	running map[string]*supervised
}

// track registers a new supervised process under callID ("" tracks
// nothing) and returns the function that forgets it.
func (r *registry) track(callID string) (*supervised, func()) {
	sup := &supervised{}
	if callID == "" {
		return sup, func() {}
	}
	r.mu.Lock()
	if r.running == nil {
		r.running = map[string]*supervised{}
	}
	r.running[callID] = sup
	r.mu.Unlock()
	return sup, func() {
		r.mu.Lock()
		delete(r.running, callID)
		r.mu.Unlock()
	}
}

// Cancel stops a running process's group; the call then reports how the
// process actually ended, as an effect in flight must.
func (r *registry) Cancel(callID string) string {
	r.mu.Lock()
	sup := r.running[callID]
	r.mu.Unlock()
	if sup == nil {
		return plugin.CancelUnknownRun
	}
	sup.stop()
	return plugin.CancelRunsToEnd
}

// Both plugins of this package keep their processes in groups of their own,
// which the sdk's Serve has them kill when their driver dies.
var (
	_ plugin.ProcessStopper = (*Plugin)(nil)
	_ plugin.ProcessStopper = (*Command)(nil)
)

// StopAll kills every process group the plugin supervises, at once: the
// plugin is going away because its driver did, and nothing it started may
// outlive that driver.
func (r *registry) StopAll() {
	r.mu.Lock()
	running := make([]*supervised, 0, len(r.running))
	for _, sup := range r.running {
		running = append(running, sup)
	}
	r.mu.Unlock()
	for _, sup := range running {
		sup.signal(syscall.SIGKILL)
	}
}

// Drain ends every process group the plugin supervises when the plugin is
// shut down (the kernel closing it, an interrupt among them): each is sent
// TERM, and what is left after grace is killed, before the plugin exits,
// so a process that ignores TERM is never left behind.
func (r *registry) Drain(grace time.Duration) {
	r.mu.Lock()
	running := make([]*supervised, 0, len(r.running))
	for _, sup := range r.running {
		running = append(running, sup)
	}
	r.mu.Unlock()
	for _, sup := range running {
		sup.signal(syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		left := len(r.running)
		r.mu.Unlock()
		if left == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.StopAll()
}
