package run

import (
	"context"
	"fmt"

	"github.com/runxhq/runx/kernel/host"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/receipt"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// The kernel's own records and plugin host stay behind it: a caller outside
// this package reads one run's record, appends one event or calls one
// capability through the methods below, named for what it does, and never
// holds the whole store, journal or host.

// RunRecord is one run's record in the journal.
func (k *Kernel) RunRecord(ctx context.Context, runID string) (*journal.Run, error) {
	return k.journal.GetRun(ctx, runID)
}

// RunEvents are a run's events after the sequence number after (0 for all),
// in order.
func (k *Kernel) RunEvents(ctx context.Context, runID string, after int64) ([]journal.Event, error) {
	return k.journal.Events(ctx, runID, after)
}

// RecordEvent appends one event of type typ to a run's stream.
func (k *Kernel) RecordEvent(ctx context.Context, runID, stream, typ string, data any) error {
	return k.journal.AppendEvent(ctx, runID, stream, typ, data)
}

// Receipt is one receipt of the kernel's store and its signed bytes.
func (k *Kernel) Receipt(id string) (*receipt.Receipt, []byte, error) {
	return k.store.Get(id)
}

// KeepReceipts copies every receipt of another store (a test's scratch
// store) into the kernel's own, roots as roots.
func (k *Kernel) KeepReceipts(from *receipt.Store) error {
	entries, err := from.Index()
	if err != nil {
		return err
	}
	for _, e := range entries {
		rec, raw, err := from.Get(e.ReceiptID)
		if err == nil {
			if e.Root {
				err = k.store.PutRoot(rec, raw)
			} else {
				err = k.store.Put(rec, raw)
			}
		}
		if err != nil {
			return fmt.Errorf("keep receipt %s: %w", e.ReceiptID, err)
		}
	}
	return nil
}

// PluginDefinition is a capability's description as its plugin answers
// Describe; unlike ToolDefinition it knows no tool the kernel answers
// itself.
func (k *Kernel) PluginDefinition(ctx context.Context, capability string) (*sdk.Definition, host.PluginRef, error) {
	return k.host.Definition(ctx, capability)
}

// DescribePlugin starts the named plugin, if it is not running, through
// the same discovery, pin check and handshake a run's call would, and
// returns its description.
func (k *Kernel) DescribePlugin(ctx context.Context, name string) (*sdk.Info, host.PluginRef, error) {
	return k.host.Describe(ctx, name)
}

// Invoke calls one capability through the kernel's plugin host, outside
// any run (a command acting as the person), its answer bounded by
// maxOutput bytes.
func (k *Kernel) Invoke(ctx context.Context, call *sdk.Call, maxOutput int64) (*sdk.Result, host.PluginRef, error) {
	return k.host.Invoke(ctx, call, maxOutput)
}

// Invoker is the kernel's plugin host as the engine calls it, for a runner
// (runx test) that stands in front of it.
func (k *Kernel) Invoker() Invoker { return k.host }

// StopPlugins stops every plugin the kernel started, leaving its records
// open (an interrupt's cleanup; Close does both).
func (k *Kernel) StopPlugins() { k.host.Close() }

// JournalForTest is the kernel's journal, for a test in another package
// that asserts on records no caller reads (the file log, a run's children,
// its drive). Code outside tests reads through the methods above.
func (k *Kernel) JournalForTest() *journal.Journal { return k.journal }

// PluginPidForTest is the process id of a running plugin, 0 when it is not
// running, for a test that watches a plugin's lifecycle.
func (k *Kernel) PluginPidForTest(name string) int { return k.host.Pid(name) }
