package pathpolicy

import "testing"

// Every rule, by path alone: the one table the kernel's authority, fs, git
// and process all obey.
func TestIsSecretPath(t *testing.T) {
	tests := []struct {
		rel     string
		pattern string // "" = not a secret
	}{
		// Environment files, and the templates that are not secrets.
		{".env", PatternEnv},
		{"app/.env", PatternEnv},
		{".ENV", PatternEnv},
		{".env.local", PatternEnvVariant},
		{".env.production", PatternEnvVariant},
		{".env.bak", PatternEnvVariant},
		{"prod.env", PatternEnvSuffix},
		{"config/staging.env", PatternEnvSuffix},
		{".envrc", PatternEnvrc},
		{".env.example", ""},
		{".env.sample", ""},
		{".env.template", ""},
		{".env.local.example", ""},
		{"example.env", ""},
		{".ENV.EXAMPLE", ""},
		{".environment", ""},
		{"env", ""},
		{"environment.ts", ""},
		{".env.d", PatternEnvVariant},

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
		{"privkey.pem", PatternPEMKey},
		{"server-key.pem", PatternPEMKey},
		{"key.pem", PatternPEMKey},
		{"private.pem", PatternPEMKey},
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
		{".npmrc", PatternNpmrc},
		{"web/.npmrc", PatternNpmrc},
		{".netrc", PatternNetrc},
		{"_netrc", PatternNetrcWin},
		{".pgpass", PatternPgpass},
		{".git-credentials", PatternGitCreds},
		{"home/.GIT-CREDENTIALS", PatternGitCreds},
		{"git-credentials", ""},
		{"npmrc", ""},
		{".npmrc.md", ""},

		// Anything under .git or .runx.
		{".git", PatternGitDir},
		{".git/config", PatternGitDir},
		{"vendor/lib/.git/HEAD", PatternGitDir},
		{".GIT/config", PatternGitDir},
		{".runx", PatternRunxDir},
		{".runx/state.sqlite", PatternRunxDir},
		{"a/.runx/receipts/x", PatternRunxDir},
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
