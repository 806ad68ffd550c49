package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// stores opens each implementation fresh for one test: SQLite in a temporary
// directory, PostgreSQL on a real server on loopback.
func stores(t *testing.T) map[string]func(t *testing.T) Store {
	return map[string]func(t *testing.T) Store{
		"sqlite": func(t *testing.T) Store {
			s, err := OpenSQLite(context.Background(), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		"postgres": func(t *testing.T) Store {
			pg := testserver.StartPostgres(t)
			s, err := OpenPostgres(context.Background(), PostgresConfig{URL: pg.URL(), Password: pg.Password})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
}

func version(kind, publisher, name, v, desc string) *Version {
	return &Version{
		Kind: kind, Name: name, Publisher: publisher, Version: v,
		ContentDigest: "sha256:" + fmt.Sprintf("%064x", len(name)+len(v)), PackageFormat: 1,
		PublishedAt: time.Now().UTC(), Description: desc,
		Methods: []byte(`[{"name":"run","description":"` + desc + `"}]`),
		Record:  []byte(`{"ref":"` + publisher + "/" + name + "@" + v + `"}`),
		Files:   []File{{Path: "SKILL.md", Data: []byte("# " + name)}, {Path: "runx.package.json", Data: []byte("{}")}},
	}
}

func TestStoreContract(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			for _, v := range []string{"1.0.0", "1.10.0", "1.2.0"} {
				if err := s.Publish(ctx, version(KindSkill, "acme", "weather", v, "Forecasts for a city")); err != nil {
					t.Fatal(err)
				}
			}
			// Immutable: the same version again is refused, whatever it holds.
			if err := s.Publish(ctx, version(KindSkill, "acme", "weather", "1.2.0", "other")); !errors.Is(err, ErrVersionExists) {
				t.Fatalf("republish: %v, want ErrVersionExists", err)
			}
			vs, err := s.Versions(ctx, KindSkill, "acme/weather")
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != 3 || vs[0].Version != "1.10.0" || vs[1].Version != "1.2.0" || vs[2].Version != "1.0.0" {
				t.Fatalf("versions not newest first in semver order: %+v", vs)
			}
			if _, err := s.Versions(ctx, KindSkill, "acme/nothing"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("unknown package: %v", err)
			}
			rec, err := s.Record(ctx, KindSkill, "acme/weather", "1.2.0")
			if err != nil || !bytes.Contains(rec, []byte("1.2.0")) {
				t.Fatalf("record: %s %v", rec, err)
			}
			files, err := s.Files(ctx, KindSkill, "acme/weather", "1.0.0")
			if err != nil || len(files) != 2 || files[0].Path != "SKILL.md" {
				t.Fatalf("files: %+v %v", files, err)
			}
			if _, err := s.Files(ctx, KindSkill, "acme/weather", "9.9.9"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("unknown version's files: %v", err)
			}

			// Search: every word as a prefix, newest version only, tier by namespace.
			if err := s.Publish(ctx, version(KindSkill, "runx", "taste-profile", "1.0.0", "Learns what you like")); err != nil {
				t.Fatal(err)
			}
			if err := s.Publish(ctx, version(KindConnector, "google", "google/calendar", "sha-0123456789ab", "Calendar events")); err != nil {
				t.Fatal(err)
			}
			hits, err := s.Search(ctx, SearchWords("Weather FORE"), 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != 1 || hits[0].Version != "1.10.0" || hits[0].Tier != TierCommunity || hits[0].Name != "weather" {
				t.Fatalf("search weather: %+v", hits)
			}
			hits, _ = s.Search(ctx, SearchWords("taste"), 10)
			if len(hits) != 1 || hits[0].Tier != TierFirstParty {
				t.Fatalf("runx is first_party: %+v", hits)
			}
			if err := s.SetTier(ctx, "acme", TierVerified); err != nil {
				t.Fatal(err)
			}
			hits, _ = s.Search(ctx, SearchWords("forecasts city"), 10)
			if len(hits) != 1 || hits[0].Tier != TierVerified {
				t.Fatalf("acme set verified: %+v", hits)
			}
			hits, _ = s.Search(ctx, SearchWords("calendar"), 10)
			if len(hits) != 1 || hits[0].Kind != KindConnector || hits[0].Name != "google/calendar" {
				t.Fatalf("connector: %+v", hits)
			}
			if hits, _ = s.Search(ctx, SearchWords("nothing-like-it"), 10); len(hits) != 0 {
				t.Fatalf("no match: %+v", hits)
			}
			if hits, _ = s.Search(ctx, nil, 2); len(hits) != 2 {
				t.Fatalf("listing honours the limit: %+v", hits)
			}

			// Tokens: found by id, holding only the hash.
			h := sha256.Sum256([]byte("runxreg_secret"))
			if _, err := s.Token(ctx, "0123"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("unknown token: %v", err)
			}
			if err := s.CreateToken(ctx, Token{ID: "0123", Hash: h[:], Namespace: "acme"}); err != nil {
				t.Fatal(err)
			}
			if tok, err := s.Token(ctx, "0123"); err != nil || tok.Namespace != "acme" || !bytes.Equal(tok.Hash, h[:]) {
				t.Fatalf("token: %+v %v", tok, err)
			}
		})
	}
}

// The key is created once: concurrent first callers all get the first
// stored seed, and a later caller's fresh seed is ignored.
func TestStoreKeyCreatedOnce(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			var wg sync.WaitGroup
			got := make([][]byte, 8)
			errs := make([]error, 8)
			for i := range got {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got[i], errs[i] = s.Key(context.Background(), bytes.Repeat([]byte{byte(i + 1)}, 32))
				}()
			}
			wg.Wait()
			for i := range got {
				if errs[i] != nil || !bytes.Equal(got[i], got[0]) {
					t.Fatalf("caller %d: %x %v, first %x", i, got[i], errs[i], got[0])
				}
			}
			again, err := s.Key(context.Background(), bytes.Repeat([]byte{0xff}, 32))
			if err != nil || !bytes.Equal(again, got[0]) {
				t.Fatalf("later caller: %x %v", again, err)
			}
		})
	}
}

func TestStoreRefusals(t *testing.T) {
	if _, err := ParseTier("gold"); contract.CodeOf(err) != errcode.RegistryTierInvalid {
		t.Fatalf("tier: %v", err)
	}
	for _, ns := range []string{"", "Acme", "-acme", "acme--x", "acme/x", string(bytes.Repeat([]byte("a"), 65))} {
		if err := CheckNamespace(ns); contract.CodeOf(err) != errcode.RegistryNamespaceInvalid {
			t.Errorf("namespace %q: %v", ns, err)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/"+KeyFileName, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := OpenSQLite(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Key(context.Background(), make([]byte, 32)); contract.CodeOf(err) != errcode.RegistryKeyInvalid {
		t.Fatalf("bad key file: %v", err)
	}
	if _, err := OpenPostgres(context.Background(), PostgresConfig{URL: "postgres://u:pw@127.0.0.1:1/db"}); contract.CodeOf(err) != errcode.CredentialInEndpoint {
		t.Fatalf("password in URL: %v", err)
	}
}
