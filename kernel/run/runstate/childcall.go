package runstate

// ChildCall is what a turn's skill call states for the child run it starts.
type ChildCall struct {
	// ChildAct is the act the call states for the child run; empty, a
	// child takes its parent's act.
	ChildAct string
	// ChildReuse is the call's reuse option; ReuseNote is what became of
	// it: the source reused, or why the call recomputed.
	ChildReuse *ReuseOption
	ReuseNote  *ReuseNote
	// TurnCall marks the run context of one call an agent turn makes: a
	// turn's own call never writes to store (floor).
	TurnCall bool
}

// ReuseOption is a skill call's reuse: {max_age_seconds}.
type ReuseOption struct {
	MaxAgeSeconds int64 `json:"max_age_seconds"`
}

// ReuseNote is what a call that asked for reuse records: the source it
// reused, or why it recomputed.
type ReuseNote struct {
	Status        string `json:"status"` // reused | recomputed
	MaxAgeSeconds int64  `json:"max_age_seconds"`
	// Reason and Message say why a call recomputed.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// Source is the sealed run a reused result is (or the candidate that
	// was passed over).
	Source *ReuseSource `json:"source,omitempty"`
	// Verified names the candidate's native reads of mutable local state
	// that were made again and matched.
	Verified []string `json:"verified,omitempty"`
}

// ReuseSource names a sealed run by its receipt.
type ReuseSource struct {
	RunID        string `json:"run_id"`
	ReceiptID    string `json:"receipt_id"`
	SignedDigest string `json:"signed_digest,omitempty"`
	// ObservedAt is the source's seal: a reused result keeps its original
	// observation stamp.
	ObservedAt string `json:"observed_at,omitempty"`
	AgeSeconds int64  `json:"age_seconds"`
}
