package fs

import (
	"bytes"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"unicode/utf8"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// Bounds of a change. Every prior byte is journaled before the first
// rename, so what one call may replace is bounded as well as what it
// writes.
const (
	// ChangeMaxFileBytes bounds one file's new content and the prior
	// content of a file a change replaces or deletes.
	ChangeMaxFileBytes = 16 << 20
	// ChangeMaxBundleBytes bounds the prior and new bytes of a whole call.
	ChangeMaxBundleBytes = 64 << 20
	// ApplyBundleMaxFiles bounds how many files one fs.apply_bundle changes.
	ApplyBundleMaxFiles = 1_000
)

// What a change does to one file, as outputs and the journal name it.
const (
	OpCreate = "create"
	OpWrite  = "write"
	OpDelete = "delete"
)

// newFileMode is what a created file gets: what an editor under the usual
// umask makes.
const newFileMode os.FileMode = 0o644

var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// WriteRequest is fs.write's input. Content is required ("" writes an empty
// file). A file that exists is replaced only when ExpectedDigest names what
// it holds; a request naming no digest is a new file's, which must not yet
// exist, and Create says so explicitly.
type WriteRequest struct {
	Path           string  `json:"path"`
	Content        *string `json:"content"`
	ExpectedDigest string  `json:"expected_digest,omitempty"`
	Create         bool    `json:"create,omitempty"`
}

// EditRequest is fs.edit's input. The edit is bound to the content it reads;
// ExpectedDigest, when given, also binds it to a read the caller made.
type EditRequest struct {
	Path           string `json:"path"`
	Edits          []Edit `json:"edits"`
	ExpectedDigest string `json:"expected_digest,omitempty"`
}

// BundleChange is one file of fs.apply_bundle: a write (Content with
// ExpectedDigest or Create) or a delete ({path, expected_digest}: a change
// without content). Delete may say so explicitly and must then agree.
type BundleChange struct {
	Path           string  `json:"path"`
	Content        *string `json:"content,omitempty"`
	ExpectedDigest string  `json:"expected_digest,omitempty"`
	Create         bool    `json:"create,omitempty"`
	Delete         *bool   `json:"delete,omitempty"`
}

// deletes reports whether the change removes its file: it carries no content.
func (c BundleChange) deletes() bool { return c.Content == nil }

// BundleRequest is fs.apply_bundle's input: changes applied whole or not at
// all, in order.
type BundleRequest struct {
	Changes []BundleChange `json:"changes"`
}

// fileChange is one planned file change: what the file holds now, what it
// will hold, and the digest checked again immediately before its rename.
type fileChange struct {
	asked        string
	target       *Target
	op           string
	existed      bool
	before       []byte
	beforeDigest string
	beforeMode   os.FileMode
	after        []byte
	afterDigest  string
	replacements []int // fs.edit only: replacements per edit
	temp         string
	held         int // the replaced file, open from its final check until the change is settled; <= 0 when none
}

// changeSet is a planned call: its files in order and the directories it
// must create, parents first.
type changeSet struct {
	files       []*fileChange
	createdDirs []string
}

func planWrite(scope *Scope, req *WriteRequest) (*changeSet, *plugin.Result) {
	if req.Content == nil {
		return nil, plugin.Refused(errcode.FSRequestInvalid, "fs.write needs content (an empty string writes an empty file)")
	}
	return planChanges(scope, []BundleChange{{Path: req.Path, Content: req.Content, ExpectedDigest: req.ExpectedDigest, Create: req.Create}})
}

func planBundle(scope *Scope, req *BundleRequest) (*changeSet, *plugin.Result) {
	if len(req.Changes) == 0 {
		return nil, plugin.Refused(errcode.FSRequestInvalid, "fs.apply_bundle needs at least one change")
	}
	if len(req.Changes) > ApplyBundleMaxFiles {
		return nil, plugin.Refused(errcode.FSChangeTooLarge, fmt.Sprintf("the bundle changes %d files, more than the %d one call may change; split it", len(req.Changes), ApplyBundleMaxFiles))
	}
	return planChanges(scope, req.Changes)
}

func planEdit(scope *Scope, req *EditRequest) (*changeSet, *plugin.Result) {
	if len(req.Edits) == 0 {
		return nil, plugin.Refused(errcode.FSRequestInvalid, "fs.edit needs at least one edit")
	}
	if req.ExpectedDigest != "" && !digestPattern.MatchString(req.ExpectedDigest) {
		return nil, badDigest(req.Path, req.ExpectedDigest)
	}
	fc, res := resolveChange(scope, req.Path, false)
	if res != nil {
		return nil, res
	}
	if !fc.existed {
		return nil, plugin.Refused(errcode.FSNotFound, fmt.Sprintf("%s does not exist; fs.edit changes an existing file, fs.write creates one", req.Path))
	}
	if !isText(fc.before) {
		return nil, plugin.Refused(errcode.FSBinaryRefused, fmt.Sprintf("%s is not UTF-8 text; fs.edit edits text only", req.Path))
	}
	if req.ExpectedDigest != "" && req.ExpectedDigest != fc.beforeDigest {
		return nil, mismatch(req.Path, req.ExpectedDigest, fc.beforeDigest)
	}
	after, counts, res := applyEdits(req.Path, string(fc.before), req.Edits)
	if res != nil {
		return nil, res
	}
	fc.op, fc.replacements = OpWrite, counts
	if res := fc.setAfter([]byte(after)); res != nil {
		return nil, res
	}
	cs := &changeSet{files: []*fileChange{fc}}
	return cs, cs.finish()
}

// planChanges resolves and checks every change of a write or a bundle
// before anything is touched, so a refusal leaves the workspace as it was.
func planChanges(scope *Scope, changes []BundleChange) (*changeSet, *plugin.Result) {
	cs := &changeSet{}
	for _, c := range changes {
		if res := checkShape(c); res != nil {
			return nil, res
		}
		fc, res := resolveChange(scope, c.Path, c.deletes())
		if res != nil {
			return nil, res
		}
		if res := expect(fc, c); res != nil {
			return nil, res
		}
		if !c.deletes() {
			if res := fc.setAfter([]byte(*c.Content)); res != nil {
				return nil, res
			}
		}
		cs.files = append(cs.files, fc)
	}
	return cs, cs.finish()
}

func checkShape(c BundleChange) *plugin.Result {
	switch {
	case c.Path == "":
		return plugin.Refused(errcode.FSRequestInvalid, "every change needs a path")
	case c.Delete != nil && *c.Delete && !c.deletes():
		return plugin.Refused(errcode.FSRequestInvalid, fmt.Sprintf("the change to %s is marked delete but carries content; a delete is {path, expected_digest}", c.Path))
	case c.Delete != nil && !*c.Delete && c.deletes():
		return plugin.Refused(errcode.FSRequestInvalid, fmt.Sprintf("the change to %s is marked delete: false but carries no content; a write needs content, a delete is {path, expected_digest}", c.Path))
	case c.deletes() && c.Create:
		return plugin.Refused(errcode.FSRequestInvalid, fmt.Sprintf("the change to %s creates a file but carries no content", c.Path))
	case c.Create && c.ExpectedDigest != "":
		return plugin.Refused(errcode.FSRequestInvalid, fmt.Sprintf("the change to %s names both create and expected_digest; a file is either new or replaced", c.Path))
	case c.ExpectedDigest != "" && !digestPattern.MatchString(c.ExpectedDigest):
		return badDigest(c.Path, c.ExpectedDigest)
	}
	return nil
}

// expect binds a change to what it was written against. A change to a
// file that exists must name its digest: nothing replaces or removes
// content its writer did not read.
func expect(fc *fileChange, c BundleChange) *plugin.Result {
	switch {
	case c.deletes() && c.ExpectedDigest == "":
		return plugin.Refused(errcode.FSBlindWriteRefused, fmt.Sprintf("the delete of %s names no expected_digest; read the file and name the content_digest you mean to remove", c.Path))
	case c.Create && fc.existed:
		return plugin.Refused(errcode.FSCreateExists, fmt.Sprintf("%s already exists, so it cannot be created; read it and name its content_digest as expected_digest to replace it", c.Path))
	case c.ExpectedDigest == "" && fc.existed:
		return plugin.Refused(errcode.FSBlindWriteRefused, fmt.Sprintf("%s exists and the write names no expected_digest; a blind overwrite is refused: read it and name the content_digest you mean to replace", c.Path))
	case c.ExpectedDigest != "" && !fc.existed:
		return plugin.Refused(errcode.FSDigestMismatch, fmt.Sprintf("%s no longer exists, but the change expects it to hold %s; read the workspace again", c.Path, c.ExpectedDigest))
	case c.ExpectedDigest != "" && c.ExpectedDigest != fc.beforeDigest:
		return mismatch(c.Path, c.ExpectedDigest, fc.beforeDigest)
	}
	switch {
	case c.deletes():
		fc.op = OpDelete
	case fc.existed:
		fc.op = OpWrite
	default:
		fc.op = OpCreate
	}
	return nil
}

func mismatch(path, expected, actual string) *plugin.Result {
	return plugin.Refused(errcode.FSDigestMismatch, fmt.Sprintf("%s holds %s, not the expected %s: it changed since it was read; read it again and redo the change", path, actual, expected))
}

func badDigest(path, d string) *plugin.Result {
	return plugin.Refused(errcode.FSRequestInvalid, fmt.Sprintf("expected_digest %q for %s is not a sha256:<64 hex> content_digest", d, path))
}

// resolveChange contains a path under every rule of the read side and reads
// what it holds now.
func resolveChange(scope *Scope, asked string, forDelete bool) (*fileChange, *plugin.Result) {
	if asked == "" {
		return nil, plugin.Refused(errcode.FSRequestInvalid, "every change needs a path")
	}
	t, res := scope.Resolve(asked)
	if res != nil {
		return nil, res
	}
	// Reach inputs may read another repository's .git, but no change
	// tool writes there or into .runx at any reach: a hook or a journal
	// written by a tool would run or be trusted as runx's own.
	if dir := ProtectedDir(t.Rel); dir != "" {
		return nil, plugin.Refused(errcode.ReachProtectedDir, fmt.Sprintf("%s is inside %s, which no change tool writes", asked, dir))
	}
	fc := &fileChange{asked: asked, target: t, beforeMode: newFileMode}
	if t.Info == nil {
		return fc, nil
	}
	if t.Info.IsDir() {
		return nil, plugin.Refused(errcode.FSNotAFile, fmt.Sprintf("%s is a directory; the fs tools change files", asked))
	}
	if !t.Info.Mode().IsRegular() {
		return nil, plugin.Refused(errcode.FSNotAFile, fmt.Sprintf("%s is not a regular file", asked))
	}
	if forDelete && t.Lexical != t.Real {
		// Deleting through a link would remove the file it points to and
		// leave the link dangling; nobody means that by naming the link.
		if info, err := os.Lstat(t.Lexical); err == nil && info.Mode()&os.ModeSymlink != 0 {
			return nil, plugin.Refused(errcode.FSNotAFile, fmt.Sprintf("%s is a symbolic link; delete the file it points to by its own path", asked))
		}
	}
	if t.Info.Size() > ChangeMaxFileBytes {
		return nil, changeTooLarge(asked, t.Info.Size())
	}
	before, res := readContained(t, asked, ChangeMaxFileBytes)
	if res != nil {
		return nil, res
	}
	fc.existed, fc.before, fc.beforeDigest, fc.beforeMode = true, before, DigestBytes(before), t.Info.Mode().Perm()
	return fc, nil
}

func (fc *fileChange) setAfter(content []byte) *plugin.Result {
	if int64(len(content)) > ChangeMaxFileBytes {
		return changeTooLarge(fc.asked, int64(len(content)))
	}
	// A change may not make a secret: the rules that keep a key from being
	// read keep one from being written where a read would refuse it.
	if pattern := secretContentOf(content, fc.target.Display, fc.target.Real); pattern != "" {
		return secretRefusal(fc.asked, pattern)
	}
	fc.after, fc.afterDigest = content, DigestBytes(content)
	return nil
}

// displayDir names a directory above t the way outputs name t: relative
// inside the workspace, absolute elsewhere.
func displayDir(t *Target, dir string) string {
	if filepath.IsAbs(t.Display) {
		return dir
	}
	return slashRel(t.Root, dir)
}

// isText is what the text tools accept: UTF-8 without NUL bytes.
func isText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}

func changeTooLarge(asked string, size int64) *plugin.Result {
	return plugin.Refused(errcode.FSChangeTooLarge, fmt.Sprintf("%s would take %d bytes, more than the %d one file change may replace or write", asked, size, ChangeMaxFileBytes))
}

// outside refuses a change that would land in dir (the project directory
// runx keeps its state in), whatever that directory is called.
func (cs *changeSet) outside(dir string) *plugin.Result {
	real, err := realPath(dir)
	if err != nil {
		real = dir
	}
	for _, fc := range cs.files {
		if within(real, fc.target.Real) {
			return plugin.Refused(errcode.ReachProtectedDir, fmt.Sprintf("%s is inside the project directory %s, where runx keeps its state", fc.asked, dir))
		}
	}
	return nil
}

// finish checks what only the whole call shows (a path named twice, the
// total size) and finds the directories the call must create.
func (cs *changeSet) finish() *plugin.Result {
	seen := map[string]string{}
	var total int64
	for _, fc := range cs.files {
		if first, dup := seen[fc.target.Real]; dup {
			return plugin.Refused(errcode.FSBundlePathRepeated, fmt.Sprintf("%s and %s name the same file; a bundle changes each file once", first, fc.asked))
		}
		seen[fc.target.Real] = fc.asked
		total += int64(len(fc.before) + len(fc.after))
	}
	if total > ChangeMaxBundleBytes {
		return plugin.Refused(errcode.FSChangeTooLarge, fmt.Sprintf("the call would journal and write %d bytes, more than the %d one call may", total, ChangeMaxBundleBytes))
	}
	dirs := map[string]bool{}
	for _, fc := range cs.files {
		if fc.op == OpDelete {
			continue
		}
		missing, res := missingParents(fc)
		if res != nil {
			return res
		}
		for _, d := range missing {
			if asked, clash := seen[d]; clash {
				return plugin.Refused(errcode.FSRequestInvalid, fmt.Sprintf("%s is both a file this call writes and a directory %s needs", asked, fc.asked))
			}
			if !dirs[d] {
				dirs[d] = true
				cs.createdDirs = append(cs.createdDirs, d)
			}
		}
	}
	// Shorter paths first puts every parent before its children.
	slices.SortStableFunc(cs.createdDirs, func(a, b string) int { return len(a) - len(b) })
	return nil
}

// missingParents lists, parents first, the directories above fc that do
// not exist. The nearest one that does must be a directory.
func missingParents(fc *fileChange) ([]string, *plugin.Result) {
	var missing []string
	for dir := filepath.Dir(fc.target.Real); ; dir = filepath.Dir(dir) {
		info, err := os.Lstat(dir)
		switch {
		case err == nil && info.IsDir():
			slices.Reverse(missing)
			return missing, nil
		case err == nil:
			return nil, plugin.Refused(errcode.FSNotADirectory, fmt.Sprintf("%s cannot be written: %s is not a directory", fc.asked, displayDir(fc.target, dir)))
		case errors.Is(err, iofs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			missing = append(missing, dir)
		default:
			return nil, plugin.Failed(errcode.FSReadFailed, fmt.Sprintf("cannot inspect %s: %v", displayDir(fc.target, dir), err))
		}
		if dir == filepath.Dir(dir) {
			return nil, plugin.Failed(errcode.FSReadFailed, fmt.Sprintf("no directory above %s exists", fc.asked))
		}
	}
}
