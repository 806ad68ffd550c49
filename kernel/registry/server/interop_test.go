package server

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/registry/client"
	"github.com/runxhq/runx/sdk/errcode"
)

// runx's own client against this server: publish, whoami, search and
// install, through the shapes both sides were written to. A drift in any
// field the client reads fails here.
func TestClientAgainstServer(t *testing.T) {
	r := sqliteRegistry(t)
	ctx := context.Background()
	tok := r.token("acme")
	c, err := client.New(r.url, client.Options{Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	if ns, err := c.WhoAmI(ctx); err != nil || len(ns) != 1 || ns[0] != "acme" {
		t.Fatalf("whoami: %v %v", ns, err)
	}
	files := skillFiles("weather", "1.2.0", "Forecasts for a city.")
	p, err := registry.BuildFiles(registry.KindSkill, files)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := c.Publish(ctx, "acme", p, files)
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	if pub.Ref != "acme/weather@1.2.0" {
		t.Fatalf("published %+v", pub)
	}
	if _, err := c.Publish(ctx, "acme", p, files); contract.CodeOf(err) != errcode.RegistryVersionExists {
		t.Fatalf("republish through the client: %v", err)
	}
	conn := connectorFiles("acme/calendar")
	cp, err := registry.BuildFiles(registry.KindConnector, conn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Publish(ctx, "acme", cp, conn); err != nil {
		t.Fatalf("publish connector: %v", err)
	}

	hits, err := c.Search(ctx, "weather", 10)
	if err != nil || len(hits) != 1 || hits[0].Ref != "acme/weather@1.2.0" || hits[0].TrustTier != "community" {
		t.Fatalf("search: %+v %v", hits, err)
	}

	keys, err := c.Keys(ctx)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys: %+v %v", keys, err)
	}
	key := registry.FormatPublicKey(r.srv.PublicKey())
	trust := &registry.Trust{}
	if err := trust.Add(r.url, key, "acme"); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(t.TempDir(), ".runx")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"acme/weather", "acme/calendar"} {
		in, err := c.InstallRef(ctx, project, ref, trust, client.InstallOptions{})
		if err != nil {
			t.Fatalf("install %s: %v", ref, err)
		}
		again, err := c.InstallRef(ctx, project, ref, trust, client.InstallOptions{})
		if err != nil || in.Status != registry.StatusInstalled || again.Status != registry.StatusUnchanged {
			t.Fatalf("install %s twice: %v then %v (%v)", ref, in.Status, again.Status, err)
		}
	}
	if _, err := registry.VerifyInstalled(filepath.Join(project, registry.AddedSkillsDir, "acme", "weather", "1.2.0"), trust); err != nil {
		t.Fatalf("the installed copy does not verify: %v", err)
	}

	// The key trusted for another namespace only installs nothing.
	other := &registry.Trust{}
	if err := other.Add(r.url, key, "someone-else"); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), ".runx")
	if _, err := c.InstallRef(ctx, fresh, "acme/weather", other, client.InstallOptions{}); contract.CodeOf(err) != errcode.RegistryKeyUntrusted {
		t.Fatalf("install under a key trusted for another namespace: %v", err)
	}
	if _, err := os.Stat(fresh); err == nil {
		if ents, _ := os.ReadDir(fresh); len(ents) != 0 {
			t.Fatalf("a refused install wrote %v", ents)
		}
	}
}
