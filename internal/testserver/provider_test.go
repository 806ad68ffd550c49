package testserver

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

func post(t *testing.T, p *Provider, key, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.URL+"/v1/messages", bytes.NewBufferString(body))
	req.Header.Set("Idempotency-Key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw)
}

// The provider enforces its idempotency keys as a hosted API does: one
// commit per key, a replay of the same body, 409 while the first is in
// flight, 422 for another body under the key.
func TestProviderIdempotencyKeys(t *testing.T) {
	p := StartProvider(t)
	body := `{"to":"ada@example.com","text":"hi"}`
	if code, out := post(t, p, "k1", body); code != http.StatusCreated || out != `{"id":"msg_1","to":"ada@example.com","text":"hi","status":"sent"}` {
		t.Fatalf("create: %d %s", code, out)
	}
	if code, _ := post(t, p, "k1", body); code != http.StatusCreated || len(p.Messages()) != 1 {
		t.Fatalf("a replay must return the first answer and commit nothing: %d %v", code, p.Messages())
	}
	if code, out := post(t, p, "k1", `{"to":"ada@example.com","text":"changed"}`); code != http.StatusUnprocessableEntity {
		t.Fatalf("another body under a used key: %d %s", code, out)
	}

	holding := p.Hold()
	done := make(chan int)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, p.URL+"/v1/messages", bytes.NewBufferString(body))
		req.Header.Set("Idempotency-Key", "k2")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- 0
			return
		}
		res.Body.Close()
		done <- res.StatusCode
	}()
	<-holding
	if code, _ := post(t, p, "k2", body); code != http.StatusConflict {
		t.Fatalf("a key in flight: %d", code)
	}
	p.Release()
	if code := <-done; code != http.StatusCreated {
		t.Fatalf("the held request: %d", code)
	}
	res, err := http.Get(p.URL + "/v1/messages/msg_2")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("readback: %v %v", res, err)
	}
	res.Body.Close()
	if p.Requests("POST /v1/messages") != 5 || p.Requests("GET /v1/messages/{id}") != 1 {
		t.Fatalf("request counts %v", p.requests)
	}
	if code, _ := post(t, p, "k3", `{"to":"x@refused.invalid","text":"no"}`); code != http.StatusBadRequest {
		t.Fatalf("a refused recipient: %d", code)
	}
}
