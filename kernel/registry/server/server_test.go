package server

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/registry/server/store"
	"github.com/runxhq/runx/sdk/errcode"
)

// publishAndRead is the API's whole read path after a publish, on any store.
func publishAndRead(t *testing.T, r *testRegistry) {
	tok := r.token("acme")
	status, who := r.do("GET", "/v1/whoami", tok, nil)
	if status != 200 || who["namespaces"].([]any)[0] != "acme" {
		t.Fatalf("whoami: %d %v", status, who)
	}
	for _, v := range []string{"1.0.0", "1.10.0", "1.2.0"} {
		status, ans := r.publish(tok, "skill", "acme", skillFiles("weather", v, "Forecasts for a city."))
		wantStatus(t, "publish "+v, status, ans, http.StatusCreated)
		if ans["ref"] != "acme/weather@"+v || ans["version"] != v || !strings.HasPrefix(ans["content_digest"].(string), "sha256:") {
			t.Fatalf("publish answer: %v", ans)
		}
	}

	// The record is signed by the key /v1/keys serves, over its canonical
	// bytes, and names this registry, the publisher and the tier.
	status, keys := r.get("/v1/keys")
	wantStatus(t, "keys", status, keys, 200)
	k := keys["keys"].([]any)[0].(map[string]any)
	pubRaw, _ := base64.StdEncoding.DecodeString(k["public_key"].(string))
	pub := ed25519.PublicKey(pubRaw)
	if k["alg"] != "ed25519" || k["key_id"] != registry.KeyID(pub) || !pub.Equal(r.srv.PublicKey()) {
		t.Fatalf("keys: %v", keys)
	}
	resp, err := http.Get(r.url + "/v1/skills/acme/weather/versions/1.2.0/record")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	rec, err := registry.ParseRecord(raw)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := registry.SigningBytes(rec)
	sig, _ := base64.StdEncoding.DecodeString(rec.Signature.Value)
	if !ed25519.Verify(pub, msg, sig) || rec.Signature.KeyID != registry.KeyID(pub) {
		t.Fatal("the record's signature does not verify under the served key")
	}
	if rec.Registry != r.url || rec.Publisher != "acme" || rec.Ref != "acme/weather@1.2.0" || rec.TrustTier != registry.TierCommunity {
		t.Fatalf("record: %+v", rec)
	}
	if err := rec.Check(); err != nil {
		t.Fatalf("the served record is not one runx installs: %v", err)
	}

	// The files are the package's exactly, runx.package.json included.
	status, filesDoc := r.get("/v1/skills/acme/weather/versions/1.2.0/files")
	wantStatus(t, "files", status, filesDoc, 200)
	files := map[string][]byte{}
	for _, f := range filesDoc["files"].([]any) {
		f := f.(map[string]any)
		files[f["path"].(string)], _ = base64.StdEncoding.DecodeString(f["data"].(string))
	}
	p, err := registry.BuildFiles(registry.KindSkill, files)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files[registry.ManifestFile]; !ok || p.ContentDigest != rec.ContentDigest || len(p.Files) != len(rec.Files) {
		t.Fatalf("served files repackage to %s (%d files), record names %s (%d)", p.ContentDigest, len(p.Files), rec.ContentDigest, len(rec.Files))
	}

	// Versions newest first in semver order; the tier is the namespace's.
	status, sk := r.get("/v1/skills/acme/weather")
	wantStatus(t, "skill", status, sk, 200)
	vs := sk["versions"].([]any)
	if sk["publisher"] != "acme" || sk["name"] != "weather" || sk["trust_tier"] != "community" || len(vs) != 3 ||
		vs[0].(map[string]any)["version"] != "1.10.0" || vs[2].(map[string]any)["version"] != "1.0.0" {
		t.Fatalf("skill: %v", sk)
	}
	if v0 := vs[1].(map[string]any); v0["content_digest"] != rec.ContentDigest || v0["package_format"] != float64(1) || v0["published_at"] != rec.PublishedAt {
		t.Fatalf("version line: %v, record %+v", v0, rec)
	}

	// Search: the newest version, with its methods and tier.
	status, found := r.get("/v1/search?q=weather+forecast&limit=5")
	wantStatus(t, "search", status, found, 200)
	results := found["results"].([]any)
	if len(results) != 1 {
		t.Fatalf("search: %v", found)
	}
	hit := results[0].(map[string]any)
	if hit["kind"] != "skill" || hit["ref"] != "acme/weather@1.10.0" || hit["trust_tier"] != "community" ||
		hit["methods"].([]any)[0].(map[string]any)["name"] != "forecast" || hit["description"] != "Forecasts for a city." {
		t.Fatalf("search hit: %v", hit)
	}

	// No publisher: the one namespace the token owns.
	status, ans := r.publish(tok, "skill", "", skillFiles("weather", "2.0.0-rc.1", "Forecasts for a city."))
	if status != http.StatusCreated || ans["ref"] != "acme/weather@2.0.0-rc.1" {
		t.Fatalf("publish without publisher: %d %v", status, ans)
	}

	// A connector, named with its namespace, under the same token.
	status, ans = r.publish(tok, "connector", "acme", connectorFiles("acme/calendar"))
	wantStatus(t, "publish connector", status, ans, http.StatusCreated)
	version := ans["version"].(string)
	if !strings.HasPrefix(version, "sha-") || ans["ref"] != "acme/calendar@"+version {
		t.Fatalf("connector answer: %v", ans)
	}
	status, c := r.get("/v1/connectors/acme/calendar")
	if status != 200 || c["name"] != "acme/calendar" || c["versions"].([]any)[0].(map[string]any)["version"] != version {
		t.Fatalf("connector: %d %v", status, c)
	}
	status, crec := r.get("/v1/connectors/acme/calendar/versions/" + version + "/record")
	if status != 200 || crec["ref"] != "acme/calendar@"+version || crec["kind"] != "connector" {
		t.Fatalf("connector record: %d %v", status, crec)
	}
	status, cfiles := r.get("/v1/connectors/acme/calendar/versions/" + version + "/files")
	if status != 200 || len(cfiles["files"].([]any)) != 2 {
		t.Fatalf("connector files: %d %v", status, cfiles)
	}
	status, found = r.get("/v1/search?q=calendar")
	if status != 200 || len(found["results"].([]any)) != 1 || found["results"].([]any)[0].(map[string]any)["kind"] != "connector" {
		t.Fatalf("search connector: %v", found)
	}
}

func TestAPIOnSQLite(t *testing.T) { publishAndRead(t, sqliteRegistry(t)) }

func TestAPIOnPostgres(t *testing.T) {
	publishAndRead(t, startOn(t, postgresStore(t, testserver.StartPostgres(t))))
}

// Two replicas on one PostgreSQL database are one registry: one key, what
// one publishes the other serves, and a version published on both at once
// is published once.
func TestPostgresReplicas(t *testing.T) {
	pg := testserver.StartPostgres(t)
	a, b := startOn(t, postgresStore(t, pg)), startOn(t, postgresStore(t, pg))
	if !a.srv.PublicKey().Equal(b.srv.PublicKey()) {
		t.Fatal("two replicas of one registry sign with two keys")
	}
	tok := a.token("acme")
	status, ans := b.publish(tok, "skill", "acme", skillFiles("weather", "1.0.0", "Forecasts."))
	wantStatus(t, "publish on b", status, ans, http.StatusCreated)
	if status, _ := a.get("/v1/skills/acme/weather/versions/1.0.0/record"); status != 200 {
		t.Fatalf("a does not serve what b published: %d", status)
	}
	var wg sync.WaitGroup
	statuses := make([]int, 6)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := a
			if i%2 == 1 {
				r = b
			}
			req, _ := http.NewRequest("POST", r.url+"/v1/publish", publishBody("skill", "acme", skillFiles("weather", "2.0.0", "Forecasts, again.")))
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		switch s {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
		default:
			t.Fatalf("concurrent publish answered %d", s)
		}
	}
	if created != 1 {
		t.Fatalf("a version published at once on two replicas was created %d times: %v", created, statuses)
	}
}

func TestPublishRefusals(t *testing.T) {
	r := sqliteRegistry(t)
	tok := r.token("acme")
	other := r.token("other")
	skill := skillFiles("weather", "1.0.0", "Forecasts.")

	// Unknown tokens: none, malformed, well-formed but never issued, and an
	// issued token's id with another secret.
	status, doc := r.publish("", "skill", "acme", skill)
	wantError(t, "no token", status, doc, 401, errcode.RegistryTokenInvalid)
	status, doc = r.publish("sekrit", "skill", "acme", skill)
	wantError(t, "malformed token", status, doc, 401, errcode.RegistryTokenInvalid)
	status, doc = r.publish(TokenPrefix+strings.Repeat("0", tokenBodyHex), "skill", "acme", skill)
	wantError(t, "unknown token", status, doc, 401, errcode.RegistryTokenInvalid)
	forged := tok[:len(TokenPrefix)+tokenIDHex] + strings.Repeat("f", tokenBodyHex-tokenIDHex)
	status, doc = r.publish(forged, "skill", "acme", skill)
	wantError(t, "issued id, other secret", status, doc, 401, errcode.RegistryTokenInvalid)
	status, doc = r.do("GET", "/v1/whoami", "", nil)
	wantError(t, "whoami without token", status, doc, 401, errcode.RegistryTokenInvalid)

	// A namespace the token does not own, as publisher or as a connector's
	// namespace.
	status, doc = r.publish(other, "skill", "acme", skill)
	wantError(t, "namespace not owned", status, doc, 403, errcode.RegistryNamespaceNotOwned)
	status, doc = r.publish(other, "connector", "other", connectorFiles("acme/calendar"))
	wantError(t, "connector in another namespace", status, doc, 403, errcode.RegistryNamespaceNotOwned)
	status, doc = r.publish(other, "connector", "other", connectorFiles("calendar"))
	wantError(t, "bare connector name is its own namespace", status, doc, 403, errcode.RegistryNamespaceNotOwned)
	status, doc = r.publish(tok, "skill", "Acme", skill)
	wantError(t, "bad namespace", status, doc, 400, errcode.RegistryNamespaceInvalid)

	// Immutable: the same version again is refused, with other bytes or the same.
	status, first := r.publish(tok, "skill", "acme", skill)
	wantStatus(t, "first publish", status, first, 201)
	status, doc = r.publish(tok, "skill", "acme", skillFiles("weather", "1.0.0", "Something else."))
	wantError(t, "republish other bytes", status, doc, 409, errcode.RegistryVersionExists)
	status, doc = r.publish(tok, "skill", "acme", skill)
	wantError(t, "republish same bytes", status, doc, 409, errcode.RegistryVersionExists)
	_, rec := r.get("/v1/skills/acme/weather/versions/1.0.0/record")
	if rec["content_digest"] != first["content_digest"] || rec["description"] != "Forecasts." {
		t.Fatalf("a refused republish changed the record: %v", rec)
	}

	// Bodies that are not the documented JSON.
	for name, body := range map[string]string{
		"not json":      `{"kind":`,
		"unknown field": `{"kind":"skill","publisher":"acme","files":[],"extra":1}`,
		"two values":    `{"kind":"skill","publisher":"acme","files":[]} {}`,
		"bad base64":    `{"kind":"skill","publisher":"acme","files":[{"path":"SKILL.md","data":"%%%"}]}`,
		"bad kind":      `{"kind":"plugin","publisher":"acme","files":[]}`,
		"dup path":      `{"kind":"skill","publisher":"acme","files":[{"path":"a","data":""},{"path":"a","data":""}]}`,
	} {
		status, doc = r.do("POST", "/v1/publish", tok, strings.NewReader(body))
		wantError(t, name, status, doc, 400, errcode.RegistryRequestInvalid)
	}

	// Packages the package rules refuse, with their own codes.
	noVersion := skillFiles("nover", "1.0.0", "x")
	noVersion["SKILL.md"] = []byte("---\nname: nover\ndescription: x\n---\n")
	status, doc = r.publish(tok, "skill", "acme", noVersion)
	wantError(t, "no version", status, doc, 400, errcode.RegistryVersionInvalid)
	status, doc = r.publish(tok, "skill", "acme", map[string][]byte{"README.md": []byte("x")})
	wantStatus(t, "no SKILL.md", status, doc, 400)
	escaping := skillFiles("esc", "1.0.0", "x")
	escaping["../evil"] = []byte("x")
	status, doc = r.publish(tok, "skill", "acme", escaping)
	wantError(t, "escaping path", status, doc, 400, errcode.RegistryPathInvalid)
	excluded := skillFiles("exc", "1.0.0", "x")
	excluded[".git/config"] = []byte("x")
	status, doc = r.publish(tok, "skill", "acme", excluded)
	wantError(t, "excluded file", status, doc, 400, errcode.RegistryRequestInvalid)
	if status, _ := r.get("/v1/skills/acme/exc"); status != 404 {
		t.Fatalf("a refused publish was stored: %d", status)
	}
}

// A body over the bound is refused with a typed 413 whether it declares its
// length or streams without one; nothing is stored.
func TestPublishTooLarge(t *testing.T) {
	r := sqliteRegistry(t)
	tok := r.token("acme")
	head := `{"kind":"skill","publisher":"acme","files":[{"path":"SKILL.md","data":"`
	for _, declared := range []bool{true, false} {
		body := io.MultiReader(strings.NewReader(head), io.LimitReader(repeatReader('A'), MaxPublishBody))
		req, _ := http.NewRequest("POST", r.url+"/v1/publish", body)
		if declared {
			req.ContentLength = int64(len(head)) + MaxPublishBody
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("declared=%v: %v", declared, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var doc map[string]any
		_ = json.Unmarshal(raw, &doc)
		wantError(t, "oversized body", resp.StatusCode, doc, http.StatusRequestEntityTooLarge, errcode.RegistryRequestTooLarge)
	}
	if status, found := r.get("/v1/search"); status != 200 || len(found["results"].([]any)) != 0 {
		t.Fatalf("after refused publishes: %v", found)
	}
}

type repeatReader byte

func (b repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func TestReadRefusals(t *testing.T) {
	r := sqliteRegistry(t)
	for _, path := range []string{
		"/v1/skills/acme/nothing",
		"/v1/skills/acme/nothing/versions/1.0.0/record",
		"/v1/skills/acme/nothing/versions/1.0.0/files",
		"/v1/skills/acme/nothing/versions/1.0.0/other",
		"/v1/connectors/acme/nothing",
		"/v1/connectors/a/b/c",
		"/v1/connectors/a/b/versions/sha-0/record",
		"/v1/nothing",
		"/",
	} {
		status, doc := r.get(path)
		wantError(t, path, status, doc, 404, errcode.RegistryNotFound)
	}
	status, doc := r.do("DELETE", "/v1/skills/acme/x", "", nil)
	wantError(t, "DELETE", status, doc, 404, errcode.RegistryNotFound)
	for _, q := range []string{"limit=0", "limit=101", "limit=x", "page=2", "q=" + strings.Repeat("a", maxQueryBytes+1)} {
		status, doc := r.get("/v1/search?" + q)
		wantError(t, q, status, doc, 400, errcode.RegistryRequestInvalid)
	}
}

// Tiers: runx is first_party, another namespace community until the
// operator sets it verified; search and the package page say so, and a
// record is signed with the tier of its publish.
func TestTiers(t *testing.T) {
	r := sqliteRegistry(t)
	for _, ns := range []string{"runx", "acme"} {
		status, doc := r.publish(r.token(ns), "skill", ns, skillFiles("taste", "1.0.0", "Taste profile."))
		wantStatus(t, "publish "+ns, status, doc, 201)
		rec := doc["record"].(map[string]any)
		if want := string(store.DefaultTier(ns)); rec["trust_tier"] != want {
			t.Fatalf("%s record tier %v, want %s", ns, rec["trust_tier"], want)
		}
	}
	tiers := func() map[string]any {
		_, found := r.get("/v1/search?q=taste")
		out := map[string]any{}
		for _, h := range found["results"].([]any) {
			h := h.(map[string]any)
			out[h["publisher"].(string)] = h["trust_tier"]
		}
		return out
	}
	if got := tiers(); got["runx"] != "first_party" || got["acme"] != "community" {
		t.Fatalf("tiers: %v", got)
	}
	if err := r.st.SetTier(context.Background(), "acme", store.TierVerified); err != nil {
		t.Fatal(err)
	}
	if got := tiers(); got["acme"] != "verified" {
		t.Fatalf("tiers after verify: %v", got)
	}
	if _, sk := r.get("/v1/skills/acme/taste"); sk["trust_tier"] != "verified" {
		t.Fatalf("skill page tier: %v", sk)
	}
	status, doc := r.publish(r.token("acme"), "skill", "acme", skillFiles("taste", "1.1.0", "Taste profile."))
	if status != 201 || doc["record"].(map[string]any)["trust_tier"] != "verified" {
		t.Fatalf("publish after verify: %d %v", status, doc)
	}
}

// The key is made once and kept: a restarted server on the same data
// directory signs with the same key.
func TestKeyKept(t *testing.T) {
	dir := t.TempDir()
	open := func() *Server {
		st, err := store.OpenSQLite(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		srv, err := New(context.Background(), Config{Store: st, URL: "http://127.0.0.1:1"})
		if err != nil {
			t.Fatal(err)
		}
		return srv
	}
	if a, b := open(), open(); !a.PublicKey().Equal(b.PublicKey()) {
		t.Fatal("the key changed across restarts")
	}
	if _, err := New(context.Background(), Config{URL: "ftp://x"}); err == nil {
		t.Fatal("a non-http registry URL was accepted")
	}
}

// The http.Server facing the network has every timeout and a header bound.
func TestHTTPServerBounded(t *testing.T) {
	hs := HTTPServer(http.NotFoundHandler())
	if hs.ReadHeaderTimeout == 0 || hs.ReadTimeout == 0 || hs.WriteTimeout == 0 || hs.IdleTimeout == 0 || hs.MaxHeaderBytes == 0 {
		t.Fatalf("unbounded server: %+v", hs)
	}
}
