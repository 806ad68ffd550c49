// Package apierror reads the error document runx's own HTTP servers (the
// registry, the notary) answer a refusal with: {"error": {"code",
// "message"}}. A client maps the code to its own and scrubs the message.
package apierror

import (
	"encoding/json"
	"io"
	"net/http"
)

// Read reads at most limit bytes of resp's body as an error document and
// returns its code and message; either is empty when the body holds none.
func Read(resp *http.Response, limit int64) (code, message string) {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, limit))
	var doc struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(raw, &doc)
	return doc.Error.Code, doc.Error.Message
}
