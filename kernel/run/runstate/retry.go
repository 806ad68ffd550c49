package runstate

import "encoding/json"

// The <step>/retry request: a person's {"retry": bool} on a call whose
// outcome nothing settles (a connector write custody cannot confirm, or a
// claimed call cut short). The engine and the connectors below it both
// open and read it.
const (
	// GateRetry marks a <step>/retry request's payload.
	GateRetry = "retry"
)

// IsRetryRequest reports whether a request's payload is a write's retry
// (<step>/retry), which takes value {"retry": bool}, not approved/reason.
func IsRetryRequest(payload json.RawMessage) bool {
	var p struct {
		Gate string `json:"gate"`
	}
	return json.Unmarshal(payload, &p) == nil && p.Gate == GateRetry
}
