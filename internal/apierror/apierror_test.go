package apierror

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func response(body string) *http.Response {
	return &http.Response{Body: io.NopCloser(strings.NewReader(body))}
}

// The code and message come from the error document; a body that is not
// one gives neither, and nothing past the limit is read.
func TestRead(t *testing.T) {
	if code, msg := Read(response(`{"error":{"code":"registry_token_revoked","message":"revoked"}}`), 1<<10); code != "registry_token_revoked" || msg != "revoked" {
		t.Fatalf("got %q %q", code, msg)
	}
	if code, msg := Read(response(`<html>bad gateway</html>`), 1<<10); code != "" || msg != "" {
		t.Fatalf("a body that is no error document: %q %q", code, msg)
	}
	long := `{"error":{"code":"x_y","message":"` + strings.Repeat("a", 100) + `"}}`
	if code, _ := Read(response(long), 20); code != "" {
		t.Fatalf("read past its limit: %q", code)
	}
}
