package plugin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/runxhq/runx/sdk/boundedre"
)

// NamePattern is what a plugin's name must match. Its binary is
// runx-plugin-<name>, and every capability id it serves starts with the
// name followed by '.' or '/' (fs.read, store/events.append).
var NamePattern = boundedre.MustCompile(`^[a-z][a-z0-9_-]*$`, 1, 64)

// BinaryName is the file name a third-party plugin's binary must have.
func BinaryName(name string) string { return "runx-plugin-" + name }

// PluginOf is the plugin a capability id belongs to: the id up to its first
// '.' or '/'.
func PluginOf(capability string) string {
	if i := strings.IndexAny(capability, "./"); i > 0 {
		return capability[:i]
	}
	return capability
}

// ErrInfoInvalid is what every CheckInfo error matches (errors.Is).
var ErrInfoInvalid = errors.New("plugin description is not well formed")

// InfoError lists every way a Describe answer is not well formed.
type InfoError struct {
	Plugin   string
	Problems []string
}

func (e *InfoError) Error() string {
	return fmt.Sprintf("plugin %q describes itself badly: %s", e.Plugin, strings.Join(e.Problems, "; "))
}

func (e *InfoError) Is(target error) bool { return target == ErrInfoInvalid }

var (
	effects     = map[string]bool{EffectNone: true, EffectRead: true, EffectWrite: true, EffectProcess: true}
	approvals   = map[string]bool{ApprovalNone: true, ApprovalOptional: true, ApprovalRequired: true}
	pathRoles   = map[string]bool{PathRead: true, PathWrite: true, PathDelete: true}
	roles       = map[string]bool{RoleModule: true, RoleScript: true, RoleCommand: true, RoleDataMigrate: true, RoleDataOperation: true, RolePrivateData: true, RoleConnectorRequest: true}
	costPer     = map[string]bool{"request": true, "success": true}
	costSource  = map[string]bool{"docs": true, "rate_card": true, "observed": true}
	schemaTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "integer": true, "string": true}
	adapterID   = boundedre.MustCompile(`^data\.[a-z][a-z0-9_-]*$`, 6, 69)
	// capabilityRest is what follows the plugin name and its separator.
	capabilityRest = boundedre.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./-]*$`, 1, 128)
	// credentialName is a credential's variable name, as the kernel's
	// credential resolver takes it.
	credentialName = boundedre.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`, 1, 128)
)

// CheckInfo reports whether a Describe answer is well formed: the naming
// rule, unique capability and adapter ids, known effect, approval, role
// and path-role values, input and output schemas that are JSON Schema
// objects, and well-formed JSON pointers that name declared inputs. A host
// calls it on every plugin it starts; an author's tests should too. A nil
// answer means well formed; otherwise the error is an *InfoError naming
// every problem.
func CheckInfo(info *Info) error {
	c := &checker{}
	if !NamePattern.MatchString(info.Name) {
		c.addf("name %q does not match %s", info.Name, NamePattern)
	}
	if info.Version == "" {
		c.addf("no version")
	}
	if len(info.Capabilities) == 0 && len(info.Adapters) == 0 {
		c.addf("serves no capability")
	}
	seen := map[string]bool{}
	for i := range info.Capabilities {
		d := &info.Capabilities[i]
		if seen[d.ID] {
			c.addf("capability %q is described twice", d.ID)
		}
		seen[d.ID] = true
		c.definition(info.Name, d)
	}
	adapters := map[string]bool{}
	for _, a := range info.Adapters {
		if !adapterID.MatchString(a.ID) {
			c.addf("adapter id %q does not match %s", a.ID, adapterID)
		}
		if adapters[a.ID] {
			c.addf("adapter %q is described twice", a.ID)
		}
		adapters[a.ID] = true
		if len(a.BindingSchema) > 0 {
			c.schema("adapter "+a.ID+" binding_schema", a.BindingSchema)
		}
		for _, name := range a.Credentials {
			if name == "" {
				c.addf("adapter %q names an empty credential", a.ID)
			}
		}
	}
	if len(c.problems) == 0 {
		return nil
	}
	return &InfoError{Plugin: info.Name, Problems: c.problems}
}

type checker struct{ problems []string }

func (c *checker) addf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

func (c *checker) definition(name string, d *Definition) {
	prefix := PluginOf(d.ID)
	if prefix != name || len(d.ID) <= len(prefix)+1 || !capabilityRest.MatchString(d.ID[len(prefix)+1:]) {
		c.addf("capability id %q is not %s.<name> or %s/<name>", d.ID, name, name)
	}
	if !effects[d.Effect] {
		c.addf("%s: effect %q is none of none, read, write, process", d.ID, d.Effect)
	}
	if !approvals[d.Approval] {
		c.addf("%s: approval %q is none of none, optional, required", d.ID, d.Approval)
	}
	seenRole := map[string]bool{}
	for _, r := range d.Roles {
		if !roles[r] {
			c.addf("%s: role %q is none of module, script, command, data.migrate, data.operation, data.private, connector.request", d.ID, r)
		}
		if seenRole[r] {
			c.addf("%s: role %q is declared twice", d.ID, r)
		}
		seenRole[r] = true
	}
	var input map[string]any
	if len(d.InputSchema) > 0 {
		input = c.schema(d.ID+" input_schema", d.InputSchema)
	}
	if len(d.OutputSchema) > 0 {
		c.schema(d.ID+" output_schema", d.OutputSchema)
	}
	seenPath := map[PathInput]bool{}
	for _, p := range d.PathInputs {
		if !pathRoles[p.Role] {
			c.addf("%s: path input %q has role %q, none of read, write, delete", d.ID, p.Pointer, p.Role)
		}
		if seenPath[p] {
			c.addf("%s: path input %q (%s) is declared twice", d.ID, p.Pointer, p.Role)
		}
		seenPath[p] = true
		c.pointer(d.ID, "path input", p.Pointer, input)
	}
	if d.ArgvInput != "" {
		if d.Effect != EffectProcess {
			c.addf("%s: argv_input is for capabilities of effect process, and this one's is %q", d.ID, d.Effect)
		}
		c.pointer(d.ID, "argv_input", d.ArgvInput, input)
	}
	if d.ArgsInput != "" {
		if d.ArgvInput == "" {
			c.addf("%s: args_input names the arguments after argv_input's command, and there is no argv_input", d.ID)
		}
		c.pointer(d.ID, "args_input", d.ArgsInput, input)
	}
	seenCred := map[string]bool{}
	for _, name := range d.Credentials {
		if !credentialName.MatchString(name) {
			c.addf("%s: credential %q is not a variable name (%s)", d.ID, name, credentialName)
		}
		if seenCred[name] {
			c.addf("%s: credential %q is declared twice", d.ID, name)
		}
		seenCred[name] = true
	}
	if len(d.Credentials) > 0 && len(d.Roles) > 0 {
		// A role capability is invoked with the kernel's own context (a
		// data operation gets its binding's adapter credentials); a
		// credential it declared would be delivered by no one.
		c.addf("%s: credentials are for a capability a step or call names, and this one declares roles %q", d.ID, d.Roles)
	}
	if (d.Previews || d.Recovers) && d.Effect != EffectWrite && d.Effect != EffectProcess {
		c.addf("%s: previews and recovers are for a capability that changes something, and its effect is %q", d.ID, d.Effect)
	}
	if d.Cost != nil {
		if !costPer[d.Cost.Per] {
			c.addf("%s: cost per %q is none of request, success", d.ID, d.Cost.Per)
		}
		if !costSource[d.Cost.Source] {
			c.addf("%s: cost source %q is none of docs, rate_card, observed", d.ID, d.Cost.Source)
		}
		if d.Cost.USDMicro != nil && *d.Cost.USDMicro < 0 {
			c.addf("%s: cost is negative", d.ID)
		}
	}
}
