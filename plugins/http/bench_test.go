package http

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/runxhq/runx/sdk/plugin"
)

// BenchmarkRequestInProcess is the capability itself (rendering, the
// request to a loopback provider, the typed answer), without the plugin
// protocol, interleaved with the same request made with a raw net/http
// client; overhead_x is the ratio of their medians. bench's
// BenchmarkHTTPOperation measures the same through the plugin process.
func BenchmarkRequestInProcess(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		w.Write([]byte(`{"id":"p1","title":"hello"}`))
	}))
	defer srv.Close()
	p := New()
	c := call(b, srv.URL, "write", "POST", "/boards/{board}/posts", map[string]any{"title": "$input.title"}, map[string]any{"board": "general", "title": "hello"})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	raw := func() {
		req, _ := http.NewRequest("POST", srv.URL+"/boards/general/posts?board=general", bytes.NewReader([]byte(`{"title":"hello"}`)))
		req.Header.Set("Authorization", "Bearer s3cret-token")
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var v any
		json.Unmarshal(body, &v)
	}
	p.Invoke(context.Background(), c)
	raw()
	op, base := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		if res := p.Invoke(context.Background(), c); res.Status != plugin.StatusOK {
			b.Fatalf("%+v", res)
		}
		op = append(op, time.Since(t))
		t = time.Now()
		raw()
		base = append(base, time.Since(t))
	}
	b.StopTimer()
	med := func(l []time.Duration) time.Duration {
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		return l[len(l)/2]
	}
	mo, mb := med(op), med(base)
	b.ReportMetric(float64(mo)/float64(time.Microsecond), "p50_us")
	b.ReportMetric(float64(op[len(op)*99/100])/float64(time.Microsecond), "p99_us")
	b.ReportMetric(float64(mb)/float64(time.Microsecond), "raw_p50_us")
	b.ReportMetric(float64(mo)/float64(mb), "overhead_x")
}
