package credential

import (
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// UseRequest is `runx connector use <connector>` for a connector that
// takes a credential: where its value comes from.
type UseRequest struct {
	Connector string
	// Variable is the environment variable the connector declares ("" when
	// runx does not know the connector's declaration).
	Variable string
	// Env is --env NAME: read the credential from this variable at run
	// time.
	Env string
	// Secret is --secret NAME: an already stored secret.
	Secret string
	// Piped is a value given on standard input (nil when none was).
	Piped []byte
}

// Use records where connector's credential comes from: the variable
// --env names, an existing stored secret (--secret), a value piped on
// standard input (stored as DefaultSecretName), or, with none of those, the
// connector's declared variable when it is set. The value is checked to be
// deliverable now, so a binding never promises what is not there.
func Use(homeDir string, lookup func(string) (string, bool), req UseRequest) (Binding, error) {
	b := Binding{Connector: req.Connector, Variable: req.Variable}
	if !ValidConnectorName(req.Connector) {
		return b, contract.Errorf(errcode.ConnectorNameInvalid, "%q is not a connector name (letters, digits, '.', '-', '_', namespaced at most once with '/')", req.Connector)
	}
	given := 0
	for _, set := range []bool{req.Env != "", req.Secret != "", len(req.Piped) > 0} {
		if set {
			given++
		}
	}
	if given > 1 {
		return b, contract.Errorf(errcode.CredentialSourceAmbiguous, "give one of --env, --secret or a value on standard input, not several")
	}
	r := &Resolver{HomeDir: homeDir, LookupEnv: lookup}
	switch {
	case req.Env != "":
		if !ValidVariableName(req.Env) {
			return b, contract.Errorf(errcode.CredentialVariableInvalid, "--env %q is not an environment variable name", req.Env)
		}
		if _, ok := r.env(req.Env); !ok {
			return b, contract.Errorf(errcode.CredentialMissing, "--env names %s, which is not set here: export it first, so the binding delivers what it says", req.Env)
		}
		b.Env = req.Env
	case req.Secret != "":
		_, ok, err := ReadSecret(homeDir, req.Secret)
		if err != nil {
			return b, err
		}
		if !ok {
			return b, contract.Errorf(errcode.CredentialMissing, "no secret %s is stored: run `runx secret set %s` with the value on standard input first", req.Secret, req.Secret)
		}
		b.Secret = req.Secret
	case len(req.Piped) > 0:
		b.Secret = DefaultSecretName(req.Connector)
		if err := SetSecret(homeDir, b.Secret, req.Piped); err != nil {
			return b, err
		}
	default:
		if req.Variable == "" {
			return b, contract.Errorf(errcode.CredentialMissing, "no credential was given for connector %s: pipe it on standard input, or name --env VARIABLE or --secret NAME", req.Connector)
		}
		if !ValidVariableName(req.Variable) {
			return b, contract.Errorf(errcode.CredentialVariableInvalid, "connector %s declares %q, which is not an environment variable name", req.Connector, req.Variable)
		}
		if _, ok := r.env(req.Variable); !ok {
			return b, contract.Errorf(errcode.CredentialMissing, "connector %s's credential variable %s is not set: export it, pipe the value on standard input, or name --env VARIABLE or --secret NAME", req.Connector, req.Variable)
		}
		b.Env = req.Variable
	}
	return b, Bind(homeDir, b)
}
