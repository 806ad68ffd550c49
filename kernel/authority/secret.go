package authority

import "strings"

// Secret patterns, as refusals name them. A pattern is stable text so a
// record or a test can compare it.
const (
	SecretGitDir     = ".git/"
	SecretRunxDir    = ".runx/"
	SecretEnv        = ".env"
	SecretEnvVariant = ".env.*"
	SecretEnvSuffix  = "*.env"
	SecretEnvrc      = ".envrc"
	SecretPEMKey     = "*.pem (private key)"
	SecretNpmrc      = ".npmrc"
	SecretNetrc      = ".netrc"
	SecretNetrcWin   = "_netrc"
	SecretPgpass     = ".pgpass"
)

// sshKeyNames are the private halves OpenSSH writes by default; their .pub
// halves are public and are not secrets.
var sshKeyNames = []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"}

// secretExtensions hold private keys or bundle them with certificates
// (PKCS#12, Java keystores), so they are secret whatever they are called.
var secretExtensions = []string{".key", ".p12", ".pfx", ".p8", ".ppk", ".jks", ".keystore"}

// envTemplateParts mark an environment file as a template that holds
// placeholders, not values: .env.example, .env.sample, .env.template.
var envTemplateParts = []string{"example", "sample", "template"}

// IsSecretPath reports whether the workspace-relative, slash-separated path
// rel names a secret no tool may read, write, list, search or show, and the
// pattern that matched, so a refusal (or a patch that leaves the file out)
// can name it. Names are compared without case, because a case-insensitive
// filesystem opens .ENV as .env.
//
// Secrets are: anything under .git or .runx; an environment file other than
// a template; private keys (OpenSSH's id_* files, *.key, *.p8, *.ppk, a
// *.pem named as a key); certificate bundles that carry keys (*.p12, *.pfx,
// *.jks, *.keystore); and the credential files .npmrc, .netrc (_netrc) and
// .pgpass.
func IsSecretPath(rel string) (pattern string, ok bool) {
	base := rel
	for {
		seg, rest, more := strings.Cut(base, "/")
		if !more {
			break
		}
		if p, ok := protectedDir(seg); ok {
			return p, true
		}
		base = rest
	}
	if p, ok := protectedDir(base); ok {
		return p, true
	}
	return secretName(strings.ToLower(base))
}

// protectedDir reports whether one path component is .git or .runx.
func protectedDir(seg string) (string, bool) {
	switch {
	case strings.EqualFold(seg, ".git"):
		return SecretGitDir, true
	case strings.EqualFold(seg, ".runx"):
		return SecretRunxDir, true
	}
	return "", false
}

// secretName matches one lower-cased file name.
func secretName(name string) (string, bool) {
	switch name {
	case ".npmrc":
		return SecretNpmrc, true
	case ".netrc":
		return SecretNetrc, true
	case "_netrc":
		return SecretNetrcWin, true
	case ".pgpass":
		return SecretPgpass, true
	case ".envrc":
		return SecretEnvrc, true
	}
	if p, ok := envFile(name); ok {
		return p, true
	}
	for _, k := range sshKeyNames {
		if name == k {
			return k, true
		}
	}
	for _, ext := range secretExtensions {
		if strings.HasSuffix(name, ext) && len(name) > len(ext) {
			return "*" + ext, true
		}
	}
	if stem, ok := strings.CutSuffix(name, ".pem"); ok && (strings.Contains(stem, "key") || strings.Contains(stem, "priv")) {
		return SecretPEMKey, true
	}
	return "", false
}

// envFile matches .env, .env.<anything> and <anything>.env, unless a
// dot-separated part of the name marks it a template.
func envFile(name string) (string, bool) {
	var pattern string
	switch {
	case name == ".env":
		return SecretEnv, true
	case strings.HasPrefix(name, ".env."):
		pattern = SecretEnvVariant
	case strings.HasSuffix(name, ".env") && len(name) > len(".env"):
		pattern = SecretEnvSuffix
	default:
		return "", false
	}
	for part := range strings.SplitSeq(name, ".") {
		for _, t := range envTemplateParts {
			if part == t {
				return "", false
			}
		}
	}
	return pattern, true
}
