package runstate

// The <step>/retry request: a person's {"retry": bool} on a call whose
// outcome nothing settles (a connector write custody cannot confirm, or a
// claimed call cut short). The engine and the connectors below it both
// open and read it.
const (
	// GateRetry marks a <step>/retry request's payload.
	GateRetry = "retry"
)
