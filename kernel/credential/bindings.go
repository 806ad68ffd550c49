package credential

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/atomicfile"
	"github.com/runxhq/runx/sdk/boundedre"
	"github.com/runxhq/runx/sdk/errcode"
)

// BindingsFile is the runx home's record of `runx connector use`: which
// environment variable or stored secret delivers each connector's
// credential. It holds names only, never a value; it is still written 0600,
// as it says which accounts this person uses.
const BindingsFile = "connector-bindings.json"

// BindingsSchema names the bindings file's format.
const BindingsSchema = "runx.connector_bindings.v1"

var (
	// A connector is named by its directory, namespaced at most one level
	// (connectors/google/calendar).
	connectorPart = boundedre.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`, 1, 64)
	variableName  = boundedre.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`, 1, 128)
)

// ValidConnectorName reports whether name has a connector name's shape.
func ValidConnectorName(name string) bool {
	first, rest, nested := strings.Cut(name, "/")
	return connectorPart.MatchString(first) && (!nested || connectorPart.MatchString(rest))
}

// ValidVariableName reports whether name can name an environment variable.
func ValidVariableName(name string) bool { return variableName.MatchString(name) }

// Binding says where one connector's credential comes from: an environment
// variable (Env) or a stored secret (Secret), exactly one. Variable is the
// variable the connector declares, as it was when the binding was recorded.
type Binding struct {
	Connector string `json:"-"`
	Variable  string `json:"variable,omitempty"`
	Env       string `json:"env,omitempty"`
	Secret    string `json:"secret,omitempty"`
}

type bindingsDoc struct {
	Schema     string             `json:"schema"`
	Connectors map[string]Binding `json:"connectors"`
}

// DefaultSecretName is the stored secret a value piped to `runx connector
// use <connector>` is kept under.
func DefaultSecretName(connector string) string {
	return "connector-" + strings.ReplaceAll(connector, "/", ".")
}

func (b Binding) check() error {
	if !ValidConnectorName(b.Connector) {
		return contract.Errorf(errcode.ConnectorNameInvalid, "%q is not a connector name (letters, digits, '.', '-', '_', namespaced at most once with '/')", b.Connector)
	}
	if b.Variable != "" && !ValidVariableName(b.Variable) {
		return contract.Errorf(errcode.CredentialVariableInvalid, "%q is not an environment variable name", b.Variable)
	}
	switch {
	case (b.Env == "") == (b.Secret == ""):
		return contract.Errorf(errcode.CredentialBindingInvalid, "a connector binding names exactly one of an environment variable or a stored secret")
	case b.Env != "" && !ValidVariableName(b.Env):
		return contract.Errorf(errcode.CredentialVariableInvalid, "%q is not an environment variable name", b.Env)
	case b.Secret != "" && !ValidSecretName(b.Secret):
		return contract.Errorf(errcode.SecretNameInvalid, "%q is not a secret name", b.Secret)
	}
	return nil
}

// Bindings reads the recorded connector bindings (none when the file is
// absent).
func Bindings(homeDir string) (map[string]Binding, error) {
	path := filepath.Join(homeDir, BindingsFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Binding{}, nil
	}
	if err != nil {
		return nil, contract.Errorf(errcode.ConnectorBindingsUnreadable, "cannot read %s: %v", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var doc bindingsDoc
	if err := dec.Decode(&doc); err != nil || doc.Schema != BindingsSchema {
		return nil, contract.Errorf(errcode.ConnectorBindingsInvalid, "%s is not a %s document; move it aside and run `runx connector use` again", path, BindingsSchema)
	}
	out := make(map[string]Binding, len(doc.Connectors))
	for name, b := range doc.Connectors {
		b.Connector = name
		if err := b.check(); err != nil {
			return nil, contract.Errorf(errcode.ConnectorBindingsInvalid, "%s: connector %s: %s", path, name, err.Error())
		}
		out[name] = b
	}
	return out, nil
}

// Bind records b, replacing the connector's earlier binding.
func Bind(homeDir string, b Binding) error {
	if err := b.check(); err != nil {
		return err
	}
	all, err := Bindings(homeDir)
	if err != nil {
		return err
	}
	all[b.Connector] = b
	if err := os.MkdirAll(homeDir, 0o700); err != nil {
		return err
	}
	doc := bindingsDoc{Schema: BindingsSchema, Connectors: all}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(homeDir, BindingsFile), append(out, '\n'), 0o600)
}

// Connectors lists the connectors with a recorded binding, sorted.
func Connectors(all map[string]Binding) []string {
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
