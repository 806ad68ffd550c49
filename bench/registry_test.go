package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/registry/server"
	"github.com/runxhq/runx/kernel/registry/server/store"
)

// registrySkills is how many skills the search workload's registry holds.
const registrySkills = 10000

// BenchmarkRegistrySearch10k measures a registry search over 10,000
// published skills on SQLite (docs/PERFORMANCE.md; target p50 < 20 ms):
// p50_ms and p99_ms are GET /v1/search on a real server on loopback, as a
// client sees it; store_p50_ms is the store's query alone, the floor
// the API adds to, and overhead_x the ratio of their mean times. Each
// skill is a signed record of a real package with a description of six
// words from a 400-word vocabulary, so a one-word query matches about 150
// skills and is ranked; queries are one or two words, whole or a prefix.
//
// The registry is filled once through the store (a publish per skill, each
// its own durable transaction), not through the HTTP publish: that is
// measured by the publish tests, and would make the setup minutes long.
// Where the machine has a tmpfs the store lives there, so the fill's ten
// thousand syncs cost nothing and make bench-check gates it in seconds
// rather than a minute; a search reads the page cache either way.
func BenchmarkRegistrySearch10k(b *testing.B) {
	ctx := context.Background()
	dir, ok := receiptBenchTmpfs(b)
	if !ok {
		dir = b.TempDir()
	}
	st, err := store.OpenSQLite(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	fillRegistry(b, st)
	b.Logf("filled %d skills in %v", registrySkills, time.Since(start).Round(time.Millisecond))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	srv, err := server.New(ctx, server.Config{Store: st, URL: base})
	if err != nil {
		b.Fatal(err)
	}
	hs := server.HTTPServer(srv.Handler())
	go hs.Serve(ln)
	defer hs.Close()
	queries := searchQueries(200)
	// The fill happens once, in the parent; the sub-benchmark is what the
	// framework reruns with a growing b.N.
	b.Run("sqlite", func(b *testing.B) { benchSearch(b, st, base, queries) })
}

func benchSearch(b *testing.B, st store.Store, base string, queries []string) {
	ctx := context.Background()
	client := &http.Client{Timeout: 10 * time.Second}
	// Each iteration runs one query through the API and the same query on
	// the store alone, interleaved so both see the same machine load.
	api := make(latencies, 0, b.N)
	raw := make(latencies, 0, b.N)
	var apiTotal, rawTotal time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)]
		start := time.Now()
		if _, err := st.Search(ctx, store.SearchWords(q), 20); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		raw, rawTotal = append(raw, d), rawTotal+d
		start = time.Now()
		resp, err := client.Get(base + "/v1/search?limit=20&q=" + url.QueryEscape(q))
		if err != nil {
			b.Fatal(err)
		}
		var doc struct {
			Results []json.RawMessage `json:"results"`
		}
		err = json.NewDecoder(resp.Body).Decode(&doc)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("search: %d %v", resp.StatusCode, err)
		}
		d = time.Since(start)
		api, apiTotal = append(api, d), apiTotal+d
	}
	b.StopTimer()
	api.report(b, time.Millisecond, "ms")
	b.ReportMetric(float64(raw.quantile(0.5))/float64(time.Millisecond), "store_p50_ms")
	b.ReportMetric(float64(apiTotal)/float64(rawTotal), "overhead_x")
}

var searchVocabulary = func() []string {
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 400)
	for i := range words {
		var sb strings.Builder
		for n := 4 + r.IntN(6); n > 0; n-- {
			sb.WriteByte(byte('a' + r.IntN(26)))
		}
		words[i] = sb.String()
	}
	return words
}()

func fillRegistry(b *testing.B, st store.Store) {
	ctx := context.Background()
	p, err := registry.BuildFiles(registry.KindSkill, map[string][]byte{
		"SKILL.md": []byte("---\nname: template\ndescription: A template.\nversion: 1.0.0\n---\n"),
		"run.yaml": []byte("minimum_runx: 0.1.0\nmethods:\n  run:\n    description: Run it.\n    steps:\n      - id: say\n        tool: { command: echo, args: [hi] }\n"),
	})
	if err != nil {
		b.Fatal(err)
	}
	key, err := server.Key(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	at := time.Now().UTC().Truncate(time.Second)
	for i := 0; i < registrySkills; i++ {
		words := make([]string, 6)
		for j := range words {
			words[j] = searchVocabulary[r.IntN(len(searchVocabulary))]
		}
		pi := *p
		pi.Name = fmt.Sprintf("skill-%05d", i)
		pi.Description = strings.Join(words, " ")
		publisher := fmt.Sprintf("pub%03d", i%300)
		rec := registry.NewRecord(&pi, "http://127.0.0.1", publisher, registry.TierCommunity, at)
		if err := registry.Sign(rec, key); err != nil {
			b.Fatal(err)
		}
		raw, _ := rec.Marshal()
		methods, _ := json.Marshal(pi.Methods)
		if err := st.Publish(ctx, &store.Version{
			Kind: store.KindSkill, Name: pi.Name, Publisher: publisher, Version: pi.Version,
			ContentDigest: pi.ContentDigest, PackageFormat: pi.PackageFormat, PublishedAt: at,
			Description: pi.Description, Methods: methods, Record: raw,
			Files: []store.File{{Path: "SKILL.md", Data: []byte("---\nname: " + pi.Name + "\n---\n")}},
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// searchQueries are one or two vocabulary words, a third of them cut to a
// prefix of four letters.
func searchQueries(n int) []string {
	r := rand.New(rand.NewPCG(5, 6))
	qs := make([]string, n)
	for i := range qs {
		w := searchVocabulary[r.IntN(len(searchVocabulary))]
		if i%3 == 0 {
			w = w[:4]
		}
		if i%2 == 1 {
			w += " " + searchVocabulary[r.IntN(len(searchVocabulary))]
		}
		qs[i] = w
	}
	return qs
}
