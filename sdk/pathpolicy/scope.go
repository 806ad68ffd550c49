package pathpolicy

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// Reach values the kernel sends in plugin.Context.Reach.
const (
	ReachWorkspace = "workspace"
	ReachInputs    = "inputs"
)

// maxSymlinkHops matches Linux's own limit on links followed in one lookup.
const maxSymlinkHops = 40

// Scope is where one call's paths may go: the workspace, and under reach
// inputs also the roots the run's inputs name. It is built per call from
// the context the kernel sent, so a plugin process keeps no authority
// between calls.
type Scope struct {
	reach string
	// roots[0] is the workspace; every root is absolute with symlinks
	// resolved, so containment is a lexical prefix test on real paths.
	roots []scopeRoot
	// protected are runx's own places (its home, the project's state, the
	// receipt store): no path reaches into one, at any reach.
	protected []scopeRoot
}

type scopeRoot struct {
	given string // as the kernel named it, cleaned
	real  string // symlinks resolved
}

// Target is a path that passed containment.
type Target struct {
	// Real is the absolute path with every symlink resolved; the file may
	// not exist.
	Real string
	// Root is the real path of the reach root holding Real.
	Root string
	// Rel is Real relative to Root, slash-separated ("." for the root).
	Rel string
	// Display is what outputs call it: workspace-relative for a path in the
	// workspace, otherwise the absolute path the request gave.
	Display string
	// Info is Real's Lstat, nil when nothing exists there.
	Info iofs.FileInfo
	// Lexical is the absolute path as the request named it, before any
	// symlink was followed: a delete asks whether the name itself is a link.
	Lexical string
}

// NewScope builds the call's scope from its context. An empty reach is taken
// as workspace, the narrower value: the kernel always sends one, and a
// plugin that guessed wider would widen authority nobody granted.
func NewScope(c plugin.Context) (*Scope, *plugin.Result) {
	reach := c.Reach
	if reach == "" {
		reach = ReachWorkspace
	}
	if reach != ReachWorkspace && reach != ReachInputs {
		return nil, plugin.Refused(errcode.ReachUnknown, fmt.Sprintf("reach %q is neither workspace nor inputs", c.Reach))
	}
	if c.WorkspaceRoot == "" || !filepath.IsAbs(c.WorkspaceRoot) {
		return nil, plugin.Refused(errcode.ReachWorkspaceMissing, "the call carries no absolute workspace root, so no path can be contained")
	}
	s := &Scope{reach: reach}
	ws, err := newScopeRoot(c.WorkspaceRoot)
	if err != nil {
		return nil, plugin.Refused(errcode.ReachWorkspaceMissing, fmt.Sprintf("workspace root %s cannot be resolved: %v", c.WorkspaceRoot, err))
	}
	s.roots = append(s.roots, ws)
	if reach == ReachInputs {
		for _, r := range c.ReachRoots {
			if !filepath.IsAbs(r) {
				r = filepath.Join(ws.given, r)
			}
			sr, err := newScopeRoot(r)
			if err != nil {
				return nil, plugin.Refused(errcode.ReachOutsideWorkspace, fmt.Sprintf("input root %s cannot be resolved: %v", r, err))
			}
			s.roots = append(s.roots, sr)
		}
	}
	for _, r := range c.ProtectedRoots {
		if !filepath.IsAbs(r) {
			return nil, plugin.Refused(errcode.ReachWorkspaceMissing, fmt.Sprintf("protected root %q is not absolute", r))
		}
		sr, err := newScopeRoot(r)
		if err != nil {
			return nil, plugin.Refused(errcode.ReachUnresolvable, fmt.Sprintf("protected root %s cannot be resolved: %v", r, err))
		}
		s.protected = append(s.protected, sr)
	}
	return s, nil
}

func newScopeRoot(p string) (scopeRoot, error) {
	given := filepath.Clean(p)
	real, err := RealPath(given)
	if err != nil {
		return scopeRoot{}, err
	}
	return scopeRoot{given: given, real: real}, nil
}

// Reach is the scope's reach, workspace or inputs.
func (s *Scope) Reach() string { return s.reach }

// Workspace is the real path of the workspace root.
func (s *Scope) Workspace() string { return s.roots[0].real }

// Resolve contains p: a workspace-relative path, or an absolute one inside
// the workspace or (under reach inputs) an input root. It refuses a path
// outside every root, one a symlink carries outside, one inside .git or
// .runx under reach workspace, and a secret at any reach: inputs widens
// where a tool may go, never what it may show.
func (s *Scope) Resolve(p string) (*Target, *plugin.Result) {
	if p == "" {
		p = "."
	}
	if strings.ContainsRune(p, 0) {
		return nil, plugin.Refused(errcode.ReachOutsideWorkspace, "a path may not contain a NUL byte")
	}
	lexical := filepath.Clean(p)
	if !filepath.IsAbs(lexical) {
		lexical = filepath.Join(s.roots[0].given, lexical)
	}
	if res := s.refuseProtected(p, lexical); res != nil {
		return nil, res
	}
	named, ok := s.lexicalRoot(lexical)
	if !ok {
		return nil, plugin.Refused(errcode.ReachOutsideWorkspace, fmt.Sprintf("%s is outside %s", p, s.describeRoots()))
	}
	// Rebase onto the root's real path so a workspace reached through a
	// symlink (such as /tmp on some systems) compares as one tree.
	rest, _ := filepath.Rel(named.given, lexical)
	lexicalReal := filepath.Join(named.real, rest)
	real, err := RealPath(lexicalReal)
	if err != nil {
		// A symlink loop or an unreadable directory: nothing escaped, but
		// nothing can be contained either.
		return nil, plugin.Refused(errcode.ReachUnresolvable, fmt.Sprintf("%s cannot be resolved: %v", p, err))
	}
	if res := s.refuseProtected(p, lexicalReal, real); res != nil {
		return nil, res
	}
	root, ok := s.realRoot(real)
	if !ok {
		return nil, plugin.Refused(errcode.ReachSymlinkEscape, fmt.Sprintf("%s resolves through a symlink to %s, outside %s", p, real, s.describeRoots()))
	}
	rel := SlashRel(root, real)
	display := lexical
	for _, ws := range []string{s.roots[0].given, s.roots[0].real} {
		if Within(ws, lexical) {
			display = SlashRel(ws, lexical)
			break
		}
	}
	if s.reach == ReachWorkspace {
		for _, candidate := range []string{SlashRel(named.real, lexicalReal), rel} {
			if dir := ProtectedDir(candidate); dir != "" {
				return nil, plugin.Refused(errcode.ReachProtectedDir, fmt.Sprintf("%s is inside %s, which reach workspace never opens", p, dir))
			}
		}
	}
	info, err := os.Lstat(real)
	if err != nil {
		info = nil
	}
	t := &Target{Real: real, Root: root, Rel: rel, Display: display, Info: info, Lexical: lexical}
	if info != nil && info.IsDir() {
		// Secret patterns name files; a directory called .env (a
		// virtualenv, say) is walked like any other, as listings do.
		return t, nil
	}
	for _, name := range []string{filepath.Base(lexical), filepath.Base(real)} {
		if pattern := SecretName(name); pattern != "" {
			return nil, SecretRefusal(p, pattern)
		}
	}
	if info != nil && info.Mode().IsRegular() {
		if pattern, err := fileSecretContent(real, filepath.Base(lexical), filepath.Base(real)); err == nil && pattern != "" {
			return nil, SecretRefusal(p, pattern)
		}
	}
	return t, nil
}

// fileSecretContent reads at most the first MiB of the file at p and names
// the secret pattern its content matches as a file with any of names.
func fileSecretContent(p string, names ...string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, privateKeyScanBytes))
	if err != nil {
		return "", err
	}
	return SecretContentOf(head, names...), nil
}

// refuseProtected refuses p when any of its forms (as named, or with its
// symlinks followed) lies in one of runx's own places.
func (s *Scope) refuseProtected(p string, forms ...string) *plugin.Result {
	for _, form := range forms {
		if root, ok := s.protectedRoot(form); ok {
			return plugin.Refused(errcode.ReachProtectedDir, fmt.Sprintf("%s is inside %s, where runx keeps its own state; no tool reaches it, at any reach", p, root))
		}
	}
	return nil
}

func (s *Scope) protectedRoot(p string) (string, bool) {
	for _, r := range s.protected {
		if Within(r.given, p) || Within(r.real, p) {
			return r.given, true
		}
	}
	return "", false
}

// Protected reports whether the absolute path p lies in one of runx's own
// places (its home, the project's state, the receipt store): a listing
// leaves it out and never descends into it.
func (s *Scope) Protected(p string) bool {
	_, ok := s.protectedRoot(filepath.Clean(p))
	return ok
}

// SecretRefusal is the refusal of a path that names a secret.
func SecretRefusal(p, pattern string) *plugin.Result {
	return plugin.Refused(errcode.ReachSecretRefused, fmt.Sprintf("%s is a secret (%s); no tool reads, lists, searches or shows a secret", p, pattern))
}

// lexicalRoot is the root whose given or real path holds p, before any
// symlink in p is followed.
func (s *Scope) lexicalRoot(p string) (scopeRoot, bool) {
	for _, r := range s.roots {
		if Within(r.given, p) {
			return r, true
		}
		if Within(r.real, p) {
			return scopeRoot{given: r.real, real: r.real}, true
		}
	}
	return scopeRoot{}, false
}

func (s *Scope) realRoot(real string) (string, bool) {
	for _, r := range s.roots {
		if Within(r.real, real) {
			return r.real, true
		}
	}
	return "", false
}

func (s *Scope) describeRoots() string {
	if len(s.roots) == 1 {
		return "the workspace " + s.roots[0].given
	}
	return "the workspace and the run's input roots"
}

// Contains reports whether real, an absolute path with symlinks resolved,
// lies inside the workspace or one of the scope's input roots.
func (s *Scope) Contains(real string) bool {
	_, ok := s.realRoot(filepath.Clean(real))
	return ok
}

// DisplayPath names a real path as outputs do: workspace-relative inside the
// workspace, absolute elsewhere.
func (s *Scope) DisplayPath(real string) string {
	if Within(s.roots[0].real, real) {
		return SlashRel(s.roots[0].real, real)
	}
	return real
}

// Within reports whether p is root or beneath it; both are clean and absolute.
func Within(root, p string) bool {
	if p == root {
		return true
	}
	if root == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// SlashRel is p relative to root, slash-separated; p itself when it has no
// relative form.
func SlashRel(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// RealPath resolves every symlink in the absolute path p, including a final
// link whose target does not exist, so a path that names nothing yet still
// resolves to where the kernel would land. filepath.EvalSymlinks fails on
// missing paths, which would hide an escaping dangling link.
func RealPath(p string) (string, error) {
	resolved := string(filepath.Separator)
	rest := splitPath(p)
	hops := 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, name)
		info, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, iofs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				// Nothing further exists, so nothing further can be a link.
				return filepath.Join(append([]string{next}, rest...)...), nil
			}
			return "", err
		}
		if info.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if hops++; hops > maxSymlinkHops {
			return "", errors.New("too many levels of symbolic links")
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		rest = append(splitPath(target), rest...)
	}
	return resolved, nil
}

func splitPath(p string) []string {
	return strings.Split(filepath.ToSlash(p), "/")
}
