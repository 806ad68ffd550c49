package host

import (
	"context"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// badcap describes itself against the contract: a capability outside its
// own prefix and an effect class runx does not know.
type badcap struct{ name string }

func (b badcap) Info() sdk.Info {
	return sdk.Info{Name: b.name, Version: "0.0.1", Capabilities: []sdk.Definition{
		{ID: "other.echo", Summary: "echo", Effect: "sideways", Approval: sdk.ApprovalNone},
	}}
}

func (badcap) Invoke(_ context.Context, call *sdk.Call) *sdk.Result { return sdk.OK(call.Input, nil) }

// The host holds every plugin it starts to the Describe contract
// (sdk/plugin.CheckInfo) and to the naming rule, before any call reaches it.
func TestHostRefusesABadDescription(t *testing.T) {
	s := newTestSupervisor(t)
	_, _, err := s.Describe(context.Background(), "testbad")
	if code := hostCode(t, err); code != "plugin_describe_invalid" {
		t.Fatalf("want %s, got %s (%v)", errcode.PluginDescribeInvalid, code, err)
	}
	for _, want := range []string{"testbad", "other.echo", "sideways"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not name %q", err.Error(), want)
		}
	}
	if _, _, err := s.Invoke(context.Background(), call("testbad.echo", `{}`), 0); hostCode(t, err) != "plugin_describe_invalid" {
		t.Fatalf("a call to the badly described plugin must be refused too, got %v", err)
	}
}

func TestHostRefusesAPluginNamedOtherwise(t *testing.T) {
	s := newTestSupervisor(t)
	_, _, err := s.Describe(context.Background(), "testalias")
	if code := hostCode(t, err); code != "plugin_describe_mismatch" {
		t.Fatalf("want %s, got %s (%v)", errcode.PluginDescribeMismatch, code, err)
	}
	if !strings.Contains(err.Error(), "someoneelse") {
		t.Fatalf("refusal must name what the plugin called itself: %v", err)
	}
}
