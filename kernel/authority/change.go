package authority

import (
	"strconv"
	"strings"
)

// ChangeKind is what a step or call would change, as the floor sees it.
type ChangeKind string

const (
	// ChangeNone changes nothing: a read, a pure computation, an ask. An
	// append of the person's exact words to a said: stream on private is
	// also no change (the term the host grants on private decides it), so
	// callers pass it as ChangeNone.
	ChangeNone ChangeKind = "none"
	// ChangeEdit changes workspace files (fs.edit, fs.write,
	// fs.apply_bundle, runx.skill.apply).
	ChangeEdit ChangeKind = "edit"
	// ChangeCommand runs a process to its end: command.execute, a catalog
	// tool runx runs as a process, a workflow's process step, or a read a
	// connector's process carries out from a connector nobody verified or
	// trusted, since that read is only its author's promise.
	ChangeCommand ChangeKind = "command"
	// ChangeProcessStart starts a process that outlives the call; the floor
	// holds it on its argv like a command.
	ChangeProcessStart ChangeKind = "process_start"
	// ChangeOperationWrite is a connector operation that writes, purchases
	// included (what it may spend is the spend limit's question).
	ChangeOperationWrite ChangeKind = "operation_write"
	// ChangeStoreWrite writes to a store stream.
	ChangeStoreWrite ChangeKind = "store_write"
)

// Change describes what one step or call would do, for the floor.
type Change struct {
	Kind ChangeKind `json:"kind"`
	// Paths are the workspace-relative, slash-separated files an edit
	// changes; nil when they are not known yet (inspection before the
	// inputs that name them exist), in which case only a local standing
	// approval can cover it.
	Paths []string `json:"paths,omitempty"`
	// Argv is a command's or process start's complete argv; nil when not
	// known yet.
	Argv []string `json:"argv,omitempty"`
	// Operation is <connector>/<operation> for an operation write.
	Operation string `json:"operation,omitempty"`
	// OwnApproval is set when the change carries an approval of its own:
	// its operation's declared approval or its step's approval. The floor
	// then adds none, and no standing approval answers it.
	OwnApproval bool `json:"own_approval,omitempty"`
	// OwnStore is set for a store write to the package's own store state,
	// which is exempt under ask.
	OwnStore bool `json:"own_store,omitempty"`
	// FromTurn is set when an agent turn's own call makes the change; a
	// turn never writes to store, at any effects.
	FromTurn bool `json:"from_turn,omitempty"`
}

// local reports whether the change is a local effect (a local standing
// approval covers it and its gate is of type tool) rather than a provider's.
func (c Change) local() bool { return c.Kind != ChangeOperationWrite }

// describe says what the change is, for messages: enough to recognise it,
// bounded so a bundle of many files does not flood a refusal.
func (c Change) describe() string {
	switch c.Kind {
	case ChangeEdit:
		if c.Paths == nil {
			return "an edit of files not yet known"
		}
		return "an edit of " + quoteList(c.Paths, 3)
	case ChangeCommand:
		return "the command " + argvString(c.Argv)
	case ChangeProcessStart:
		return "starting the process " + argvString(c.Argv)
	case ChangeOperationWrite:
		return "a write by operation " + strconv.Quote(c.Operation)
	case ChangeStoreWrite:
		if c.OwnStore {
			return "a write to the package's own store state"
		}
		return "a store write"
	}
	return "a change of kind " + strconv.Quote(string(c.Kind))
}

func argvString(argv []string) string {
	if argv == nil {
		return "not yet known"
	}
	return "[" + quoteList(argv, 8) + "]"
}

// quoteList quotes up to max items and counts the rest.
func quoteList(items []string, max int) string {
	var b strings.Builder
	for i, s := range items {
		if i == max {
			b.WriteString(" and " + strconv.Itoa(len(items)-max) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(s))
	}
	return b.String()
}
