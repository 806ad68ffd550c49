package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// apiError is a refusal the API answers with its HTTP status.
type apiError struct {
	status  int
	code    errcode.Code
	message string
}

func (e *apiError) Error() string { return e.message }

func refuse(status int, code errcode.Code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

// errorBody is the one error document: {"error":{"code","message"}}.
type errorBody struct {
	Error contract.ErrorBody `json:"error"`
}

// fail answers err. A typed error is the caller's to read (a receipt
// refused is 400); anything else is the server's own failure, logged and
// answered without its detail.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	var coded contract.Coded
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &coded) && coded.ErrorCode() != errcode.InternalError && coded.ErrorCode() != errcode.NotaryStoreInvalid:
		ae = &apiError{status: http.StatusBadRequest, code: coded.ErrorCode(), message: coded.Error()}
	default:
		s.logf("notary: %s %s: %v", r.Method, r.URL.Path, err)
		ae = &apiError{status: http.StatusInternalServerError, code: errcode.NotaryServerError,
			message: "the notary could not answer; its operator finds the cause in the server's log"}
	}
	writeJSON(w, ae.status, errorBody{Error: contract.ErrorBody{Code: ae.code, Message: ae.message}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"error":{"code":"` + string(errcode.NotaryServerError) + `","message":"the answer did not encode"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
