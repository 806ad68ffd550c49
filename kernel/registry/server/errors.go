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

// statusOf is the HTTP status of a typed error from kernel/registry or the
// store: sizes are 413, everything else the caller sent is 400.
func statusOf(code errcode.Code) int {
	switch code {
	case errcode.RegistryPackageTooLarge, errcode.RegistryFileTooLarge, errcode.RegistryTooManyFiles, errcode.RegistryRequestTooLarge:
		return http.StatusRequestEntityTooLarge
	case errcode.RegistryTokenInvalid:
		return http.StatusUnauthorized
	case errcode.RegistryNamespaceNotOwned:
		return http.StatusForbidden
	case errcode.RegistryNotFound:
		return http.StatusNotFound
	case errcode.RegistryVersionExists:
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

// errorBody is the one error document: {"error":{"code","message"}}.
type errorBody struct {
	Error contract.ErrorBody `json:"error"`
}

// fail answers err. A typed error is the caller's to read; anything else is
// the server's own failure, logged and answered without its detail, which
// could name the store's internals.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	var coded contract.Coded
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &coded) && coded.ErrorCode() != errcode.InternalError:
		ae = &apiError{status: statusOf(coded.ErrorCode()), code: coded.ErrorCode(), message: coded.Error()}
	default:
		s.logf("registry: %s %s: %v", r.Method, r.URL.Path, err)
		ae = &apiError{status: http.StatusInternalServerError, code: errcode.RegistryServerError,
			message: "the registry could not answer; its operator finds the cause in the server's log"}
	}
	writeJSON(w, ae.status, errorBody{Error: contract.ErrorBody{Code: ae.code, Message: ae.message}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"error":{"code":"` + string(errcode.RegistryServerError) + `","message":"the answer did not encode"}}`)
	}
	setJSONHeaders(w)
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

func setJSONHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}
