package engine

import (
	"testing"
)

func TestResolveSpecifier(t *testing.T) {
	files := map[string][]byte{
		"main.mjs": nil, "util.js": nil, "lib/a.mjs": nil, "lib/deep/b.mjs": nil, "data.json.mjs": nil,
	}
	cases := []struct {
		importer, spec string
		want, code     string
	}{
		{"main.mjs", "./util.js", "util.js", ""},
		{"main.mjs", "./lib/a.mjs", "lib/a.mjs", ""},
		{"lib/a.mjs", "../util.js", "util.js", ""},
		{"lib/deep/b.mjs", "../a.mjs", "lib/a.mjs", ""},
		{"lib/a.mjs", "./deep/../a.mjs", "lib/a.mjs", ""},
		{"main.mjs", "./data.json.mjs", "data.json.mjs", ""},
		{"main.mjs", "node:fs", "", "module_import_builtin"},
		{"main.mjs", "fs", "", "module_import_builtin"},
		{"main.mjs", "fs/promises", "", "module_import_builtin"},
		{"main.mjs", "child_process", "", "module_import_builtin"},
		{"main.mjs", "lodash", "", "module_import_bare"},
		{"main.mjs", "@scope/pkg", "", "module_import_bare"},
		{"main.mjs", "lodash/fp.js", "", "module_import_bare"},
		{"main.mjs", "https://example.com/x.mjs", "", "module_import_url"},
		{"main.mjs", "data:text/javascript,export default 1", "", "module_import_url"},
		{"main.mjs", "file:///etc/passwd", "", "module_import_url"},
		{"main.mjs", "C:/x.mjs", "", "module_import_url"},
		{"main.mjs", "/etc/x.mjs", "", "module_import_absolute"},
		{"main.mjs", `\x.mjs`, "", "module_import_absolute"},
		{"main.mjs", "../outside.mjs", "", "module_import_escape"},
		{"lib/a.mjs", "../../outside.mjs", "", "module_import_escape"},
		{"lib/deep/b.mjs", "./../../../x.mjs", "", "module_import_escape"},
		{"main.mjs", "..", "", "module_import_escape"},
		{"main.mjs", "./missing.mjs", "", "module_import_missing"},
		{"main.mjs", "./lib/A.mjs", "", "module_import_missing"},
		{"main.mjs", "", "", "module_import_missing"},
		{"main.mjs", "./util", "", "module_import_extension"},
		{"main.mjs", "./data.json", "", "module_import_extension"},
		{"main.mjs", "./lib", "", "module_import_extension"},
		{"main.mjs", "./native.node", "", "module_import_extension"},
		{"main.mjs", "./x.ts", "", "module_import_extension"},
	}
	for _, c := range cases {
		got, err := resolveSpecifier(c.importer, c.spec, files)
		switch {
		case c.code == "" && err != nil:
			t.Errorf("%s imports %q: refused %v, want %s", c.importer, c.spec, err, c.want)
		case c.code == "" && got != c.want:
			t.Errorf("%s imports %q: resolved %s, want %s", c.importer, c.spec, got, c.want)
		case c.code != "" && (err == nil || string(err.Code) != c.code):
			t.Errorf("%s imports %q: got (%q, %v), want code %s", c.importer, c.spec, got, err, c.code)
		}
	}
}

func TestHasScheme(t *testing.T) {
	for spec, want := range map[string]bool{
		"https://x": true, "node:fs": true, "a+b.c-d:x": true, "C:/x": true,
		"./a:b.mjs": false, "a/b:c": false, ":x": false, "1http:x": false, "lodash": false,
	} {
		if got := hasScheme(spec); got != want {
			t.Errorf("hasScheme(%q) = %v, want %v", spec, got, want)
		}
	}
}
