package journal

import "context"

type deferredKey struct{}

// Deferred marks a context whose transitions the journal commits without
// waiting for the disk: each is written to the WAL whole (synchronous=
// NORMAL, as every commit is), so a process that dies loses none of them,
// but only the next durable transition (the run's seal or pause), whose
// one sync of the WAL covers all of them (walsync.go), makes them durable
// against a power cut. A cut before that leaves a consistent
// earlier prefix (WAL frames are checksummed). The kernel defers only the
// transitions of a run that has no effect, which an operator can run
// again; a seal, a pause, a stop and a person's decision are always durable.
func Deferred(ctx context.Context) context.Context {
	return context.WithValue(ctx, deferredKey{}, true)
}

// undeferred is ctx with any deferral lifted: the transitions a host or
// person relies on (seal, pause, stop, decisions) wait for the disk.
func undeferred(ctx context.Context) context.Context {
	if deferred(ctx) {
		return context.WithValue(ctx, deferredKey{}, false)
	}
	return ctx
}

func deferred(ctx context.Context) bool {
	d, _ := ctx.Value(deferredKey{}).(bool)
	return d
}
