package fs

import "testing"

// Cases from Git's own wildmatch tests (t/t3070-wildmatch.sh), so the port
// is held to Git's answers rather than to what a glob "should" do.
func TestWildmatchAgreesWithGit(t *testing.T) {
	for _, tc := range []struct {
		pattern, text     string
		pathname, nonpath bool
	}{
		{"foo", "foo", true, true},
		{"bar", "foo", false, false},
		{"", "", true, true},
		{"???", "foo", true, true},
		{"??", "foo", false, false},
		{"*", "foo", true, true},
		{"f*", "foo", true, true},
		{"*f", "foo", false, false},
		{"*foo*", "foo", true, true},
		{"*ob*a*r*", "foobar", true, true},
		{"*ab", "aaaaaaabababab", true, true},
		{`foo\*`, "foo*", true, true},
		{`foo\*bar`, "foobar", false, false},
		{`f\\oo`, `f\oo`, true, true},
		{"*[al]?", "ball", true, true},
		{"[ten]", "ten", false, false},
		{"**[!te]", "ten", true, true},
		{"**[!ten]", "ten", false, false},
		{"t[a-g]n", "ten", true, true},
		{"t[!a-g]n", "ten", false, false},
		{"t[!a-g]n", "ton", true, true},
		{"t[^a-g]n", "ton", true, true},
		{"a[]]b", "a]b", true, true},
		{"a[]-]b", "a-b", true, true},
		{"a[]-]b", "a]b", true, true},
		{"a[]-]b", "aab", false, false},
		{"a[]a-]b", "aab", true, true},
		{"]", "]", true, true},
		{"foo*bar", "foo/baz/bar", false, true},
		{"foo**bar", "foo/baz/bar", false, true},
		{"foo/**/bar", "foo/baz/bar", true, true},
		{"foo/**/**/bar", "foo/baz/bar", true, false},
		{"foo/**/bar", "foo/b/a/z/bar", true, true},
		{"foo/**/bar", "foo/bar", true, false},
		{"foo?bar", "foo/bar", false, true},
		{"foo[/]bar", "foo/bar", false, true},
		{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true, true},
		{"**/foo", "foo", true, false},
		{"**/foo", "XXX/foo", true, true},
		{"**/foo", "bar/baz/foo", true, true},
		{"*/foo", "bar/baz/foo", false, true},
		{"**/bar*", "foo/bar/baz", false, true},
		{"**/bar/*", "deep/foo/bar/baz", true, true},
		{"**/bar/*", "deep/foo/bar/baz/", false, true},
		{"**/bar/**", "deep/foo/bar/baz/", true, true},
		{"**/bar/*", "deep/foo/bar", false, false},
		{"**/bar/**", "deep/foo/bar/", true, true},
		{"**/bar**", "foo/bar/baz", false, true},
		{"*/bar/**", "foo/bar/baz/x", true, true},
		{"*/bar/**", "deep/foo/bar/baz/x", false, true},
		{"**/bar/*/*", "deep/foo/bar/baz/x", true, true},
		{"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true, true},
		{"[[:digit:][:upper:][:space:]]", "a", false, false},
		{"[[:digit:][:upper:][:space:]]", "1", true, true},
		{"[[:xdigit:]]", "D", true, true},
		{"[a-c[:digit:]x-z]", "5", true, true},
		{"[a-c[:digit:]x-z]", "y", true, true},
		{"[a-c[:digit:]x-z]", "q", false, false},
		{"[[:nonsense:]]", "n", false, false},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true, true},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true, true},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", false, false},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", true, true},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", false, false},
		{"*/*/*", "foo/bba/arr", true, true},
		{"*/*/*", "foo/bb/aa/rr", false, true},
		{"**/**/**", "foo/bb/aa/rr", true, true},
		{"*X*i", "abcXdefXghi", true, true},
		{"*/*X*/*/*i", "ab/cXd/efXg/hi", true, true},
		{"**/*X*/**/*i", "ab/cXd/efXg/hi", true, true},
		{"a[c-c]st", "acrt", false, false},
		{"a[c-c]rt", "acrt", true, true},
		{"[!]-]", "]", false, false},
		{"[!]-]", "a", true, true},
	} {
		if got := wildmatch(tc.pattern, tc.text, true); got != tc.pathname {
			t.Errorf("wildmatch(%q, %q, pathname) = %v, Git says %v", tc.pattern, tc.text, got, tc.pathname)
		}
		if got := wildmatch(tc.pattern, tc.text, false); got != tc.nonpath {
			t.Errorf("wildmatch(%q, %q) = %v, Git says %v", tc.pattern, tc.text, got, tc.nonpath)
		}
	}
}
