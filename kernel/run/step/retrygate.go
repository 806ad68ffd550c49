package step

import (
	"encoding/json"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// CheckRetryValue admits only {"retry": true} or {"retry": false} for a
// retry request, so a misshapen decision is refused at resume and changes
// nothing, rather than failing the step.
func CheckRetryValue(addr string, value json.RawMessage) error {
	var v map[string]json.RawMessage
	var b bool
	if json.Unmarshal(value, &v) != nil || len(v) != 1 || json.Unmarshal(v["retry"], &b) != nil {
		return contract.Errorf(errcode.ResumeEntryInvalid, "%s is a write's retry: it takes value {\"retry\": true} (send it again under the same key) or {\"retry\": false}; nothing was changed", addr)
	}
	return nil
}
