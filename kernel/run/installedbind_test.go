package run

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/registry"
	"github.com/runxhq/runx/kernel/run/installed"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// testRegistryURL is the registry the test records name.
const testRegistryURL = "https://reg.test"

// publisherKey is a registry key the test runx home trusts for one
// publisher namespace.
type publisherKey struct {
	priv ed25519.PrivateKey
}

// trustKey makes a key and trusts it in k's runx home for namespaces.
func trustKey(t *testing.T, k *Kernel, namespaces ...string) publisherKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := registry.LoadTrust(k.Options.HomeDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Add(testRegistryURL, registry.FormatPublicKey(pub), namespaces...); err != nil {
		t.Fatal(err)
	}
	if err := tr.Save(k.Options.HomeDir); err != nil {
		t.Fatal(err)
	}
	return publisherKey{priv}
}

// signedSkill is a published skill's record and files.
func (key publisherKey) signedSkill(t *testing.T, publisher, name, version, runYAML string) (*registry.Record, map[string][]byte) {
	t.Helper()
	manifest, err := canon.Canonical(map[string]any{"kind": "skill", "name": name, "package_format": registry.PackageFormat, "version": version})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"SKILL.md":          []byte("---\nname: " + name + "\ndescription: A published skill.\nversion: " + version + "\n---\nManual.\n"),
		"run.yaml":          []byte("minimum_runx: 0.1.0\n" + runYAML),
		"runx.package.json": manifest,
	}
	p, err := registry.BuildFiles(registry.KindSkill, files)
	if err != nil {
		t.Fatal(err)
	}
	rec := registry.NewRecord(p, testRegistryURL, publisher, registry.TierCommunity, time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC))
	if err := registry.Sign(rec, key.priv); err != nil {
		t.Fatal(err)
	}
	return rec, files
}

// install publishes and installs a skill into k's project, as
// runx registry install would, and returns its version directory.
func (key publisherKey) install(t *testing.T, k *Kernel, publisher, name, version, runYAML string) string {
	t.Helper()
	rec, files := key.signedSkill(t, publisher, name, version, runYAML)
	tr, err := registry.LoadTrust(k.Options.HomeDir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := registry.Install(k.Options.ProjectDir, rec, files, tr)
	if err != nil {
		t.Fatal(err)
	}
	return res.Dir
}

// editByte changes one byte of a file in place.
func editByte(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-2] ^= 0x20
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantCode(t *testing.T, err error, code errcode.Code) {
	t.Helper()
	if err == nil || contract.CodeOf(err) != code {
		t.Fatalf("err %v; want %s", err, code)
	}
}

func echoStep(v string) string {
	return "methods:\n  m:\n    steps:\n      - { id: a, tool: stub.echo, inputs: { v: " + v + " } }\n"
}

func runRef(k *Kernel, ref string) (*contract.SkillRun, error) {
	return k.Skill(context.Background(), SkillRequest{Ref: ref, Inputs: pkg.InputSource{Document: []byte(`{}`), HasDocument: true}})
}

// An installed skill runs by its ref once its signature verifies, and its
// receipt and envelope name the package its signature states.
func TestInstalledSkillRunsUnderItsSignedIdentity(t *testing.T) {
	k, s := stubKernel(t)
	key := trustKey(t, k, "acme")
	dir := key.install(t, k, "acme", "hello", "1.0.0", echoStep("1"))
	env, err := runRef(k, "acme/hello@1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if env.Outcome != seal.OutcomeCompleted || s.calls["stub.echo"] != 1 {
		t.Fatalf("outcome %s, calls %d: %+v", env.Outcome, s.calls["stub.echo"], env.Error)
	}
	rec, err := registry.VerifyInstalled(dir, mustTrust(t, k))
	if err != nil {
		t.Fatal(err)
	}
	id := env.Registry
	if id == nil || id.Ref != "acme/hello@1.0.0" || id.Publisher != "acme" || id.Name != "hello" || id.Version != "1.0.0" ||
		id.ContentDigest != rec.ContentDigest || id.TrustTier != "community" || id.Registry != rec.Registry {
		t.Fatalf("envelope registry %+v; want the signed record's %s %s", id, rec.Ref, rec.ContentDigest)
	}
	r, _, err := k.engine.Store.Get(env.ReceiptID)
	if err != nil {
		t.Fatal(err)
	}
	got := r.Body.Registry
	if got == nil || got.Publisher != "acme" || got.Name != "hello" || got.Version != "1.0.0" || got.ContentDigest != rec.ContentDigest {
		t.Fatalf("receipt registry %+v; want acme/hello@1.0.0 %s", got, rec.ContentDigest)
	}
	// registry: names the same package
	if env, err := runRef(k, "registry:acme/hello@1.0.0"); err != nil || env.Outcome != seal.OutcomeCompleted {
		t.Fatalf("registry: ref: %v %+v", err, env)
	}
}

func mustTrust(t *testing.T, k *Kernel) *registry.Trust {
	t.Helper()
	tr, err := registry.LoadTrust(k.Options.HomeDir)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// An installed copy edited in place, stripped of its signature, signed by a
// key trusted for another namespace, or under another package's directory
// is refused at the bind with a typed error, before anything runs and with
// no receipt.
func TestInstalledSkillIsVerifiedAtEveryBind(t *testing.T) {
	for name, c := range map[string]struct {
		spoil func(t *testing.T, k *Kernel, dir string)
		code  errcode.Code
	}{
		"one byte of run.yaml edited": {func(t *testing.T, _ *Kernel, dir string) { editByte(t, filepath.Join(dir, "run.yaml")) }, errcode.RegistryPackageAltered},
		"one byte of SKILL.md edited": {func(t *testing.T, _ *Kernel, dir string) { editByte(t, filepath.Join(dir, "SKILL.md")) }, errcode.RegistryPackageAltered},
		"a file added": {func(t *testing.T, _ *Kernel, dir string) {
			os.WriteFile(filepath.Join(dir, "extra.mjs"), []byte("x"), 0o644)
		}, errcode.RegistryPackageAltered},
		"signature removed": {func(t *testing.T, _ *Kernel, dir string) { os.Remove(filepath.Join(dir, "signature.json")) }, errcode.RegistrySignatureInvalid},
		"signature edited":  {func(t *testing.T, _ *Kernel, dir string) { editByte(t, filepath.Join(dir, "signature.json")) }, ""},
		"key trusted for another namespace": {func(t *testing.T, k *Kernel, _ string) {
			os.Remove(registry.TrustPath(k.Options.HomeDir))
			trustKey(t, k, "other")
		}, errcode.RegistryKeyUntrusted},
	} {
		t.Run(name, func(t *testing.T) {
			k, s := stubKernel(t)
			key := trustKey(t, k, "acme")
			dir := key.install(t, k, "acme", "hello", "1.0.0", echoStep("1"))
			if _, err := runRef(k, "acme/hello@1.0.0"); err != nil {
				t.Fatal(err)
			}
			c.spoil(t, k, dir)
			before := s.calls["stub.echo"]
			env, err := runRef(k, "acme/hello@1.0.0")
			if err == nil {
				t.Fatalf("a spoiled install ran: %+v", env)
			}
			if c.code != "" {
				wantCode(t, err, c.code)
			} else if code := contract.CodeOf(err); code != errcode.RegistrySignatureInvalid && code != errcode.RegistryRecordInvalid {
				t.Fatalf("err %v; want a signature or record refusal", err)
			}
			if s.calls["stub.echo"] != before {
				t.Fatal("a step of the refused package ran")
			}
			// the newest-version path binds the same check
			if _, err := runRef(k, "acme/hello"); err == nil {
				t.Fatal("the refused install ran by its unversioned ref")
			}
		})
	}
}

// A copy placed by hand in the added skills, with no signature, is refused
// even when run by its path.
func TestUnsignedAddedSkillIsRefusedByPath(t *testing.T) {
	k, s := stubKernel(t)
	dir := filepath.Join(k.Options.ProjectDir, "added-skills", "acme", "hello", "1.0.0")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: hello\ndescription: Unsigned.\n---\nManual.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "run.yaml"), []byte("minimum_runx: 0.1.0\n"+echoStep("1")), 0o644)
	for _, ref := range []string{"acme/hello@1.0.0", dir} {
		_, err := runRef(k, ref)
		wantCode(t, err, errcode.RegistrySignatureInvalid)
	}
	if s.calls["stub.echo"] != 0 {
		t.Fatal("an unsigned added skill ran")
	}
}

// A registry child step binds only its verified installed copy: a parent
// whose child was edited seals blocked before any step runs.
func TestRegistryChildIsVerifiedAtItsBind(t *testing.T) {
	k, s := stubKernel(t)
	key := trustKey(t, k, "acme")
	dir := key.install(t, k, "acme", "kid", "1.0.0", echoStep("2"))
	parent := writeSkill(t, k, "parent", "methods:\n  m:\n    steps:\n      - { id: first, tool: stub.echo, inputs: { v: 1 } }\n      - { id: kid, skill: registry:acme/kid@1.0.0 }\n", nil)
	env := runSkill(t, k, parent, "m", `{}`, "")
	if env.Outcome != seal.OutcomeCompleted || s.calls["stub.echo"] != 2 {
		t.Fatalf("outcome %s calls %d: %+v", env.Outcome, s.calls["stub.echo"], env.Error)
	}
	editByte(t, filepath.Join(dir, "run.yaml"))
	env, err := k.Skill(context.Background(), SkillRequest{Ref: parent, Method: "m", Inputs: pkg.InputSource{Document: []byte(`{}`), HasDocument: true}})
	if err != nil {
		wantCode(t, err, errcode.RegistryPackageAltered)
	} else if env.Error == nil || env.Error.Code != errcode.RegistryPackageAltered || env.Outcome != seal.OutcomeBlocked {
		t.Fatalf("a parent of an edited child: %s %+v", env.Outcome, env.Error)
	}
	if s.calls["stub.echo"] != 2 {
		t.Fatal("a step ran under an edited registry child")
	}
}

// skills/<publisher>/<name>/ answers a registry ref whatever is installed;
// without a version the newest installed version runs.
func TestRegistryRefOwnCopyAndNewest(t *testing.T) {
	k, s := stubKernel(t)
	key := trustKey(t, k, "acme")
	key.install(t, k, "acme", "hello", "1.0.0", echoStep("1"))
	key.install(t, k, "acme", "hello", "1.10.0", echoStep("2"))
	key.install(t, k, "acme", "hello", "1.9.0", echoStep("3"))
	env, err := runRef(k, "acme/hello")
	if err != nil {
		t.Fatal(err)
	}
	if env.Registry == nil || env.Registry.Version != "1.10.0" {
		t.Fatalf("acme/hello ran %+v; want the newest installed, 1.10.0", env.Registry)
	}
	own := filepath.Join(k.Options.Workspace, "skills", "acme", "hello")
	os.MkdirAll(own, 0o755)
	os.WriteFile(filepath.Join(own, "SKILL.md"), []byte("---\nname: hello\ndescription: My own copy.\n---\nManual.\n"), 0o644)
	os.WriteFile(filepath.Join(own, "run.yaml"), []byte("minimum_runx: 0.1.0\n"+echoStep("9")), 0o644)
	for _, ref := range []string{"acme/hello", "acme/hello@1.0.0", "registry:acme/hello@1.9.0"} {
		env, err := runRef(k, ref)
		if err != nil {
			t.Fatal(err)
		}
		if env.Registry != nil || env.SkillName != "hello" {
			t.Fatalf("%s ran the installed copy %+v; your own copy wins", ref, env.Registry)
		}
	}
	_ = s
}

// fetcherFunc adapts a function to RegistryFetcher.
type fetcherFunc func(ctx context.Context, projectDir string, ref installed.RegistryRef, digest string) (installed.FetchedSkill, error)

func (f fetcherFunc) FetchSkill(ctx context.Context, projectDir, _ string, ref installed.RegistryRef, digest string) (installed.FetchedSkill, error) {
	return f(ctx, projectDir, ref, digest)
}

// What the closure lacks is fetched before the run starts, through the
// fetcher cmd/runx gives the kernel; with none configured, a missing
// registry child refuses the run before anything runs.
func TestRegistryChildFetchedBeforeTheRun(t *testing.T) {
	k, s := stubKernel(t)
	parent := writeSkill(t, k, "parent", "methods:\n  m:\n    steps:\n      - { id: first, tool: stub.echo, inputs: { v: 1 } }\n      - { id: kid, skill: registry:acme/kid@1.0.0 }\n", nil)
	_, err := k.Skill(context.Background(), SkillRequest{Ref: parent, Method: "m", Inputs: pkg.InputSource{Document: []byte(`{}`), HasDocument: true}})
	wantCode(t, err, errcode.RegistryUnavailable)
	if s.calls["stub.echo"] != 0 {
		t.Fatal("a step ran before its registry child was fetched")
	}
	key := trustKey(t, k, "acme")
	var fetched []string
	k.Options.Registry = fetcherFunc(func(_ context.Context, projectDir string, ref installed.RegistryRef, _ string) (installed.FetchedSkill, error) {
		fetched = append(fetched, ref.String())
		rec, files := key.signedSkill(t, ref.Publisher, ref.Name, ref.Version, echoStep("2"))
		if _, err := registry.Install(projectDir, rec, files, mustTrust(t, k)); err != nil {
			return installed.FetchedSkill{}, err
		}
		return installed.FetchedSkill{Version: ref.Version}, nil
	})
	env := runSkill(t, k, parent, "m", `{}`, "")
	if env.Outcome != seal.OutcomeCompleted || s.calls["stub.echo"] != 2 {
		t.Fatalf("outcome %s calls %d: %+v", env.Outcome, s.calls["stub.echo"], env.Error)
	}
	runSkill(t, k, parent, "m", `{}`, "")
	if len(fetched) != 1 || fetched[0] != "acme/kid@1.0.0" {
		t.Fatalf("fetched %v; want acme/kid@1.0.0 once, before the first run", fetched)
	}
}

// A registry ref nothing installed, read where nothing fetches (a load to
// inspect it), is registry_skill_not_installed; a malformed one is
// registry_ref_invalid.
func TestRegistryRefNotInstalled(t *testing.T) {
	k, _ := stubKernel(t)
	_, _, err := k.LoadSkill("acme/none@1.0.0")
	wantCode(t, err, errcode.RegistrySkillNotInstalled)
	_, _, err = k.LoadSkill("registry:acme/none")
	wantCode(t, err, errcode.RegistrySkillNotInstalled)
	_, _, err = k.LoadSkill("registry:Acme/none@1.0.0")
	wantCode(t, err, errcode.RegistryRefInvalid)
}
