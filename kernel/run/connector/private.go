package connector

import (
	"encoding/json"
	"path/filepath"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// PrivateDir is the directory under the runx home where a private
// connector keeps the person's own data.
const PrivateDir = "private"

// PrivateBinding is the binding a call on a private connector (a
// capability of role data.private) is told, nil for any other: {"dir"}, its store's
// directory in the runx home. scratch is the disposable home runx test
// gives a case, whose data is the test's own; otherwise the home is the
// person's, and one that lies inside the workspace (a home that fell back
// to the workspace) keeps none of the person's data, since what the
// workspace holds is shared with whatever works in it.
func PrivateBinding(def *sdk.Definition, home, scratch, workspace string) (json.RawMessage, error) {
	if !def.HasRole(sdk.RolePrivateData) {
		return nil, nil
	}
	if scratch != "" {
		home = scratch
	} else if h, w := realPath(home), realPath(workspace); workspace != "" && (pathpolicy.Within(w, h) || pathpolicy.Within(filepath.Clean(workspace), filepath.Clean(home))) {
		return nil, contract.Errorf(errcode.PrivateHomeInWorkspace, "the runx home %s lies inside the workspace %s, so it keeps none of the person's private data; set RUNX_HOME to a directory outside the workspace", home, workspace)
	}
	return json.Marshal(map[string]string{"dir": filepath.Join(home, PrivateDir)})
}

// realPath resolves p's symlinks as far as they exist.
func realPath(p string) string {
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	if parent := filepath.Dir(p); parent != p {
		return filepath.Join(realPath(parent), filepath.Base(p))
	}
	return p
}
