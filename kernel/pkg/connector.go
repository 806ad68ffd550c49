package pkg

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gowebpki/jcs"

	"github.com/runxhq/runx/kernel/pkg/jsonvalue"
	"github.com/runxhq/runx/sdk/errcode"
)

// Connector files and where they live. A package carries each connector
// it declares at connectors/<name>/connector.yaml; a project holds the
// connectors runx added at .runx/added-connectors/<name>/<version>/.
const (
	ConnectorFile          = "connector.yaml"
	ConnectorsDir          = "connectors"
	AddedConnectorsDir     = "added-connectors"
	connectorDigestVersion = "runx.connector-operation.v1"
)

// Operation verbs.
const (
	VerbRead  = "read"
	VerbWrite = "write"
)

// Connector is one parsed, validated connector manifest: how to reach a
// provider and the exact operations runx may perform on it.
type Connector struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	// BaseURL is the authenticated origin: every request goes to it, and
	// caller input only narrows the path under it.
	BaseURL    string                `json:"base_url"`
	Credential *ConnectorCredential  `json:"credential,omitempty"`
	Operations []*ConnectorOperation `json:"operations"` // declared order

	// Dir is the connector's directory (absolute).
	Dir string `json:"-"`
	// ManifestDigest is sha256 over connector.yaml's exact bytes;
	// ConnectorDigest binds every file of the connector's directory.
	ManifestDigest  string `json:"manifest_digest"`
	ConnectorDigest string `json:"connector_digest"`
	// RegistryVersion is the registry version a connector installed from
	// a registry was verified at ("sha-..."); empty for any other.
	RegistryVersion string `json:"-"`
}

// ConnectorCredential says which credential the connector needs and how it
// is delivered: the header it travels in, with an optional scheme before
// it ("Bearer <value>").
type ConnectorCredential struct {
	Variable string `json:"variable"`
	Header   string `json:"header"`
	Scheme   string `json:"scheme,omitempty"`
}

// ConnectorOperation is one operation a connector declares.
type ConnectorOperation struct {
	Name    string `json:"name"`
	Summary string `json:"summary,omitempty"`
	Verb    string `json:"verb"` // read | write
	// Scopes are opaque capability strings, kept exactly as written, in
	// order, duplicates included: runx never reparses them.
	Scopes []string `json:"scopes,omitempty"`
	// Target is a template over the inputs ("boards/{board}") naming what
	// the operation acts on; it binds the provider key and the summary.
	Target      string                 `json:"target"`
	Approval    string                 `json:"approval"` // none | optional | required
	Cost        *OperationCost         `json:"cost,omitempty"`
	Payment     *OperationPayment      `json:"payment,omitempty"`
	Request     OperationRequest       `json:"request"`
	Idempotency *OperationIdempotency  `json:"idempotency,omitempty"`
	Readbacks   []*Readback            `json:"readbacks,omitempty"`
	Inputs      []*InputSpec           `json:"inputs,omitempty"`
	Outputs     map[string]*OutputSpec `json:"outputs,omitempty"`
	// Digest binds the operation's meaning: everything above, the price
	// and its basis included, but not where the price was read
	// (cost.source_url), so a changed price is a changed operation.
	Digest string `json:"digest"`
}

// OperationCost is what the provider charges per call. A nil USDMicro is an
// unknown price, never free.
type OperationCost struct {
	USDMicro  *int64 `json:"usd_micro,omitempty"`
	Per       string `json:"per"`    // request | success
	Source    string `json:"source"` // docs | rate_card | observed
	SourceURL string `json:"source_url,omitempty"`
}

// OperationPayment is the money a payment operation moves, derived from
// its declared inputs so a step never states an amount: Amount is
// $input.<integer input>, Currency a literal code (USD, USDC, ...) or
// $input.<string input>. Under a money limit USD amounts count as cents and
// USDC amounts as micro-USD; any other currency cannot be counted.
type OperationPayment struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// OperationRequest renders one HTTP request from the operation's inputs,
// or, with Tool, one MCP tool call on the connector's MCP server (its
// base_url), with Body as the tool's arguments. Values are literals or
// whole-value references $input.<name>.
type OperationRequest struct {
	Method string            `json:"method,omitempty"`
	Path   string            `json:"path,omitempty"` // "/boards/{board}/posts": {name} is an input, path-escaped
	Query  map[string]string `json:"query,omitempty"`
	Tool   string            `json:"tool,omitempty"`
	// Body is the JSON body (a tool's arguments), or nil for none.
	Body any `json:"body,omitempty"`
}

// OperationIdempotency is how the provider deduplicates a write: the header
// carrying the provider key, and how long the provider honours it.
type OperationIdempotency struct {
	Header        string `json:"header"`
	WindowSeconds int    `json:"window_seconds"`
}

// Readback confirms a write by an independent read of the same connector.
// Inputs are the read's inputs ($input.<name>, $response.<path> of the
// write's answer, $key for the provider key); Confirms maps each field of
// the read's answer to the value the write's identity says it must hold.
type Readback struct {
	Operation string            `json:"operation"`
	Inputs    map[string]string `json:"inputs,omitempty"`
	Confirms  map[string]string `json:"confirms"`
}

// NeedsAnswer reports whether the readback refers to the write's answer
// ($response.<path>): it can run only when that answer was read. One that
// identifies the act by $key or the write's inputs alone can also
// reconcile an attempt whose answer was lost.
func (rb *Readback) NeedsAnswer() bool {
	for _, m := range []map[string]string{rb.Inputs, rb.Confirms} {
		for _, v := range m {
			if strings.HasPrefix(v, "$response.") {
				return true
			}
		}
	}
	return false
}

// FindsByKey reports whether the readback looks the act up by its
// provider key ($key among its inputs), which the provider honours only
// within its idempotency window.
func (rb *Readback) FindsByKey() bool {
	for _, v := range rb.Inputs {
		if v == "$key" {
			return true
		}
	}
	return false
}

// Operation returns the operation called name, or nil.
func (c *Connector) Operation(name string) *ConnectorOperation {
	for _, op := range c.Operations {
		if op.Name == name {
			return op
		}
	}
	return nil
}

// Input returns the operation's declared input called name, or nil.
func (op *ConnectorOperation) Input(name string) *InputSpec {
	for _, in := range op.Inputs {
		if in.Name == name {
			return in
		}
	}
	return nil
}

// CheckInputs checks a call's inputs against the operation's declarations:
// declared inputs only (idempotency_key aside, which the kernel adds to a
// write), each of its type, the required ones present.
func (op *ConnectorOperation) CheckInputs(inputs map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(inputs))
	for name, v := range inputs {
		if name == "idempotency_key" {
			continue
		}
		spec := op.Input(name)
		if spec == nil {
			return nil, refuse(errcode.InputUnknown, "operation %s takes no input %q", op.Name, name)
		}
		if v == nil && !spec.AcceptsNull() {
			continue
		}
		checked, err := spec.check(v)
		if err != nil {
			return nil, refuse(errcode.InputTypeInvalid, "operation %s input %q %v", op.Name, name, err)
		}
		out[name] = checked
	}
	for _, spec := range op.Inputs {
		if _, ok := out[spec.Name]; ok {
			continue
		}
		switch {
		case spec.HasDefault:
			out[spec.Name] = jsonvalue.Clone(spec.Default)
		case spec.Required:
			return nil, refuse(errcode.InputMissing, "operation %s needs input %q%s", op.Name, spec.Name, describeInput(spec))
		}
	}
	return out, nil
}

// LoadConnector reads and validates the connector in dir, whose name (its
// manifest id) is name.
func LoadConnector(dir, name string) (*Connector, error) {
	return loadConnector(dir, name, PackageDigest)
}

// loadConnector is LoadConnector with its connector digest taken by digest.
func loadConnector(dir, name string, digest func(string) (string, error)) (*Connector, error) {
	path := filepath.Join(dir, ConnectorFile)
	src, err := readPackageFile(path)
	if err != nil {
		return nil, err
	}
	if src == nil {
		return nil, refuse(errcode.ConnectorInvalid, "%s holds no %s", dir, ConnectorFile)
	}
	c, err := decodeConnector(path, src, name)
	if err != nil {
		return nil, err
	}
	if c.Dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	c.ManifestDigest = contentDigest(src)
	if c.ConnectorDigest, err = digest(dir); err != nil {
		return nil, err
	}
	return c, nil
}

// loadPackageConnectors reads every connectors/<name>/connector.yaml of a
// package (a name may be namespaced one level: connectors/google/calendar).
func loadPackageConnectors(dir string) (map[string]*Connector, error) {
	root := filepath.Join(dir, ConnectorsDir)
	if _, err := os.Stat(root); os.IsNotExist(err) {
		return nil, nil
	}
	out := map[string]*Connector{}
	var walk func(sub string, depth int) error
	walk = func(sub string, depth int) error {
		entries, err := os.ReadDir(filepath.Join(root, sub))
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			name := filepath.ToSlash(filepath.Join(sub, e.Name()))
			cdir := filepath.Join(root, name)
			if _, err := os.Stat(filepath.Join(cdir, ConnectorFile)); err == nil {
				c, err := LoadConnector(cdir, name)
				if err != nil {
					return err
				}
				out[name] = c
			} else if depth == 0 {
				if err := walk(name, 1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk("", 0); err != nil {
		return nil, err
	}
	return out, nil
}

// Files a registry writes into a package it installs, beside the
// package's own: the package manifest marking its root and the signed
// record (kernel/registry's ManifestFile and SignatureFile).
const (
	RegistryManifestFile  = "runx.package.json"
	RegistrySignatureFile = "signature.json"
)

// SignedConnector is what a registry's signed record states of a
// connector it installed: the registry version naming its directory, and
// the connector's manifest and connector digests.
type SignedConnector struct {
	Version         string
	ManifestDigest  string
	ConnectorDigest string
}

// InstalledVerifier verifies the connector a registry installed at dir (a
// version directory holding signature.json) against its signed record,
// before anything of it is read, and returns what the record states of it.
// kernel/registry provides it (ConnectorVerifier), over the runx home's
// trust store.
type InstalledVerifier func(dir string) (SignedConnector, error)

// registryVersion matches a registry connector version, "sha-" and 12 hex
// digits of the package's content digest.
var registryVersion = regexp.MustCompile(`^sha-[0-9a-f]{12}$`)

// LoadAddedConnector reads the connector runx added to a project under
// projectDir/added-connectors/<name>/<version>/. With no version named,
// exactly one version may be installed.
//
// A version directory holding signature.json is a registry install: verify
// checks it against its signed record first (an edited or unsigned copy is
// refused there, and nothing of it is used), its directory is its registry
// version, and its digests must be the ones the record states. Any other
// directory is a connector added from the release, and its directory is the
// version its manifest declares; one named like a registry version without
// a signature.json is an install whose signature is gone, and is refused.
func LoadAddedConnector(projectDir, name, version string, verify InstalledVerifier) (*Connector, error) {
	base := filepath.Join(projectDir, AddedConnectorsDir, filepath.FromSlash(name))
	if version == "" {
		entries, err := os.ReadDir(base)
		if os.IsNotExist(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		var versions []string
		for _, e := range entries {
			if e.IsDir() {
				if _, err := os.Stat(filepath.Join(base, e.Name(), ConnectorFile)); err == nil {
					versions = append(versions, e.Name())
				}
			}
		}
		switch len(versions) {
		case 0:
			return nil, nil
		case 1:
			version = versions[0]
		default:
			sort.Strings(versions)
			return nil, refuse(errcode.ConnectorVersionAmbiguous, "connector %s is installed at versions %s and nothing pins one; remove the others from %s", name, strings.Join(versions, ", "), base)
		}
	}
	dir := filepath.Join(base, version)
	if _, err := os.Lstat(filepath.Join(dir, RegistrySignatureFile)); err == nil {
		return loadInstalledConnector(dir, name, version, verify)
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	if registryVersion.MatchString(version) {
		return nil, refuse(errcode.RegistrySignatureInvalid, "connector %s at %s holds no %s: a connector a registry installed is used only while it verifies as its registry signed it; install it again", name, dir, RegistrySignatureFile)
	}
	c, err := LoadConnector(dir, name)
	if err != nil {
		return nil, err
	}
	if c.Version != version {
		return nil, refuse(errcode.ConnectorInvalid, "connector %s installed under version %s declares version %s", name, version, c.Version)
	}
	return c, nil
}

// loadInstalledConnector reads a registry-installed connector once verify
// has checked its directory against its signed record.
func loadInstalledConnector(dir, name, version string, verify InstalledVerifier) (*Connector, error) {
	if verify == nil {
		return nil, refuse(errcode.RegistrySignatureInvalid, "connector %s at %s was installed from a registry and nothing here can verify its %s; it is not used", name, dir, RegistrySignatureFile)
	}
	signed, err := verify(dir)
	if err != nil {
		return nil, err
	}
	c, err := loadConnector(dir, name, installedDigest)
	if err != nil {
		return nil, err
	}
	if signed.Version != version || c.ManifestDigest != signed.ManifestDigest || c.ConnectorDigest != signed.ConnectorDigest {
		return nil, refuse(errcode.RegistryPackageAltered, "connector %s at %s reads as manifest %s, connector %s; its signed record states %s, %s at version %s; install it again", name, dir, c.ManifestDigest, c.ConnectorDigest, signed.ManifestDigest, signed.ConnectorDigest, signed.Version)
	}
	c.RegistryVersion = version
	return c, nil
}

// operationDigest binds an operation's meaning (see ConnectorOperation.Digest).
func operationDigest(c *Connector, op *ConnectorOperation) (string, error) {
	cp := *op
	cp.Digest = ""
	if op.Cost != nil {
		cost := *op.Cost
		cost.SourceURL = ""
		cp.Cost = &cost
	}
	raw, err := json.Marshal(map[string]any{
		"schema": connectorDigestVersion, "connector": c.ID, "base_url": c.BaseURL, "credential": c.Credential, "operation": cp,
	})
	if err != nil {
		return "", err
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		return "", fmt.Errorf("canonicalize operation digest input: %w", err)
	}
	return contentDigest(canon), nil
}
