package fs

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
)

func TestApplyEdits(t *testing.T) {
	for name, tc := range map[string]struct {
		content string
		edits   []Edit
		want    string
		counts  []int
		code    errcode.Code
	}{
		"once":                   {"a b c", []Edit{{Old: "b", New: "B"}}, "a B c", []int{1}, ""},
		"replace_all":            {"x y x y x", []Edit{{Old: "x", New: "z", ReplaceAll: true}}, "z y z y z", []int{3}, ""},
		"replace_all of one":     {"x y", []Edit{{Old: "x", New: "z", ReplaceAll: true}}, "z y", []int{1}, ""},
		"in order":               {"one", []Edit{{Old: "one", New: "two"}, {Old: "two", New: "three"}}, "three", []int{1, 1}, ""},
		"to nothing":             {"keep drop keep", []Edit{{Old: " drop", New: ""}}, "keep keep", []int{1}, ""},
		"not found":              {"abc", []Edit{{Old: "z", New: "y"}}, "", nil, errcode.FSEditNotFound},
		"not found after":        {"abc", []Edit{{Old: "abc", New: "x"}, {Old: "abc", New: "y"}}, "", nil, errcode.FSEditNotFound},
		"ambiguous":              {"x x", []Edit{{Old: "x", New: "y"}}, "", nil, errcode.FSEditAmbiguous},
		"made ambiguous":         {"x y", []Edit{{Old: "y", New: "x"}, {Old: "x", New: "z"}}, "", nil, errcode.FSEditAmbiguous},
		"empty old":              {"x", []Edit{{Old: "", New: "y"}}, "", nil, errcode.FSRequestInvalid},
		"whitespace is exact":    {"a  b", []Edit{{Old: "a b", New: "c"}}, "", nil, errcode.FSEditNotFound},
		"overlapping is counted": {"aaa", []Edit{{Old: "aa", New: "b"}}, "ba", []int{1}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			got, counts, res := applyEdits("f.txt", tc.content, tc.edits)
			if tc.code != "" {
				if res == nil || res.Code != tc.code || !strings.Contains(res.Message, "f.txt") {
					t.Fatalf("want %s naming the file, got %+v", tc.code, res)
				}
				return
			}
			if res != nil || got != tc.want || !slices.Equal(counts, tc.counts) {
				t.Fatalf("got %q %v %+v", got, counts, res)
			}
		})
	}
}

func TestEditChangesTheFileItRead(t *testing.T) {
	root := workspace(t, map[string]string{"main.go": "package main\n\nfunc a() {}\nfunc b() {}\n// a; a; a;\n"})
	var resp EditResponse
	mustOK(t, call(t, changeContext(root), CapabilityEdit, EditRequest{Path: "main.go", Edits: []Edit{
		{Old: "func a() {}", New: "func alpha() {}"},
		{Old: "a;", New: "z;", ReplaceAll: true},
	}}, &resp))
	want := "package main\n\nfunc alpha() {}\nfunc b() {}\n// z; z; z;\n"
	if got := readFile(t, filepath.Join(root, "main.go")); got != want {
		t.Fatalf("file holds %q", got)
	}
	if resp.Op != OpWrite || resp.AfterDigest != digest(want) || !slices.Equal(resp.Replacements, []int{1, 3}) ||
		resp.BeforeDigest != digest("package main\n\nfunc a() {}\nfunc b() {}\n// a; a; a;\n") {
		t.Fatalf("got %+v", resp)
	}
	if rec := loadJournal(t, resp.Journal.Path); rec.State != JournalCommitted || rec.Capability != CapabilityEdit {
		t.Fatalf("journal %+v", rec)
	}
	// With expected_digest the edit is bound to the caller's read too.
	mustOK(t, call(t, changeContext(root), CapabilityEdit, EditRequest{Path: "main.go", ExpectedDigest: digest(want),
		Edits: []Edit{{Old: "func b() {}", New: "func beta() {}"}}}, &resp))
}

func TestEditRefusalsChangeNothing(t *testing.T) {
	content := "x = 1\nx = 1\ny = 2\n"
	for name, tc := range map[string]struct {
		edits []Edit
		code  errcode.Code
	}{
		"not found": {[]Edit{{Old: "z = 3", New: "z = 4"}}, errcode.FSEditNotFound},
		"ambiguous": {[]Edit{{Old: "x = 1", New: "x = 2"}}, errcode.FSEditAmbiguous},
		// The first edit would apply; the whole call is still refused.
		"second fails": {[]Edit{{Old: "y = 2", New: "y = 3"}, {Old: "w", New: "v"}}, errcode.FSEditNotFound},
		"no edits":     {nil, errcode.FSRequestInvalid},
	} {
		t.Run(name, func(t *testing.T) {
			root := workspace(t, map[string]string{"f.txt": content})
			before := snapshot(t, root)
			wantCode(t, call(t, changeContext(root), CapabilityEdit, EditRequest{Path: "f.txt", Edits: tc.edits}, nil), tc.code)
			sameTree(t, before, snapshot(t, root))
		})
	}
}
