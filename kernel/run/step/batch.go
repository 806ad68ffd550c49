package step

import (
	"context"
	"strings"
	"sync"

	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
)

// BatchedItems reports whether a fan-out of step commits its items'
// records in batches: its units change nothing (deterministic modules).
// Items that may act keep a durable record each.
func BatchedItems(step *pkg.Step) bool {
	return step.Kind == pkg.KindModule
}

// Batch group-commits the records of a fan-out's effect-free items: one
// that a crash leaves unrecorded runs again, which is harmless.
type Batch struct {
	journal *journal.Journal
	prefix  string
	mu      sync.Mutex
	pending []*journal.Step
}

// NewBatch is the batch of the units whose address starts with prefix.
func NewBatch(j *journal.Journal, prefix string) *Batch {
	return &Batch{journal: j, prefix: prefix}
}

// batchSize bounds how many settled items wait for one commit.
const batchSize = 128

// Add keeps a settled item's record, committing the batch once it is full.
func (b *Batch) Add(ctx context.Context, rec *journal.Step) error {
	b.mu.Lock()
	b.pending = append(b.pending, rec)
	full := len(b.pending) >= batchSize
	b.mu.Unlock()
	if full {
		return b.Flush(durable(ctx))
	}
	return nil
}

// Flush commits what the batch keeps.
func (b *Batch) Flush(ctx context.Context) error {
	b.mu.Lock()
	recs := b.pending
	b.pending = nil
	b.mu.Unlock()
	return b.journal.RecordSteps(ctx, recs)
}

// Batching is the batch a run's units belong to while a fan-out of
// effect-free items runs. The zero value batches nothing.
type Batching struct {
	mu    sync.Mutex
	batch *Batch
}

// For is the batch a unit at local belongs to, if any.
func (s *Batching) For(local string) *Batch {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batch != nil && strings.HasPrefix(local, s.batch.prefix) {
		return s.batch
	}
	return nil
}

// Set makes b the batch (nil: none).
func (s *Batching) Set(b *Batch) {
	s.mu.Lock()
	s.batch = b
	s.mu.Unlock()
}

func durable(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }
