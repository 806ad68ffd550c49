package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/runxhq/runx/internal/testserver"
	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

// A revoked token is refused, from the next request on, with
// registry_token_revoked, on a real server over each store; another token
// of the namespace still publishes; a request carrying the revoked token's
// id with another secret learns nothing (registry_token_invalid). Revoking
// by anything but an id, or an id the store never held, is refused typed.
func revokeAndRefuse(t *testing.T, r, replica *testRegistry) {
	ctx := context.Background()
	tok, spare := r.token("acme"), r.token("acme")
	status, doc := r.publish(tok, "skill", "acme", skillFiles("weather", "1.0.0", "Forecasts."))
	wantStatus(t, "publish before the revocation", status, doc, http.StatusCreated)

	revoked, err := RevokeToken(ctx, r.st, TokenID(tok), time.Now())
	if err != nil || revoked.RevokedAt.IsZero() || revoked.Namespace != "acme" {
		t.Fatalf("revoke: %+v %v", revoked, err)
	}
	for _, on := range []*testRegistry{r, replica} {
		status, doc = on.publish(tok, "skill", "acme", skillFiles("weather", "2.0.0", "Forecasts."))
		wantError(t, "publish with a revoked token", status, doc, http.StatusUnauthorized, errcode.RegistryTokenRevoked)
		status, doc = on.do("GET", "/v1/whoami", tok, nil)
		wantError(t, "whoami with a revoked token", status, doc, http.StatusUnauthorized, errcode.RegistryTokenRevoked)
	}
	forged := tok[:len(TokenPrefix)+tokenIDHex] + strings.Repeat("f", tokenBodyHex-tokenIDHex)
	status, doc = r.publish(forged, "skill", "acme", skillFiles("weather", "2.0.0", "Forecasts."))
	wantError(t, "a revoked id with another secret", status, doc, http.StatusUnauthorized, errcode.RegistryTokenInvalid)
	status, doc = replica.publish(spare, "skill", "acme", skillFiles("weather", "2.0.0", "Forecasts."))
	wantStatus(t, "publish with the namespace's other token", status, doc, http.StatusCreated)

	for given, code := range map[string]errcode.Code{
		tok:                       errcode.RegistryRequestInvalid,
		"runxreg_" + TokenID(tok): errcode.RegistryRequestInvalid,
		"ABCDEF0123456789":        errcode.RegistryRequestInvalid,
		"":                        errcode.RegistryRequestInvalid,
		"00000000000000ff":        errcode.RegistryTokenNotFound,
	} {
		_, err := RevokeToken(ctx, r.st, given, time.Now())
		if contract.CodeOf(err) != code {
			t.Fatalf("revoke %q: %v, want %s", shortID(given), err, code)
		}
		if strings.Contains(err.Error(), tok[len(TokenPrefix)+tokenIDHex:]) {
			t.Fatalf("the refusal quotes the token's secret: %v", err)
		}
	}
}

func TestRevokedTokenRefusedOnSQLite(t *testing.T) {
	r := sqliteRegistry(t)
	revokeAndRefuse(t, r, startOn(t, r.st))
}

func TestRevokedTokenRefusedOnPostgres(t *testing.T) {
	pg := testserver.StartPostgres(t)
	revokeAndRefuse(t, startOn(t, postgresStore(t, pg)), startOn(t, postgresStore(t, pg)))
}
