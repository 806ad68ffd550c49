package plugin_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
)

func goodInfo() plugin.Info {
	return plugin.Info{Name: "notes", Version: "1.0.0", Capabilities: []plugin.Definition{
		{ID: "notes.put", Effect: plugin.EffectWrite, Approval: plugin.ApprovalOptional, Previews: true, Recovers: true, Credentials: []string{"NOTES_TOKEN"},
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"items":{"type":"array","items":{"type":"object","properties":{"p/q":{"type":"string"}}}}}}`),
			PathInputs:  []plugin.PathInput{{Pointer: "/path", Role: plugin.PathWrite}, {Pointer: "/path", Role: plugin.PathDelete}, {Pointer: "/items/*/p~1q", Role: plugin.PathRead}}},
		{ID: "notes/run", Effect: plugin.EffectProcess, Approval: plugin.ApprovalRequired, ArgvInput: "/argv", Roles: []string{plugin.RoleScript}},
	}, Adapters: []plugin.Adapter{{ID: "data.notes", BindingSchema: json.RawMessage(`{"type":"object"}`), Credentials: []string{"token"}}}}
}

func TestCheckInfoAcceptsAWellFormedDescription(t *testing.T) {
	info := goodInfo()
	if err := plugin.CheckInfo(&info); err != nil {
		t.Fatal(err)
	}
}

// Each rule refuses its violation, and names it.
func TestCheckInfoRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*plugin.Info)
		want   string
	}{
		"bad name":            {func(i *plugin.Info) { i.Name = "Notes" }, `name "Notes"`},
		"no version":          {func(i *plugin.Info) { i.Version = "" }, "no version"},
		"nothing served":      {func(i *plugin.Info) { i.Capabilities, i.Adapters = nil, nil }, "serves no capability"},
		"foreign prefix":      {func(i *plugin.Info) { i.Capabilities[0].ID = "fs.put" }, `"fs.put" is not notes.<name>`},
		"bare name":           {func(i *plugin.Info) { i.Capabilities[0].ID = "notes" }, `"notes" is not`},
		"empty rest":          {func(i *plugin.Info) { i.Capabilities[0].ID = "notes." }, `"notes." is not`},
		"duplicate id":        {func(i *plugin.Info) { i.Capabilities[1].ID = "notes.put" }, "described twice"},
		"unknown effect":      {func(i *plugin.Info) { i.Capabilities[0].Effect = "network" }, `effect "network"`},
		"empty effect":        {func(i *plugin.Info) { i.Capabilities[0].Effect = "" }, `effect ""`},
		"unknown approval":    {func(i *plugin.Info) { i.Capabilities[0].Approval = "always" }, `approval "always"`},
		"unknown role":        {func(i *plugin.Info) { i.Capabilities[1].Roles = []string{"migrate"} }, `role "migrate"`},
		"repeated role":       {func(i *plugin.Info) { i.Capabilities[1].Roles = []string{"script", "script"} }, "declared twice"},
		"unknown path role":   {func(i *plugin.Info) { i.Capabilities[0].PathInputs[0].Role = "rename" }, `role "rename"`},
		"relative pointer":    {func(i *plugin.Info) { i.Capabilities[0].PathInputs[0].Pointer = "path" }, "must start with /"},
		"bad escape":          {func(i *plugin.Info) { i.Capabilities[0].PathInputs[0].Pointer = "/pa~th" }, "neither ~0 nor ~1"},
		"empty segment":       {func(i *plugin.Info) { i.Capabilities[0].PathInputs[0].Pointer = "/items//p" }, "empty segment"},
		"undeclared input":    {func(i *plugin.Info) { i.Capabilities[0].PathInputs[0].Pointer = "/paht" }, `names "paht"`},
		"undeclared in item":  {func(i *plugin.Info) { i.Capabilities[0].PathInputs[2].Pointer = "/items/*/q" }, `names "q"`},
		"repeated path":       {func(i *plugin.Info) { i.Capabilities[0].PathInputs[1].Role = plugin.PathWrite }, "declared twice"},
		"argv on a write":     {func(i *plugin.Info) { i.Capabilities[0].ArgvInput = "/path" }, "argv_input is for capabilities of effect process"},
		"bad argv pointer":    {func(i *plugin.Info) { i.Capabilities[1].ArgvInput = "argv" }, "must start with /"},
		"preview on a read":   {func(i *plugin.Info) { i.Capabilities[0].Effect = plugin.EffectRead }, "previews and recovers"},
		"credential name":     {func(i *plugin.Info) { i.Capabilities[0].Credentials = []string{"NOTES-TOKEN"} }, `credential "NOTES-TOKEN" is not a variable name`},
		"repeated credential": {func(i *plugin.Info) { i.Capabilities[0].Credentials = []string{"T", "T"} }, `credential "T" is declared twice`},
		"credential on role":  {func(i *plugin.Info) { i.Capabilities[1].Credentials = []string{"T"} }, "credentials are for a capability a step or call names"},
		"schema not json":     {func(i *plugin.Info) { i.Capabilities[0].InputSchema = json.RawMessage(`{`) }, "is not JSON"},
		"schema not object":   {func(i *plugin.Info) { i.Capabilities[0].OutputSchema = json.RawMessage(`[1]`) }, "not a JSON Schema object"},
		"schema bad type":     {func(i *plugin.Info) { i.Capabilities[1].InputSchema = json.RawMessage(`{"type":"map"}`) }, `type "map"`},
		"schema bad props":    {func(i *plugin.Info) { i.Capabilities[1].InputSchema = json.RawMessage(`{"properties":[]}`) }, "properties must be an object"},
		"schema bad nested": {func(i *plugin.Info) {
			i.Capabilities[1].InputSchema = json.RawMessage(`{"properties":{"a":{"items":7}}}`)
		}, "neither a schema object nor a boolean"},
		"schema bad req":     {func(i *plugin.Info) { i.Capabilities[1].InputSchema = json.RawMessage(`{"required":"a"}`) }, "required must be an array of strings"},
		"schema empty anyOf": {func(i *plugin.Info) { i.Capabilities[1].InputSchema = json.RawMessage(`{"anyOf":[]}`) }, "non-empty array"},
		"bad adapter id":     {func(i *plugin.Info) { i.Adapters[0].ID = "notes" }, `adapter id "notes"`},
		"duplicate adapter":  {func(i *plugin.Info) { i.Adapters = append(i.Adapters, i.Adapters[0]) }, `adapter "data.notes" is described twice`},
		"bad binding schema": {func(i *plugin.Info) { i.Adapters[0].BindingSchema = json.RawMessage(`"x"`) }, "binding_schema is not a JSON Schema object"},
		"empty credential":   {func(i *plugin.Info) { i.Adapters[0].Credentials = []string{""} }, "empty credential"},
		"bad cost":           {func(i *plugin.Info) { i.Capabilities[0].Cost = &plugin.Cost{Per: "month", Source: "docs"} }, `cost per "month"`},
	} {
		t.Run(name, func(t *testing.T) {
			info := goodInfo()
			tc.mutate(&info)
			err := plugin.CheckInfo(&info)
			var ie *plugin.InfoError
			if !errors.As(err, &ie) || !errors.Is(err, plugin.ErrInfoInvalid) {
				t.Fatalf("want an *InfoError, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%q does not say %q", err, tc.want)
			}
		})
	}
}

// Every role constant is one CheckInfo knows.
func TestCheckInfoKnowsEveryRole(t *testing.T) {
	info := goodInfo()
	info.Capabilities[1].Roles = []string{plugin.RoleModule, plugin.RoleScript, plugin.RoleCommand, plugin.RoleDataMigrate, plugin.RoleDataOperation}
	if err := plugin.CheckInfo(&info); err != nil {
		t.Fatal(err)
	}
}

func TestNamingRule(t *testing.T) {
	for id, want := range map[string]string{"fs.read": "fs", "store/events.append": "store", "js.module": "js", "bare": "bare"} {
		if got := plugin.PluginOf(id); got != want {
			t.Errorf("PluginOf(%q) = %q, want %q", id, got, want)
		}
	}
	if plugin.BinaryName("echo") != "runx-plugin-echo" {
		t.Fatal(plugin.BinaryName("echo"))
	}
}
