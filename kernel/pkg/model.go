package pkg

import "github.com/runxhq/runx/kernel/pkg/schema"

// ImplicitMethodName names the one method of a package without run.yaml.
// "default" says what it is: the only thing the package does, chosen when
// nothing is named. ImplicitStepID is the id of its single agent step, the
// key a test's host.answers uses to answer it.
const (
	ImplicitMethodName = "default"
	ImplicitStepID     = "agent"
)

// Package is a loaded, validated skill package. It holds no open resources.
type Package struct {
	Dir          string `json:"dir"`           // absolute, symlinks resolved
	Name         string `json:"name"`          // SKILL.md front matter
	Description  string `json:"description"`   // SKILL.md front matter
	Manual       string `json:"manual"`        // SKILL.md after the front matter
	ManualDigest string `json:"manual_digest"` // sha256:<hex> of Manual's UTF-8 bytes
	// Metadata holds the front matter fields other than name and description
	// (license, catalog, ...), kept as written for presentation.
	Metadata      map[string]any `json:"metadata,omitempty"`
	Methods       []*Method      `json:"methods"` // declared order
	DefaultMethod string         `json:"default_method,omitempty"`
	MinimumRunx   string         `json:"minimum_runx,omitempty"`
	// Digest binds a run to the exact package files: see PackageDigest.
	Digest   string `json:"digest"`
	Implicit bool   `json:"implicit"` // no run.yaml: one agent method over the manual
	// Connectors are the package's own connectors/<name>/ manifests, by name.
	Connectors map[string]*Connector `json:"connectors,omitempty"`
	// ConnectorPins are run.yaml's connectors: the manifest digest each
	// connector outside the package that its steps call is held to, by
	// name. An added connector whose manifest differs is refused at its use.
	ConnectorPins map[string]string `json:"connector_pins,omitempty"`
	// Registry is the signed identity of a package bound from the
	// project's added skills, as its verified signature.json states it;
	// nil for every other package. Only kernel/run's resolver sets it,
	// after the signature verified against the package's bytes.
	Registry *RegistryIdentity         `json:"registry,omitempty"`
	Schemas  map[string]map[string]any `json:"schemas,omitempty"` // its packet schemas by id (packets.go)

	// minimumRunxPos is where run.yaml declares minimum_runx, for the
	// check a load served from memory makes again (loadcache.go).
	minimumRunxPos Position
	// tree is the listing Load checked the package's files against, when
	// the load was served from it or remembered on it (DeriveFromFiles).
	tree *treeSnapshot
}

// RegistryIdentity is who published an installed package, at which
// version and over which bytes, and the trust tier its registry states.
type RegistryIdentity struct {
	Registry      string `json:"registry"`
	Publisher     string `json:"publisher"`
	Name          string `json:"name"`
	Version       string `json:"version"`
	ContentDigest string `json:"content_digest"`
	TrustTier     string `json:"trust_tier"`
}

// Ref is the identity's publisher/name@version.
func (r *RegistryIdentity) Ref() string { return r.Publisher + "/" + r.Name + "@" + r.Version }

// Method is one entry point of a package.
type Method struct {
	Name string `json:"name"`
	// Description is the method's own, or the package's when the package has
	// only this method and it declares none.
	Description string                 `json:"description"`
	Inputs      []*InputSpec           `json:"inputs,omitempty"` // declared order
	Outputs     map[string]*OutputSpec `json:"outputs,omitempty"`
	// ResultFrom names the steps whose outputs form the result, as declared;
	// empty means the last step (see ResultSteps).
	ResultFrom []string `json:"result_from,omitempty"`
	Effects    string   `json:"effects,omitempty"` // none | ask | allow: narrows only
	Reach      string   `json:"reach,omitempty"`   // workspace | inputs: narrows only
	Steps      []*Step  `json:"steps"`
}

// Input types a method may declare.
const (
	TypeString  = "string"
	TypeInteger = "integer"
	TypeNumber  = "number"
	TypeBoolean = "boolean"
	TypeObject  = "object"
	TypeArray   = "array"
	TypeJSON    = "json" // any JSON value, null included
)

var inputTypes = []string{TypeString, TypeInteger, TypeNumber, TypeBoolean, TypeObject, TypeArray, TypeJSON}

// InputSpec declares one method input.
type InputSpec struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	// Default applies when the input is absent (or null where it does not
	// accept null); HasDefault tells `default: null` from no default.
	Default    any            `json:"default,omitempty"`
	HasDefault bool           `json:"has_default,omitempty"`
	Schema     map[string]any `json:"schema,omitempty"` // optional JSON Schema: the subset kernel/pkg/schema describes

	// compiled is Schema compiled at load; specs built by hand compile on use.
	compiled *schema.Schema
}

// OutputSpec declares one output of a method or step.
type OutputSpec struct {
	Type        string         `json:"type,omitempty"`
	Description string         `json:"description,omitempty"`
	Optional    bool           `json:"optional,omitempty"` // a skippable branch may not produce it
	Schema      map[string]any `json:"schema,omitempty"`
	Packet      string         `json:"packet,omitempty"` // the packet it is: checked, kept as an artifact (kernel/packet)
	// compiled is Schema compiled at load; specs built by hand compile on use.
	compiled *schema.Schema
}

// Method returns the method called name, or nil.
func (p *Package) Method(name string) *Method {
	for _, m := range p.Methods {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// MethodNames lists the methods in declared order.
func (p *Package) MethodNames() []string {
	names := make([]string, len(p.Methods))
	for i, m := range p.Methods {
		names[i] = m.Name
	}
	return names
}

// Step returns the step with the given id, or nil.
func (m *Method) Step(id string) *Step {
	for _, s := range m.Steps {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// Input returns the declared input called name, or nil.
func (m *Method) Input(name string) *InputSpec {
	for _, in := range m.Inputs {
		if in.Name == name {
			return in
		}
	}
	return nil
}

// ResultSteps returns the steps the method's result comes from: ResultFrom
// when declared, otherwise the last step.
func (m *Method) ResultSteps() []string {
	if len(m.ResultFrom) > 0 {
		return m.ResultFrom
	}
	if len(m.Steps) == 0 {
		return nil
	}
	return []string{m.Steps[len(m.Steps)-1].ID}
}
