package engine

import "testing"

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
		{"main.mjs", "node:fs", "", CodeImportBuiltin},
		{"main.mjs", "fs", "", CodeImportBuiltin},
		{"main.mjs", "fs/promises", "", CodeImportBuiltin},
		{"main.mjs", "child_process", "", CodeImportBuiltin},
		{"main.mjs", "lodash", "", CodeImportBare},
		{"main.mjs", "@scope/pkg", "", CodeImportBare},
		{"main.mjs", "lodash/fp.js", "", CodeImportBare},
		{"main.mjs", "https://example.com/x.mjs", "", CodeImportURL},
		{"main.mjs", "data:text/javascript,export default 1", "", CodeImportURL},
		{"main.mjs", "file:///etc/passwd", "", CodeImportURL},
		{"main.mjs", "C:/x.mjs", "", CodeImportURL},
		{"main.mjs", "/etc/x.mjs", "", CodeImportAbsolute},
		{"main.mjs", `\x.mjs`, "", CodeImportAbsolute},
		{"main.mjs", "../outside.mjs", "", CodeImportEscape},
		{"lib/a.mjs", "../../outside.mjs", "", CodeImportEscape},
		{"lib/deep/b.mjs", "./../../../x.mjs", "", CodeImportEscape},
		{"main.mjs", "..", "", CodeImportEscape},
		{"main.mjs", "./missing.mjs", "", CodeImportMissing},
		{"main.mjs", "./lib/A.mjs", "", CodeImportMissing},
		{"main.mjs", "", "", CodeImportMissing},
		{"main.mjs", "./util", "", CodeImportExtension},
		{"main.mjs", "./data.json", "", CodeImportExtension},
		{"main.mjs", "./lib", "", CodeImportExtension},
		{"main.mjs", "./native.node", "", CodeImportExtension},
		{"main.mjs", "./x.ts", "", CodeImportExtension},
	}
	for _, c := range cases {
		got, err := resolveSpecifier(c.importer, c.spec, files)
		switch {
		case c.code == "" && err != nil:
			t.Errorf("%s imports %q: refused %v, want %s", c.importer, c.spec, err, c.want)
		case c.code == "" && got != c.want:
			t.Errorf("%s imports %q: resolved %s, want %s", c.importer, c.spec, got, c.want)
		case c.code != "" && (err == nil || err.Code != c.code):
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
