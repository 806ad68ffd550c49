package cli

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/runxhq/runx/kernel/run"
)

// progressEvery is how often the progress line is redrawn at most: events
// between two draws only update what the next draw shows.
const progressEvery = 100 * time.Millisecond

// progressWidth bounds the progress line when the terminal's width is
// unknown, so it never wraps and defeats the overwrite.
const progressWidth = 80

// Progress shows what a run is doing on stderr while it works: the step
// running, a fan-out's items done of total, how long the step has taken
// and how long its call may still take, on one line overwritten in place. It shows nothing unless stderr
// is a terminal, and nothing with --json or --quiet. The returned stop
// clears the line; call it before printing anything else.
func (io *IO) Progress(ctx context.Context, asJSON bool) (context.Context, func()) {
	if asJSON || io.Quiet || !io.ErrTerminal {
		return ctx, func() {}
	}
	width := io.ErrWidth
	if width <= 0 {
		width = progressWidth
	}
	p := &progressLine{io: io, styled: io.StyledErr(), width: width - 1, quit: make(chan struct{}), ended: make(chan struct{})}
	go p.tick()
	var once sync.Once
	return run.WithProgress(ctx, p.event), func() { once.Do(p.stop) }
}

// progressLine is the state the progress line shows.
type progressLine struct {
	io     *IO
	styled bool
	width  int

	mu       sync.Mutex
	step     string    // the step running
	since    time.Time // when it started
	done     int       // a fan-out's items settled
	total    int       // a fan-out's items
	deadline time.Time // when the step's call waits no longer
	sealed   int       // steps sealed so far
	frame    int
	drawn    bool
	stopped  bool
	lastDraw time.Time
	quit     chan struct{}
	ended    chan struct{}
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (p *progressLine) event(e run.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return // the line is cleared for good
	}
	switch e.Event {
	case run.ProgressStepStarted:
		p.step, p.since, p.done, p.total, p.deadline = e.Address, time.Now(), 0, 0, time.Time{}
	case run.ProgressCallStarted:
		if e.Address == p.step {
			p.deadline = e.Deadline
		}
	case run.ProgressItemSettled:
		if e.Address == p.step {
			p.done, p.total = e.Done, e.Total
		}
	case run.ProgressStepSealed:
		p.sealed++
	}
	if time.Since(p.lastDraw) >= progressEvery {
		p.draw()
	}
}

// tick redraws the line (its spinner and the time taken) until stop.
func (p *progressLine) tick() {
	defer close(p.ended)
	t := time.NewTicker(progressEvery)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
			p.mu.Lock()
			if p.step != "" {
				p.draw()
			}
			p.mu.Unlock()
		}
	}
}

// draw writes the line over the last one; p.mu is held.
func (p *progressLine) draw() {
	if p.step == "" {
		return
	}
	p.frame++
	line := fmt.Sprintf("step %s", p.step)
	if p.total > 0 {
		line += fmt.Sprintf("  %d/%d items", p.done, p.total)
	}
	line += fmt.Sprintf("  %.1fs", time.Since(p.since).Seconds())
	if !p.deadline.IsZero() {
		line += fmt.Sprintf(" (times out in %s)", time.Until(p.deadline).Round(time.Second))
	}
	if p.sealed > 0 {
		line += fmt.Sprintf("  (%d sealed)", p.sealed)
	}
	line = truncate(line, p.width-2)
	fmt.Fprintf(p.io.Err, "\r\x1b[K%s %s", Paint(p.styled, "dim", spinner[p.frame%len(spinner)]), line)
	p.drawn, p.lastDraw = true, time.Now()
}

func (p *progressLine) stop() {
	close(p.quit)
	<-p.ended
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.io.Err, "\r\x1b[K")
	}
	p.stopped = true
}

// truncate cuts s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	if n < 1 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
