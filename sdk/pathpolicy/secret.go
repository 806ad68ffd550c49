package pathpolicy

import (
	"bytes"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Secret patterns, named in refusals and in omitted_secrets so a person can
// see which rule kept a file out. Every layer (the kernel's authority, fs,
// git, process) names them from here, so a refusal reads the same whichever
// layer made it.
const (
	PatternGitDir  = ".git/"
	PatternRunxDir = ".runx/"
	// PatternRunxState is runx's home, project state or receipt store,
	// wherever it lies: what the call's protected roots name.
	PatternRunxState     = "runx's own state"
	PatternEnv           = ".env"
	PatternEnvVariant    = ".env.*"
	PatternEnvSuffix     = "*.env"
	PatternEnvrc         = ".envrc"
	PatternPEMKey        = "*.pem (private key)"
	PatternPrivateKeyPEM = "*.pem, *.crt or *.cer holding a private key"
	// Content patterns: a file is a secret by what it holds, whatever it
	// is called (a key pasted into notes.txt, credentials saved as
	// backup.ini).
	PatternPrivateKeyContent = "a file holding a private key"
	PatternAWSCredentials    = "a file holding AWS credentials"
	PatternServiceAccountKey = "a file holding a service-account key"
	PatternNpmrc             = ".npmrc"
	PatternNetrc             = ".netrc"
	PatternNetrcWin          = "_netrc"
	PatternPgpass            = ".pgpass"
	PatternGitCreds          = ".git-credentials"
)

// sshKeyNames are the private halves OpenSSH writes by default; their .pub
// halves are public.
var sshKeyNames = []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"}

// secretExtensions hold private keys or bundle them with certificates
// (PKCS#12, Java keystores), so they are secret whatever they are called.
var secretExtensions = []string{".key", ".p12", ".pfx", ".p8", ".ppk", ".jks", ".keystore"}

// envTemplateParts mark an env file as a template that holds names and
// placeholders rather than values: .env.example, .env.sample, .env.template.
var envTemplateParts = []string{"example", "sample", "template"}

// privateKeyPEMBytes is the tail every PEM private key armour line shares:
// RSA, EC, DSA, OPENSSH, ENCRYPTED and PKCS#8 keys all end their BEGIN line
// with it.
var privateKeyPEMBytes = []byte("PRIVATE KEY-----")

// privateKeyScanBytes bounds how much of a PEM-like file is read to decide
// whether it holds a key; certificate chains are far smaller than this.
const privateKeyScanBytes = 1 << 20

// ContentScanBytes is how much of a file's start its content is judged by
// (a read's refusal, a listing's leaving it out).
const ContentScanBytes = privateKeyScanBytes

// SecretName names the secret pattern a file's base name matches, or ""
// when the name alone does not make it a secret. Names are compared without
// case because a case-insensitive filesystem opens .ENV as .env.
func SecretName(name string) string {
	base := strings.ToLower(path.Base(filepath.ToSlash(name)))
	switch base {
	case ".npmrc":
		return PatternNpmrc
	case ".netrc":
		return PatternNetrc
	case "_netrc":
		return PatternNetrcWin
	case ".pgpass":
		return PatternPgpass
	case ".envrc":
		return PatternEnvrc
	case ".git-credentials":
		return PatternGitCreds
	}
	if p := envFile(base); p != "" {
		return p
	}
	if slices.Contains(sshKeyNames, base) {
		return base
	}
	for _, ext := range secretExtensions {
		if strings.HasSuffix(base, ext) && len(base) > len(ext) {
			return "*" + ext
		}
	}
	if stem, ok := strings.CutSuffix(base, ".pem"); ok && (strings.Contains(stem, "key") || strings.Contains(stem, "priv")) {
		return PatternPEMKey
	}
	return ""
}

// envFile matches .env, .env.<anything> and <anything>.env, unless a
// dot-separated part of the name marks it a template.
func envFile(name string) string {
	var pattern string
	switch {
	case name == ".env":
		return PatternEnv
	case strings.HasPrefix(name, ".env."):
		pattern = PatternEnvVariant
	case strings.HasSuffix(name, ".env") && len(name) > len(".env"):
		pattern = PatternEnvSuffix
	default:
		return ""
	}
	for part := range strings.SplitSeq(name, ".") {
		if slices.Contains(envTemplateParts, part) {
			return ""
		}
	}
	return pattern
}

// MayHoldPrivateKey reports whether a file of this name is a secret exactly
// when its content holds a private key: PEM files carry certificates as
// often as keys, and a certificate is public.
func MayHoldPrivateKey(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".pem", ".crt", ".cer":
		return true
	}
	return false
}

// HoldsPrivateKey reports whether content carries a PEM private key block.
func HoldsPrivateKey(content []byte) bool {
	return bytes.Contains(content, privateKeyPEMBytes)
}

// puttyKeyBytes opens every PuTTY private key file.
var puttyKeyBytes = []byte("PuTTY-User-Key-File-")

// privateKeyArmour is the BEGIN line of a PEM or OpenSSH private key (RSA,
// EC, DSA, OPENSSH, ENCRYPTED, PKCS#8). Judging a file of any name, the
// whole armour line is asked for, so source that only names the marker is
// not taken for a key.
var privateKeyArmour = regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----`)

// serviceAccountType is the type field of a Google service-account key file.
var serviceAccountType = regexp.MustCompile(`"type"\s*:\s*"service_account"`)

// SecretContent names the secret pattern content matches by what it holds,
// whatever the file is called, or "": a PEM or OpenSSH private key, a PuTTY
// key, AWS credentials (an access key id, secret access key or session
// token assigned to its name, see holdsAWSCredential) or a Google
// service-account key (JSON of type service_account carrying
// "private_key").
func SecretContent(content []byte) string {
	// Every rule is asked first as a plain substring, so the text of an
	// ordinary file (a search reads thousands) costs a few scans, no
	// regular expression.
	switch {
	case bytes.Contains(content, privateKeyPEMBytes) && privateKeyArmour.Match(content), bytes.Contains(content, puttyKeyBytes):
		return PatternPrivateKeyContent
	case holdsAWSCredential(content):
		return PatternAWSCredentials
	case bytes.Contains(content, serviceAccountKey) && serviceAccountType.Match(content):
		return PatternServiceAccountKey
	}
	return ""
}

var serviceAccountKey = []byte(`"private_key"`)

// SecretContentOf names the secret pattern content matches as the content
// of a file with any of names: a PEM-named file holding any private key
// block (PatternPrivateKeyPEM), or SecretContent; "" when none.
func SecretContentOf(content []byte, names ...string) string {
	for _, n := range names {
		if MayHoldPrivateKey(n) && HoldsPrivateKey(content) {
			return PatternPrivateKeyPEM
		}
	}
	return SecretContent(content)
}

// FileHoldsPrivateKey reads at most the first MiB of the file at p and
// reports whether it carries a PEM private key block.
func FileHoldsPrivateKey(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, privateKeyScanBytes))
	if err != nil {
		return false, err
	}
	return HoldsPrivateKey(head), nil
}

// ProtectedDir names the protected directory (.git or .runx) a
// slash-separated relative path lies in or names, or "".
func ProtectedDir(rel string) string {
	// A loop of Cut, not Split: the kernel asks this of every path a call
	// names, and an allowed path must cost no allocation.
	for rest, more := rel, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, "/")
		if IsProtectedName(part) {
			return part
		}
	}
	return ""
}

// IsProtectedName reports whether one path component is .git or .runx.
func IsProtectedName(name string) bool {
	return strings.EqualFold(name, ".git") || strings.EqualFold(name, ".runx")
}

// SecretPath names the secret pattern a repository- or workspace-relative
// path matches by its name and place alone (content is not read), or "".
// The git plugin uses it on every path a commit or patch names; the kernel's
// authority on every path a call names.
func SecretPath(rel string) string {
	switch dir := ProtectedDir(rel); {
	case strings.EqualFold(dir, ".git"):
		return PatternGitDir
	case dir != "":
		return PatternRunxDir
	}
	return SecretName(rel)
}

// IsSecretPath is SecretPath as a pair: the pattern, and whether rel names a
// secret no tool may read, write, list, search or show.
func IsSecretPath(rel string) (pattern string, ok bool) {
	p := SecretPath(rel)
	return p, p != ""
}
