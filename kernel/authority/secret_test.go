package authority

import "testing"

func TestIsSecretPath(t *testing.T) {
	tests := []struct {
		rel     string
		pattern string // "" = not a secret
	}{
		// Environment files, and the templates that are not secrets.
		{".env", SecretEnv},
		{"app/.env", SecretEnv},
		{".ENV", SecretEnv},
		{".env.local", SecretEnvVariant},
		{".env.production", SecretEnvVariant},
		{".env.bak", SecretEnvVariant},
		{"prod.env", SecretEnvSuffix},
		{"config/staging.env", SecretEnvSuffix},
		{".envrc", SecretEnvrc},
		{".env.example", ""},
		{".env.sample", ""},
		{".env.template", ""},
		{".env.local.example", ""},
		{"example.env", ""},
		{".ENV.EXAMPLE", ""},
		{".environment", ""},
		{"env", ""},
		{"environment.ts", ""},
		{".env.d", SecretEnvVariant},

		// Private keys.
		{"id_rsa", "id_rsa"},
		{"home/.ssh/id_ed25519", "id_ed25519"},
		{"id_ecdsa", "id_ecdsa"},
		{"id_dsa", "id_dsa"},
		{"id_ed25519_sk", "id_ed25519_sk"},
		{"id_rsa.pub", ""},
		{"id_ed25519.pub", ""},
		{"server.key", "*.key"},
		{"tls/SERVER.KEY", "*.key"},
		{"AuthKey_ABC.p8", "*.p8"},
		{"putty.ppk", "*.ppk"},
		{"privkey.pem", SecretPEMKey},
		{"server-key.pem", SecretPEMKey},
		{"key.pem", SecretPEMKey},
		{"private.pem", SecretPEMKey},
		{"cert.pem", ""},
		{"fullchain.pem", ""},
		{"keyboard.go", ""},
		{"monkey.txt", ""},
		{".key", ""},

		// Certificate bundles that carry keys.
		{"client.p12", "*.p12"},
		{"client.pfx", "*.pfx"},
		{"release.jks", "*.jks"},
		{"debug.keystore", "*.keystore"},

		// Credential files.
		{".npmrc", SecretNpmrc},
		{"web/.npmrc", SecretNpmrc},
		{".netrc", SecretNetrc},
		{"_netrc", SecretNetrcWin},
		{".pgpass", SecretPgpass},
		{".git-credentials", SecretGitCreds},
		{"npmrc", ""},
		{".npmrc.md", ""},

		// Anything under .git or .runx.
		{".git", SecretGitDir},
		{".git/config", SecretGitDir},
		{"vendor/lib/.git/HEAD", SecretGitDir},
		{".GIT/config", SecretGitDir},
		{".runx", SecretRunxDir},
		{".runx/state.sqlite", SecretRunxDir},
		{"a/.runx/receipts/x", SecretRunxDir},
		{".gitignore", ""},
		{".github/workflows/ci.yml", ""},
		{".runxignore", ""},

		// Ordinary files.
		{"", ""},
		{"README.md", ""},
		{"src/main.go", ""},
		{"keys/README.md", ""},
	}
	for _, tt := range tests {
		pattern, ok := IsSecretPath(tt.rel)
		if ok != (tt.pattern != "") || pattern != tt.pattern {
			t.Errorf("IsSecretPath(%q) = %q, %v; want %q", tt.rel, pattern, ok, tt.pattern)
		}
	}
}
