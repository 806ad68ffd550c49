package fs

import (
	"bytes"
	"io"
	"os"
	"path"
	"strings"
)

// Secret patterns, named in refusals and in omitted_secrets so a person can
// see which rule kept a file out.
const (
	PatternEnvFile       = ".env files other than templates (.env, .env.*, *.env, .envrc)"
	PatternPrivateKey    = "private key (id_rsa, id_dsa, id_ecdsa, id_ed25519, *.key, *.ppk)"
	PatternPrivateKeyPEM = "*.pem, *.crt or *.cer holding a private key"
	PatternCertBundle    = "certificate bundle (*.p12, *.pfx, *.jks, *.keystore)"
	PatternNpmrc         = ".npmrc"
	PatternNetrc         = ".netrc"
	PatternPgpass        = ".pgpass"
	PatternGitCreds      = ".git-credentials"
	PatternProtectedDir  = "anything under .git or .runx"
)

// envTemplates are the last name segments that mark an env file as a
// template, which holds names and placeholders rather than values.
var envTemplates = map[string]bool{"example": true, "sample": true, "template": true, "dist": true}

// privateKeyPEMBytes is the tail every PEM private key armour line shares:
// RSA, EC, DSA, OPENSSH, ENCRYPTED and PKCS#8 keys all end their BEGIN line
// with it.
var privateKeyPEMBytes = []byte("PRIVATE KEY-----")

// privateKeyScanBytes bounds how much of a PEM-like file is read to decide
// whether it holds a key; certificate chains are far smaller than this.
const privateKeyScanBytes = 1 << 20

// SecretName names the secret pattern a file's base name matches, or ""
// when the name alone does not make it a secret. Names are compared without
// case because case-insensitive filesystems open .ENV as .env.
func SecretName(name string) string {
	base := strings.ToLower(path.Base(strings.ReplaceAll(name, "\\", "/")))
	switch base {
	case ".npmrc":
		return PatternNpmrc
	case ".netrc", "_netrc":
		return PatternNetrc
	case ".pgpass":
		return PatternPgpass
	case ".git-credentials":
		return PatternGitCreds
	case "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk":
		return PatternPrivateKey
	}
	if isEnvFile(base) {
		return PatternEnvFile
	}
	switch path.Ext(base) {
	case ".key", ".ppk":
		return PatternPrivateKey
	case ".p12", ".pfx", ".jks", ".keystore":
		return PatternCertBundle
	}
	return ""
}

func isEnvFile(base string) bool {
	switch {
	case base == ".env" || base == ".envrc":
		return true
	case strings.HasPrefix(base, ".env."):
		return !envTemplates[base[strings.LastIndexByte(base, '.')+1:]]
	case strings.HasSuffix(base, ".env"):
		return true
	}
	return false
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

func fileHoldsPrivateKey(p string) (bool, error) {
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
	for _, part := range strings.Split(rel, "/") {
		if isProtectedName(part) {
			return part
		}
	}
	return ""
}

func isProtectedName(name string) bool {
	return strings.EqualFold(name, ".git") || strings.EqualFold(name, ".runx")
}

// SecretPath names the secret pattern a repository- or workspace-relative
// path matches by its name and place alone (content is not read), or "".
// The git plugin uses it on every path a commit or patch names.
func SecretPath(rel string) string {
	if ProtectedDir(rel) != "" {
		return PatternProtectedDir
	}
	return SecretName(rel)
}
