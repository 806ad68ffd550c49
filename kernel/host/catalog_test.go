package host

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// oldcap is a plugin built before path inputs, previews, recovery, roles
// and adapters: it declares none of them and must still be served.
type oldcap struct{}

func (oldcap) Info() sdk.Info {
	return sdk.Info{Name: "testold", Version: "0.0.1", Capabilities: []sdk.Definition{
		{ID: "testold.echo", Summary: "echo", Effect: sdk.EffectWrite, Approval: sdk.ApprovalNone},
	}}
}

func (oldcap) Invoke(_ context.Context, call *sdk.Call) *sdk.Result { return sdk.OK(call.Input, nil) }

// catalogSupervisor knows testcap (and testold) in process, as cmd/runx
// hands the kernel its compiled-in plugins.
func catalogSupervisor(t *testing.T, infos map[string]func() sdk.Info) *Supervisor {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := NewSupervisor(Config{
		Discovery:   &Discovery{Self: self, ProjectDir: dir + "/.runx", HomeDir: dir + "/home"},
		RunxVersion: "0.1.0-test",
		FirstParty:  infos,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func stubInfos() map[string]func() sdk.Info {
	return map[string]func() sdk.Info{"testcap": testcap{}.Info, "testold": oldcap{}.Info}
}

func TestCatalogDescribesFirstPartyWithoutAProcess(t *testing.T) {
	s := catalogSupervisor(t, stubInfos())
	def, ref, err := s.Definition(context.Background(), "testcap.typed")
	if err != nil || def.ID != "testcap.typed" || ref.Name != "testcap" {
		t.Fatalf("got %+v %+v %v", def, ref, err)
	}
	found, err := s.ByRole(context.Background(), sdk.RoleModule)
	if err != nil || len(found) != 2 || found[0].Definition.ID != "testcap.typed" {
		t.Fatalf("ByRole(module) = %+v, %v", found, err)
	}
	if _, err := s.RoleCapability(context.Background(), sdk.RoleDataMigrate); hostCode(t, err) != "capability_role_unserved" {
		t.Fatalf("want %s, got %v", errcode.CapabilityRoleUnserved, err)
	}
	if _, _, err := s.Adapter(context.Background(), "data.none"); hostCode(t, err) != "data_adapter_not_found" {
		t.Fatalf("want %s, got %v", errcode.DataAdapterNotFound, err)
	}
	if pid := s.Pid("testcap"); pid != 0 {
		t.Fatalf("describing a first-party plugin started process %d", pid)
	}
	// The first call starts it, and its Describe matches the catalog.
	if res, _, err := s.Invoke(context.Background(), call("testcap.echo", `{}`), 0); err != nil || res.Status != sdk.StatusOK {
		t.Fatalf("got %+v %v", res, err)
	}
}

func TestCatalogRefusesAProcessThatDescribesOtherwise(t *testing.T) {
	infos := stubInfos()
	infos["testcap"] = func() sdk.Info {
		info := testcap{}.Info()
		info.Version = "9.9.9"
		return info
	}
	s := catalogSupervisor(t, infos)
	_, _, err := s.Invoke(context.Background(), call("testcap.echo", `{}`), 0)
	if hostCode(t, err) != "plugin_describe_mismatch" || !strings.Contains(err.Error(), "9.9.9") {
		t.Fatalf("want %s naming the versions, got %v", errcode.PluginDescribeMismatch, err)
	}
	infos["testcap"] = func() sdk.Info {
		info := testcap{}.Info()
		info.Capabilities = info.Capabilities[1:]
		return info
	}
	s = catalogSupervisor(t, infos)
	if _, _, err := s.Invoke(context.Background(), call("testcap.pid", `{}`), 0); hostCode(t, err) != "plugin_describe_mismatch" {
		t.Fatalf("a process serving other capabilities must be refused, got %v", err)
	}
}

func TestCapabilitySchemasAreEnforcedBothWays(t *testing.T) {
	s := catalogSupervisor(t, stubInfos())
	ctx := context.Background()
	res, _, err := s.Invoke(ctx, call("testcap.typed", `{"message":"hi","items":[1,2]}`), 0)
	if err != nil || res.Status != sdk.StatusOK {
		t.Fatalf("a valid call: %+v %v", res, err)
	}
	for input, pointer := range map[string]string{
		`{"message":5}`:                   "/message",
		`{"items":[1]}`:                   "the value",
		`{"message":"x","items":[1,"a"]}`: "/items/1",
		`[]`:                              "the value",
	} {
		res, _, err := s.Invoke(ctx, call("testcap.typed", input), 0)
		if err != nil || res.Status != sdk.StatusRefused || res.Code != errcode.CapabilityInputInvalid || !strings.Contains(res.Message, pointer) {
			t.Errorf("input %s: want %s naming %s, got %+v %v", input, errcode.CapabilityInputInvalid, pointer, res, err)
		}
	}
	res, _, err = s.Invoke(ctx, call("testcap.badout", `{"message":"hi"}`), 0)
	if err != nil || res.Status != sdk.StatusFailed || res.Code != errcode.CapabilityOutputInvalid || !strings.Contains(res.Message, "/message") {
		t.Fatalf("want %s naming /message, got %+v %v", errcode.CapabilityOutputInvalid, res, err)
	}
}

func TestAPluginDeclaringNoNewFieldsStillRuns(t *testing.T) {
	s := catalogSupervisor(t, stubInfos())
	res, _, err := s.Invoke(context.Background(), call("testold.echo", `{"a":1}`), 0)
	if err != nil || res.Status != sdk.StatusOK || string(res.Output) != `{"a":1}` {
		t.Fatalf("got %+v %v", res, err)
	}
	// It declares no preview and implements none: the host says so typed.
	if _, _, err := s.Preview(context.Background(), call("testold.echo", `{}`), 0); err == nil || !errorsIsNotImplemented(err) {
		t.Fatalf("Preview of an old plugin: want ErrNotImplemented, got %v", err)
	}
	if _, _, err := s.Recover(context.Background(), call("testold.echo", ``)); err == nil || !errorsIsNotImplemented(err) {
		t.Fatalf("Recover of an old plugin: want ErrNotImplemented, got %v", err)
	}
}

func errorsIsNotImplemented(err error) bool { return errors.Is(err, sdk.ErrNotImplemented) }

// BenchmarkCapabilitySchemaCheck is what schema enforcement adds to one warm
// call: the input checked before Invoke and the output after, with the
// schemas already compiled.
func BenchmarkCapabilitySchemaCheck(b *testing.B) {
	c := newCatalog(nil)
	def := typed("testcap.typed")
	c2 := call("testcap.typed", `{"message":"hi"}`)
	res := sdk.OK([]byte(`{"message":"HI"}`), nil)
	cs := c.schemasFor("bench", &def)
	b.ReportAllocs()
	for b.Loop() {
		if cs.checkInput("testcap", c2) != nil || cs.checkOutput("testcap", c2, res) != res {
			b.Fatal("a valid call was refused")
		}
	}
}
