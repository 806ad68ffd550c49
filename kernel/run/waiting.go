package run

import (
	"encoding/json"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/run/readmodel"
)

// The read model's names, as the front door gives them.
type (
	RunRead         = readmodel.RunRead
	AnsweredRequest = readmodel.AnsweredRequest
	RunEvent        = readmodel.RunEvent
)

const (
	RunReadSchema           = readmodel.RunReadSchema
	EventAnswerRefused      = readmodel.EventAnswerRefused
	RequestPayloadInlineMax = readmodel.RequestPayloadInlineMax
)

// readModel reads what this engine's runs recorded, a shown payload
// passing the receipt boundary first.
func readModel(e *engine) *readmodel.Reader {
	return &readmodel.Reader{Journal: e.Journal, ProjectDir: e.ProjectDir, Scrub: e.sealer().ScrubResult}
}

// presentWaiting presents what runs wait on as a host is shown them, each
// request from the run that asks it (readmodel.Reader.PresentWaiting).
func (e *engine) presentWaiting(waiting []pending) ([]contract.Request, error) {
	w := make([]readmodel.Waiting, len(waiting))
	for i, p := range waiting {
		w[i] = readmodel.Waiting{Request: p.Request, RunID: p.RunID, Local: p.Local}
	}
	return readModel(e).PresentWaiting(w)
}

func payloadDigest(raw json.RawMessage) string { return readmodel.PayloadDigest(raw) }
