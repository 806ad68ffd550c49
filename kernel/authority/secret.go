package authority

import "github.com/runxhq/runx/sdk/pathpolicy"

// Secret patterns, as refusals name them: sdk/pathpolicy's, the one list the
// kernel and the fs, git and process plugins share.
const (
	SecretGitDir     = pathpolicy.PatternGitDir
	SecretRunxDir    = pathpolicy.PatternRunxDir
	SecretEnv        = pathpolicy.PatternEnv
	SecretEnvVariant = pathpolicy.PatternEnvVariant
	SecretEnvSuffix  = pathpolicy.PatternEnvSuffix
	SecretEnvrc      = pathpolicy.PatternEnvrc
	SecretPEMKey     = pathpolicy.PatternPEMKey
	SecretNpmrc      = pathpolicy.PatternNpmrc
	SecretNetrc      = pathpolicy.PatternNetrc
	SecretNetrcWin   = pathpolicy.PatternNetrcWin
	SecretPgpass     = pathpolicy.PatternPgpass
	SecretGitCreds   = pathpolicy.PatternGitCreds
)

// IsSecretPath reports whether the workspace-relative, slash-separated path
// rel names a secret no tool may read, write, list, search or show, and the
// pattern that matched (sdk/pathpolicy.IsSecretPath). A file whose secret is
// its content (a PEM private key) is judged by the plugin that opens it.
func IsSecretPath(rel string) (pattern string, ok bool) { return pathpolicy.IsSecretPath(rel) }
