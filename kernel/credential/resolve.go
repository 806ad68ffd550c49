package credential

import (
	"fmt"
	"os"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// Resolver finds the value of a connector's credential.
type Resolver struct {
	HomeDir   string
	LookupEnv func(string) (string, bool)
}

func (r *Resolver) env(name string) (string, bool) {
	lookup := r.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	v, ok := lookup(name)
	return v, ok && v != ""
}

// Resolve returns the value of connector's credential, whose declared
// environment variable is variable: the variable a recorded binding names
// when it is set, else the declared variable when it is set, else the
// stored secret a binding names (or the one a piped value was stored
// under). None of them is credential_missing, naming the commands that
// deliver it. The value is never part of an error.
func (r *Resolver) Resolve(connector, variable string) (string, error) {
	if !ValidConnectorName(connector) {
		return "", contract.Errorf(errcode.ConnectorNameInvalid, "%q is not a connector name", connector)
	}
	if variable != "" && !ValidVariableName(variable) {
		return "", contract.Errorf(errcode.CredentialVariableInvalid, "connector %s declares %q, which is not an environment variable name", connector, variable)
	}
	all, err := Bindings(r.HomeDir)
	if err != nil {
		return "", err
	}
	b, bound := all[connector]
	if bound && b.Env != "" {
		if v, ok := r.env(b.Env); ok {
			return v, nil
		}
	}
	if variable != "" {
		if v, ok := r.env(variable); ok {
			return v, nil
		}
	}
	secret := DefaultSecretName(connector)
	if bound && b.Secret != "" {
		secret = b.Secret
	}
	v, ok, err := ReadSecret(r.HomeDir, secret)
	if err != nil {
		return "", err
	}
	if ok {
		return v, nil
	}
	return "", contract.Errorf(errcode.CredentialMissing, "%s", missingMessage(connector, variable, b, bound))
}

func missingMessage(connector, variable string, b Binding, bound bool) string {
	how := fmt.Sprintf("pipe it to `runx connector use %s` (stored 0600 in the runx home)", connector)
	if variable != "" {
		how = fmt.Sprintf("export %s, or %s", variable, how)
	}
	switch {
	case bound && b.Env != "":
		return fmt.Sprintf("connector %s's credential is not delivered: its binding reads %s, which is not set; set it, or %s", connector, b.Env, how)
	case bound && b.Secret != "":
		return fmt.Sprintf("connector %s's credential is not delivered: its binding names the stored secret %s, which is not there; run `runx secret set %s` (value on standard input), or %s", connector, b.Secret, b.Secret, how)
	}
	return fmt.Sprintf("connector %s's credential is not delivered: %s", connector, how)
}
