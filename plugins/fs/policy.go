package fs

import "github.com/runxhq/runx/sdk/pathpolicy"

// The path rules are sdk/pathpolicy's, shared with git, process and the
// kernel's authority; these names keep fs's own code and tests reading as
// before, with no second copy of any rule.

// Reach values the kernel sends in plugin.Context.Reach.
const (
	ReachWorkspace = pathpolicy.ReachWorkspace
	ReachInputs    = pathpolicy.ReachInputs
)

// Secret patterns fs names.
const (
	PatternGitDir        = pathpolicy.PatternGitDir
	PatternRunxDir       = pathpolicy.PatternRunxDir
	PatternPrivateKeyPEM = pathpolicy.PatternPrivateKeyPEM
)

type (
	// Scope is where one call's paths may go.
	Scope = pathpolicy.Scope
	// Target is a path that passed containment.
	Target = pathpolicy.Target
)

// NewScope builds the call's scope from its context.
var NewScope = pathpolicy.NewScope

var (
	secretRefusal       = pathpolicy.SecretRefusal
	within              = pathpolicy.Within
	slashRel            = pathpolicy.SlashRel
	realPath            = pathpolicy.RealPath
	fileHoldsPrivateKey = pathpolicy.FileHoldsPrivateKey
	isProtectedName     = pathpolicy.IsProtectedName
	secretContentOf     = pathpolicy.SecretContentOf
	// SecretName names the secret pattern a file's base name matches.
	SecretName = pathpolicy.SecretName
	// MayHoldPrivateKey reports whether a file of this name is a secret
	// exactly when its content holds a private key.
	MayHoldPrivateKey = pathpolicy.MayHoldPrivateKey
	// HoldsPrivateKey reports whether content carries a PEM private key.
	HoldsPrivateKey = pathpolicy.HoldsPrivateKey
	// ProtectedDir names the protected directory a relative path lies in.
	ProtectedDir = pathpolicy.ProtectedDir
	// SecretPath names the secret pattern a relative path matches.
	SecretPath = pathpolicy.SecretPath
)
