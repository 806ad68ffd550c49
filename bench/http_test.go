package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/host"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// BenchmarkHTTPOperation is one connector operation round trip through
// plugins/http (the kernel's dispatch to the plugin process, rendering,
// the request to a loopback provider, its JSON answer, the typed result)
// beside the same request made with a raw net/http client. Each plugin
// call is interleaved with its raw counterpart so both see the same load;
// overhead_x is the ratio of their medians (target: within 1.3x).
func BenchmarkHTTPOperation(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		w.Write([]byte(`{"id":"p1","title":"hello"}`))
	}))
	defer srv.Close()
	root := b.TempDir()
	s, err := host.NewSupervisor(host.Config{Discovery: &host.Discovery{Self: filepath.Join(binDir, "runx"), FirstParty: map[string]bool{"http": true}, ProjectDir: filepath.Join(root, ".runx"), HomeDir: filepath.Join(root, "home")}, RunxVersion: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	binding, _ := json.Marshal(sdk.ConnectorBinding{
		Connector: "forge", Version: "1.0.0", Operation: "post.create", Verb: "write", BaseURL: srv.URL,
		Credential:        &sdk.ConnectorCredential{Variable: "FORGE_TOKEN", Header: "Authorization", Scheme: "Bearer"},
		Request:           sdk.RequestTemplate{Method: "POST", Path: "/boards/{board}/posts", Body: map[string]any{"title": "$input.title"}},
		IdempotencyHeader: "Idempotency-Key",
	})
	call := &sdk.Call{Capability: "http.request", Input: []byte(`{"board":"general","title":"hello"}`), Context: sdk.Context{
		Binding: binding, Credentials: map[string]string{"FORGE_TOKEN": "t"}, IdempotencyKey: "runx-bench",
	}}
	viaPlugin := func() {
		res, _, err := s.Invoke(context.Background(), call, 0)
		if err != nil || res.Status != sdk.StatusOK {
			b.Fatalf("%v %+v", err, res)
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	raw := func() {
		req, _ := http.NewRequest("POST", srv.URL+"/boards/general/posts", bytes.NewReader([]byte(`{"title":"hello"}`)))
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Idempotency-Key", "runx-bench")
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var v any
		if json.Unmarshal(body, &v) != nil || resp.StatusCode != 201 {
			b.Fatal("raw call failed")
		}
	}
	viaPlugin() // start the plugin process and warm both connections
	raw()
	op, base := make(latencies, 0, b.N), make(latencies, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		viaPlugin()
		op = append(op, time.Since(t))
		t = time.Now()
		raw()
		base = append(base, time.Since(t))
	}
	b.StopTimer()
	op.report(b, time.Microsecond, "us")
	b.ReportMetric(float64(base.quantile(0.5))/float64(time.Microsecond), "raw_p50_us")
	b.ReportMetric(float64(base.quantile(0.99))/float64(time.Microsecond), "raw_p99_us")
	b.ReportMetric(float64(op.quantile(0.5))/float64(base.quantile(0.5)), "overhead_x")
}
