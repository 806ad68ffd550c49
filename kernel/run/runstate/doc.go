// Package runstate holds the run's state in named parts, so that the
// concerns below the engine (connectors and money, native tools, turns and
// calls) can take the part they need without importing kernel/run: the
// tree a run belongs to (its budgets, spend and place), the authority in
// force, the options a child call states, and the journal records a run
// drives through.
//
// The engine's run context holds these parts embedded; this package holds
// no I/O and imports nothing of the engine: only the standard library and
// the packages whose values it holds (kernel/authority, kernel/journal).
package runstate
