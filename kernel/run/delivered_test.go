package run

import (
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/credential"
)

// A credential a plugin's description names is resolved for the connector
// the plugin is and delivered in the call's credentials, never its input;
// missing, the step is refused credential_missing and nothing is sent.
func TestDeclaredCredentialIsDelivered(t *testing.T) {
	k, s := stubKernel(t)
	dir := writeSkill(t, k, "s", `methods:
  m:
    steps:
      - { id: a, operation: conn/secret, inputs: { q: 1 } }
`, nil)
	missing := runSkill(t, k, dir, "m", "{}", `{"effects":"allow"}`)
	if errCode(missing) != "credential_missing" || s.calls["conn/secret"] != 0 {
		t.Fatalf("an unresolvable credential refuses the call before it is sent: %s %q", missing.Outcome, errCode(missing))
	}
	if !strings.Contains(missing.Error.Message, "runx connector use conn") {
		t.Fatalf("the refusal says how to bind it: %s", missing.Error.Message)
	}

	const token = "tok-3f9c2a"
	if err := credential.SetSecret(k.Options.HomeDir, credential.DefaultSecretName("conn"), []byte(token)); err != nil {
		t.Fatal(err)
	}
	env := runSkill(t, k, dir, "m", "{}", `{"effects":"allow"}`)
	if env.Outcome != "completed" || s.calls["conn/secret"] != 1 {
		t.Fatalf("with the credential stored the call runs: %s %q", env.Outcome, errCode(env))
	}
	if got := s.creds["conn/secret"]["CONN_TOKEN"]; got != token {
		t.Fatalf("the plugin is delivered its declared credential by name, got %q", got)
	}
	if strings.Contains(string(env.Result), token) {
		t.Fatal("the credential reached the call's input")
	}
	// A capability that declares none is delivered none.
	runSkill(t, k, writeSkill(t, k, "p", "methods:\n  m:\n    steps:\n      - { id: a, operation: conn/ping }\n", nil), "m", "{}", `{"effects":"allow"}`)
	if len(s.creds["conn/ping"]) != 0 {
		t.Fatalf("an undeclared credential was delivered: %v", s.creds["conn/ping"])
	}
}
