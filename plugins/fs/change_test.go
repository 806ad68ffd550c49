package fs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestWriteReplacesNamedContentAndJournalsIt(t *testing.T) {
	root := workspace(t, map[string]string{"src/a.txt": "old\n"})
	must(t, os.Chmod(filepath.Join(root, "src/a.txt"), 0o755))
	pc := changeContext(root)
	var resp WriteResponse
	mustOK(t, call(t, pc, CapabilityWrite, WriteRequest{Path: "src/a.txt", Content: str("new\n"), ExpectedDigest: digest("old\n")}, &resp))
	if resp.Path != "src/a.txt" || resp.Op != OpWrite || resp.BeforeDigest != digest("old\n") || resp.AfterDigest != digest("new\n") {
		t.Fatalf("got %+v", resp)
	}
	if got := readFile(t, filepath.Join(root, "src/a.txt")); got != "new\n" {
		t.Fatalf("file holds %q", got)
	}
	if info, _ := os.Stat(filepath.Join(root, "src/a.txt")); info.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v was not kept", info.Mode().Perm())
	}
	want := journalLocation(filepath.Join(root, ".runx"), pc.RunID, pc.CallID)
	if resp.Journal != want || !strings.HasPrefix(resp.Journal.ID, "run-1/run-1_edit_") {
		t.Fatalf("journal %+v, want %+v", resp.Journal, want)
	}
	rec := loadJournal(t, resp.Journal.Path)
	f := rec.Files[0]
	if rec.State != JournalCommitted || rec.RunID != "run-1" || rec.CallID != pc.CallID || string(f.Before) != "old\n" ||
		f.BeforeDigest != digest("old\n") || f.AfterDigest != digest("new\n") || f.BeforeMode != 0o755 || !f.Existed {
		t.Fatalf("journal %+v", rec)
	}
	if sameTree(t, map[string]string{"src/": "", "src/a.txt": "-rwxr-xr-x new\n"}, snapshot(t, root)); t.Failed() {
		t.Fatal("a staged temp file was left behind")
	}
}

func TestWriteCreatesFilesAndDirectories(t *testing.T) {
	root := workspace(t, map[string]string{"keep.txt": "k"})
	pc := changeContext(root)
	var resp WriteResponse
	mustOK(t, call(t, pc, CapabilityWrite, WriteRequest{Path: "new/deep/b.txt", Content: str("b"), Create: true}, &resp))
	if resp.Op != OpCreate || resp.BeforeDigest != "" || resp.AfterDigest != digest("b") {
		t.Fatalf("got %+v", resp)
	}
	rec := loadJournal(t, resp.Journal.Path)
	if len(rec.CreatedDirs) != 2 || rec.CreatedDirs[0] != filepath.Join(rec.Workspace, "new") || rec.Files[0].Existed {
		t.Fatalf("journal %+v", rec)
	}
	// A write that names no digest is a new file's.
	mustOK(t, call(t, changeContext(root), CapabilityWrite, WriteRequest{Path: "c.txt", Content: str("")}, &resp))
	if resp.Op != OpCreate || resp.AfterDigest != digest("") {
		t.Fatalf("got %+v", resp)
	}
	sameTree(t, map[string]string{"keep.txt": "-rw-r--r-- k", "new/": "", "new/deep/": "", "new/deep/b.txt": "-rw-r--r-- b", "c.txt": "-rw-r--r-- "}, snapshot(t, root))
}

func TestWriteThroughALinkChangesItsTarget(t *testing.T) {
	root := workspace(t, map[string]string{"real.txt": "r"})
	must(t, os.Symlink("real.txt", filepath.Join(root, "link.txt")))
	mustOK(t, call(t, changeContext(root), CapabilityWrite, WriteRequest{Path: "link.txt", Content: str("s"), ExpectedDigest: digest("r")}, nil))
	sameTree(t, map[string]string{"real.txt": "-rw-r--r-- s", "link.txt": "-> real.txt"}, snapshot(t, root))
}

func TestChangeRefusals(t *testing.T) {
	outside := workspace(t, map[string]string{"o.txt": "o"})
	files := map[string]string{
		"a.txt": "a", "dir/": "", "file": "f", "bin.dat": "a\x00b", "dup.txt": "d",
	}
	bigWrite := strings.Repeat("y", ChangeMaxFileBytes+1)
	for name, tc := range map[string]struct {
		capability string
		input      any
		code       errcode.Code
	}{
		"blind overwrite":           {CapabilityWrite, WriteRequest{Path: "a.txt", Content: str("x")}, errcode.FSBlindWriteRefused},
		"blind delete":              {CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: "a.txt"}}}, errcode.FSBlindWriteRefused},
		"blind overwrite in bundle": {CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: "new.txt", Content: str("n")}, {Path: "a.txt", Content: str("x")}}}, errcode.FSBlindWriteRefused},
		"create existing":           {CapabilityWrite, WriteRequest{Path: "a.txt", Content: str("x"), Create: true}, errcode.FSCreateExists},
		"create existing in bundle": {CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: "a.txt", Content: str("x"), Create: true}}}, errcode.FSCreateExists},
		"stale digest":              {CapabilityWrite, WriteRequest{Path: "a.txt", Content: str("x"), ExpectedDigest: digest("b")}, errcode.FSDigestMismatch},
		"digest of a missing file":  {CapabilityWrite, WriteRequest{Path: "gone.txt", Content: str("x"), ExpectedDigest: digest("b")}, errcode.FSDigestMismatch},
		"stale delete":              {CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: "a.txt", ExpectedDigest: digest("b")}}}, errcode.FSDigestMismatch},
		"stale edit digest":         {CapabilityEdit, EditRequest{Path: "a.txt", Edits: []Edit{{Old: "a", New: "b"}}, ExpectedDigest: digest("b")}, errcode.FSDigestMismatch},
		"directory":                 {CapabilityWrite, WriteRequest{Path: "dir", Content: str("x"), ExpectedDigest: digest("b")}, errcode.FSNotAFile},
		"parent is a file":          {CapabilityWrite, WriteRequest{Path: "file/x.txt", Content: str("x")}, errcode.FSNotADirectory},
		"edit a missing file":       {CapabilityEdit, EditRequest{Path: "nope.txt", Edits: []Edit{{Old: "a", New: "b"}}}, errcode.FSNotFound},
		"edit a binary file":        {CapabilityEdit, EditRequest{Path: "bin.dat", Edits: []Edit{{Old: "a", New: "b"}}}, errcode.FSBinaryRefused},
		"replace too large a file":  {CapabilityWrite, WriteRequest{Path: "big.txt", Content: str("x"), ExpectedDigest: digest("x")}, errcode.FSChangeTooLarge},
		"write too much":            {CapabilityWrite, WriteRequest{Path: "huge.txt", Content: &bigWrite}, errcode.FSChangeTooLarge},
		"path repeated":             {CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: "dup.txt", ExpectedDigest: digest("d")}, {Path: "./dup.txt", Content: str("x"), ExpectedDigest: digest("d")}}}, errcode.FSBundlePathRepeated},
		"file and directory":        {CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: "p", Content: str("x")}, {Path: "p/q", Content: str("y")}}}, errcode.FSRequestInvalid},
		"empty bundle":              {CapabilityApplyBundle, BundleRequest{}, errcode.FSRequestInvalid},
		"no content":                {CapabilityWrite, WriteRequest{Path: "n.txt"}, errcode.FSRequestInvalid},
		"create and digest":         {CapabilityWrite, WriteRequest{Path: "a.txt", Content: str("x"), Create: true, ExpectedDigest: digest("a")}, errcode.FSRequestInvalid},
		"malformed digest":          {CapabilityWrite, WriteRequest{Path: "a.txt", Content: str("x"), ExpectedDigest: "md5:abc"}, errcode.FSRequestInvalid},
		"delete with content":       {CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: "a.txt", Delete: flag(true), Content: str("x"), ExpectedDigest: digest("a")}}}, errcode.FSRequestInvalid},
		"delete false, no content":  {CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: "a.txt", Delete: flag(false), ExpectedDigest: digest("a")}}}, errcode.FSRequestInvalid},
		"create without content":    {CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: "n.txt", Create: true}}}, errcode.FSRequestInvalid},
		"unknown field":             {CapabilityWrite, map[string]any{"path": "a.txt", "content": "x", "force": true}, errcode.FSRequestInvalid},
		"no path":                   {CapabilityWrite, WriteRequest{Content: str("x")}, errcode.FSRequestInvalid},
		"outside the workspace":     {CapabilityWrite, WriteRequest{Path: filepath.Join(outside, "o.txt"), Content: str("x"), ExpectedDigest: digest("o")}, errcode.ReachOutsideWorkspace},
		"climbing out":              {CapabilityWrite, WriteRequest{Path: "../x.txt", Content: str("x")}, errcode.ReachOutsideWorkspace},
		"into .git":                 {CapabilityWrite, WriteRequest{Path: ".git/hooks/pre-commit", Content: str("x")}, errcode.ReachProtectedDir},
		"into .runx":                {CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: ".runx/journal/x", Content: str("x")}}}, errcode.ReachProtectedDir},
		"an env file":               {CapabilityWrite, WriteRequest{Path: ".env", Content: str("TOKEN=x")}, errcode.ReachSecretRefused},
		"a key by name":             {CapabilityWrite, WriteRequest{Path: "deploy/id_ed25519", Content: str("x")}, errcode.ReachSecretRefused},
		"a private key into a pem":  {CapabilityWrite, WriteRequest{Path: "cert.pem", Content: str(testPrivateKey)}, errcode.ReachSecretRefused},
		"delete .npmrc":             {CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: ".npmrc", ExpectedDigest: digest("x")}}}, errcode.ReachSecretRefused},
	} {
		t.Run(name, func(t *testing.T) {
			root := workspace(t, files)
			if name == "replace too large a file" {
				// Sparse: only its size matters, and writing 16 MiB per
				// case would dominate the run.
				must(t, os.WriteFile(filepath.Join(root, "big.txt"), nil, 0o644))
				must(t, os.Truncate(filepath.Join(root, "big.txt"), ChangeMaxFileBytes+1))
			}
			before := snapshot(t, root)
			wantCode(t, call(t, changeContext(root), tc.capability, tc.input, nil), tc.code)
			sameTree(t, before, snapshot(t, root))
		})
	}
}

func TestChangeRefusalsOfReachAndJournal(t *testing.T) {
	outside := workspace(t, map[string]string{"o.txt": "o"})
	root := workspace(t, map[string]string{"a.txt": "a", "link/": ""})
	must(t, os.Symlink(filepath.Join(outside, "o.txt"), filepath.Join(root, "escape.txt")))
	must(t, os.Symlink("a.txt", filepath.Join(root, "alias.txt")))
	write := WriteRequest{Path: "a.txt", Content: str("x"), ExpectedDigest: digest("a")}

	wantCode(t, call(t, changeContext(root), CapabilityWrite, WriteRequest{Path: "escape.txt", Content: str("x"), ExpectedDigest: digest("o")}, nil), errcode.ReachSymlinkEscape)
	wantCode(t, call(t, changeContext(root), CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{{Path: "alias.txt", ExpectedDigest: digest("a")}}}, nil), errcode.FSNotAFile)

	noProject := changeContext(root)
	noProject.Binding = nil
	wantCode(t, call(t, noProject, CapabilityWrite, write, nil), errcode.FSJournalUnavailable)
	relative := changeContext(root)
	relative.Binding = projectBinding(".runx")
	wantCode(t, call(t, relative, CapabilityWrite, write, nil), errcode.FSJournalUnavailable)
	noRun := changeContext(root)
	noRun.RunID = ""
	wantCode(t, call(t, noRun, CapabilityWrite, write, nil), errcode.FSJournalUnavailable)
	wantCode(t, call(t, plugin.Context{Reach: ReachWorkspace, RunID: "r", CallID: "c", Binding: projectBinding(filepath.Join(root, ".runx"))},
		CapabilityWrite, write, nil), errcode.ReachWorkspaceMissing)

	// Under reach inputs a change may go to an input root, and every other
	// rule still holds there.
	inputs := func() plugin.Context {
		pc := changeContext(root)
		pc.Reach, pc.ReachRoots = ReachInputs, []string{outside}
		return pc
	}
	var resp WriteResponse
	mustOK(t, call(t, inputs(), CapabilityWrite, WriteRequest{Path: filepath.Join(outside, "o.txt"), Content: str("p"), ExpectedDigest: digest("o")}, &resp))
	if resp.Path != filepath.Join(outside, "o.txt") || readFile(t, filepath.Join(outside, "o.txt")) != "p" {
		t.Fatalf("got %+v", resp)
	}
	wantCode(t, call(t, inputs(), CapabilityWrite, WriteRequest{Path: filepath.Join(outside, "o.txt"), Content: str("q")}, nil), errcode.FSBlindWriteRefused)
	wantCode(t, call(t, inputs(), CapabilityWrite, WriteRequest{Path: filepath.Join(outside, ".env.local"), Content: str("q")}, nil), errcode.ReachSecretRefused)
	// Reach inputs may read another repository's .git; no change writes it.
	wantCode(t, call(t, inputs(), CapabilityWrite, WriteRequest{Path: filepath.Join(outside, ".git/hooks/pre-commit"), Content: str("q")}, nil), errcode.ReachProtectedDir)

	// The project directory is runx's whatever it is called.
	elsewhere := changeContext(root)
	elsewhere.Binding = projectBinding(filepath.Join(root, "state"))
	wantCode(t, call(t, elsewhere, CapabilityWrite, WriteRequest{Path: "state/journal/bundles/x.json", Content: str("{}")}, nil), errcode.ReachProtectedDir)
}

func TestCallSentAgainAnswersFromItsJournal(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "a"})
	pc := changeContext(root)
	req := WriteRequest{Path: "a.txt", Content: str("b"), ExpectedDigest: digest("a")}
	var first, again WriteResponse
	mustOK(t, call(t, pc, CapabilityWrite, req, &first))
	// The file now holds b, so a fresh write with this input would be
	// refused; the same call id answers what it did instead.
	mustOK(t, call(t, pc, CapabilityWrite, req, &again))
	if first != again {
		t.Fatalf("resend answered %+v, first %+v", again, first)
	}
	wantCode(t, call(t, pc, CapabilityWrite, WriteRequest{Path: "a.txt", Content: str("c"), ExpectedDigest: digest("b")}, nil), errcode.FSCallReused)
	if got := readFile(t, filepath.Join(root, "a.txt")); got != "b" {
		t.Fatalf("file holds %q", got)
	}
}

func TestBundleAppliesEveryChangeInOrder(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "a", "b.txt": "b", "old/gone.txt": "g"})
	var resp BundleResponse
	mustOK(t, call(t, changeContext(root), CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{
		{Path: "a.txt", Content: str("A"), ExpectedDigest: digest("a")},
		{Path: "c/new.txt", Content: str("C"), Create: true},
		{Path: "old/gone.txt", ExpectedDigest: digest("g")},
		{Path: "b.txt", Content: str("B"), ExpectedDigest: digest("b")},
	}}, &resp))
	want := []ChangedFile{
		{Path: "a.txt", Op: OpWrite, BeforeDigest: digest("a"), AfterDigest: digest("A")},
		{Path: "c/new.txt", Op: OpCreate, AfterDigest: digest("C")},
		{Path: "old/gone.txt", Op: OpDelete, BeforeDigest: digest("g")},
		{Path: "b.txt", Op: OpWrite, BeforeDigest: digest("b"), AfterDigest: digest("B")},
	}
	for i := range want {
		if resp.Files[i] != want[i] {
			t.Fatalf("file %d: got %+v, want %+v", i, resp.Files[i], want[i])
		}
	}
	if loadJournal(t, resp.Journal.Path).State != JournalCommitted {
		t.Fatal("journal not committed")
	}
	sameTree(t, map[string]string{"a.txt": "-rw-r--r-- A", "b.txt": "-rw-r--r-- B", "c/": "", "c/new.txt": "-rw-r--r-- C", "old/": ""}, snapshot(t, root))
}

func TestFileChangedBeforeItsRenameRollsTheBundleBack(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "a", "b.txt": "b"})
	t.Cleanup(func() { testBeforeCheck = nil })
	testBeforeCheck = func(path string) {
		if path == "b.txt" {
			// Someone outside runx writes b.txt after the bundle was
			// planned and a.txt already landed.
			must(t, os.WriteFile(filepath.Join(root, "b.txt"), []byte("meanwhile"), 0o644))
		}
	}
	before := snapshot(t, root)
	res := call(t, changeContext(root), CapabilityApplyBundle, BundleRequest{Changes: []BundleChange{
		{Path: "a.txt", Content: str("A"), ExpectedDigest: digest("a")},
		{Path: "n/new.txt", Content: str("N"), Create: true},
		{Path: "b.txt", Content: str("B"), ExpectedDigest: digest("b")},
	}}, nil)
	wantCode(t, res, errcode.FSDigestMismatch)
	if !strings.Contains(res.Message, "b.txt") || !strings.Contains(res.Message, "nothing of this call was applied") {
		t.Fatalf("message %q", res.Message)
	}
	before["b.txt"] = "-rw-r--r-- meanwhile"
	sameTree(t, before, snapshot(t, root))
	entries, _ := os.ReadDir(journalDir(filepath.Join(root, ".runx"), "run-1"))
	var rolledBack int
	for _, e := range entries {
		if rec, _ := readJournal(filepath.Join(journalDir(filepath.Join(root, ".runx"), "run-1"), e.Name())); rec != nil && rec.State == JournalRolledBack {
			rolledBack++
		}
	}
	if rolledBack != 1 {
		t.Fatalf("%d rolled back journals", rolledBack)
	}
}

func TestChangeToolsDeclareTheirEffects(t *testing.T) {
	want := map[string]string{
		CapabilityRead: plugin.EffectRead, CapabilityList: plugin.EffectRead, CapabilitySearch: plugin.EffectRead,
		CapabilityWrite: plugin.EffectWrite, CapabilityEdit: plugin.EffectWrite, CapabilityApplyBundle: plugin.EffectWrite,
	}
	info := New().Info()
	if len(info.Capabilities) != len(want) {
		t.Fatalf("%d capabilities", len(info.Capabilities))
	}
	for _, d := range info.Capabilities {
		if d.Effect != want[d.ID] {
			t.Errorf("%s declares %s, want %s", d.ID, d.Effect, want[d.ID])
		}
		for _, schema := range []json.RawMessage{d.InputSchema, d.OutputSchema} {
			if !json.Valid(schema) {
				t.Errorf("%s has an invalid schema", d.ID)
			}
		}
	}
}

// A bundle delete is {path, expected_digest}: a change without content,
// optionally marked delete: true, refused when the file's digest differs
// or none is named; the tool's schema admits exactly that shape.
func TestBundleDeleteIsPathAndExpectedDigest(t *testing.T) {
	root := workspace(t, map[string]string{"a.txt": "a", "b.txt": "b"})
	spec := map[string]any{"changes": []any{map[string]any{"path": "a.txt", "expected_digest": digest("a")}}}
	var resp BundleResponse
	mustOK(t, call(t, changeContext(root), CapabilityApplyBundle, spec, &resp))
	if len(resp.Files) != 1 || resp.Files[0].Op != OpDelete {
		t.Fatalf("got %+v", resp.Files)
	}
	wantCode(t, call(t, changeContext(root), CapabilityApplyBundle, map[string]any{"changes": []any{map[string]any{"path": "b.txt", "expected_digest": digest("other")}}}, nil), errcode.FSDigestMismatch)
	wantCode(t, call(t, changeContext(root), CapabilityApplyBundle, map[string]any{"changes": []any{map[string]any{"path": "b.txt"}}}, nil), errcode.FSBlindWriteRefused)
	mustOK(t, call(t, changeContext(root), CapabilityApplyBundle, map[string]any{"changes": []any{map[string]any{"path": "b.txt", "expected_digest": digest("b"), "delete": true}}}, nil))
	sameTree(t, map[string]string{}, snapshot(t, root))

	s := compileSchema(t, bundleRequestSchema)
	d := digest("a")
	for _, doc := range []string{
		`{"changes":[{"path":"a","expected_digest":"` + d + `"}]}`,
		`{"changes":[{"path":"a","expected_digest":"` + d + `","delete":true}]}`,
		`{"changes":[{"path":"a","content":"x","expected_digest":"` + d + `"}]}`,
		`{"changes":[{"path":"a","content":"x","create":true}]}`,
	} {
		if err := s.Validate(mustJSON(t, doc)); err != nil {
			t.Errorf("the schema refuses %s: %v", doc, err)
		}
	}
	for _, doc := range []string{
		`{"changes":[{"path":"a"}]}`,
		`{"changes":[{"path":"a","create":true}]}`,
		`{"changes":[{"path":"a","content":"x","delete":true,"expected_digest":"` + d + `"}]}`,
		`{"changes":[{"path":"a","delete":false,"expected_digest":"` + d + `"}]}`,
	} {
		if err := s.Validate(mustJSON(t, doc)); err == nil {
			t.Errorf("the schema admits %s", doc)
		}
	}
}

func flag(b bool) *bool { return &b }

func compileSchema(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	if err := c.AddResource("s.json", mustJSON(t, schema)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustJSON(t *testing.T, doc string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
