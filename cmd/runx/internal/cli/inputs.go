package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

// ReadInputsDocument reads an --inputs argument: "-" is stdin, anything else a
// file inside the workspace. It is capped and must be UTF-8; its content is
// never echoed in an error.
func ReadInputsDocument(stdin io.Reader, workspace, cwd, arg string) ([]byte, error) {
	var r io.Reader
	if arg == "-" {
		r = stdin
	} else {
		path := arg
		if !filepath.IsAbs(path) {
			path = filepath.Join(cwd, path)
		}
		path = filepath.Clean(path)
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, contract.Errorf(errcode.InputsDocumentUnreadable, "cannot read the --inputs file %s", arg)
		}
		ws, _ := filepath.EvalSymlinks(workspace)
		if rel, err := filepath.Rel(ws, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, contract.Errorf(errcode.InputsDocumentOutsideWorkspace, "the --inputs file %s is outside the workspace", arg)
		}
		info, err := os.Stat(real)
		if err != nil || !info.Mode().IsRegular() {
			return nil, contract.Errorf(errcode.InputsDocumentUnreadable, "the --inputs file %s is not a regular file", arg)
		}
		f, err := os.Open(real)
		if err != nil {
			return nil, contract.Errorf(errcode.InputsDocumentUnreadable, "cannot open the --inputs file %s", arg)
		}
		defer f.Close()
		r = f
	}
	raw, err := pkg.ReadInputsDocument(r)
	if err != nil {
		if contract.CodeOf(err) != errcode.InternalError {
			return nil, err
		}
		return nil, contract.Errorf(errcode.InputsDocumentUnreadable, "cannot read the --inputs document: %v", err)
	}
	if !utf8.Valid(raw) {
		return nil, contract.Errorf(errcode.InputsDocumentInvalid, "the --inputs document is not UTF-8")
	}
	return raw, nil
}
