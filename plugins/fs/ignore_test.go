package fs

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitVisible asks Git itself which files of the tree at root it would show
// as untracked: the answer every ignore case is held to.
func gitVisible(tb testing.TB, root string) []string {
	tb.Helper()
	cmd := exec.Command("git", "-C", root, "ls-files", "--others", "--exclude-standard", "-z")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if f != "" && !strings.HasSuffix(f, "/") {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return files
}

func gitInit(tb testing.TB, dir string) {
	tb.Helper()
	cmd := exec.Command("git", "init", "-q", dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git init: %v\n%s", err, out)
	}
}

// listedFiles lists root recursively and keeps the regular files.
func listedFiles(tb testing.TB, root, dir string) []string {
	tb.Helper()
	var resp ListResponse
	mustOK(tb, call(tb, wsContext(root), CapabilityList, ListRequest{Path: dir, Recursive: true, MaxEntries: ListMaxEntries}, &resp))
	var files []string
	for _, e := range resp.Entries {
		if e.Kind == KindFile {
			files = append(files, e.Path)
		}
	}
	slices.Sort(files)
	return files
}

func TestIgnoreSemanticsMatchGit(t *testing.T) {
	for name, tc := range map[string]struct {
		files   map[string]string
		exclude string // .git/info/exclude
		want    []string
	}{
		"basename at any depth": {
			files: map[string]string{".gitignore": "*.log\n", "a.log": "", "d/b.log": "", "d/c.txt": ""},
			want:  []string{".gitignore", "d/c.txt"},
		},
		"negation re-includes": {
			files: map[string]string{".gitignore": "*.log\n!keep.log\n", "a.log": "", "keep.log": "", "d/keep.log": ""},
			want:  []string{".gitignore", "d/keep.log", "keep.log"},
		},
		"last matching line wins": {
			files: map[string]string{".gitignore": "!a.log\n*.log\n", "a.log": "", "b.txt": ""},
			want:  []string{".gitignore", "b.txt"},
		},
		"directory pattern matches directories only": {
			files: map[string]string{".gitignore": "build/\n", "build/x.o": "", "src/build/y.o": "", "other/build": "file"},
			want:  []string{".gitignore", "other/build"},
		},
		"leading slash anchors": {
			files: map[string]string{".gitignore": "/root.txt\n", "root.txt": "", "sub/root.txt": ""},
			want:  []string{".gitignore", "sub/root.txt"},
		},
		"middle slash anchors and star stops at slash": {
			files: map[string]string{".gitignore": "doc/*.txt\n", "doc/a.txt": "", "doc/sub/b.txt": "", "x/doc/c.txt": ""},
			want:  []string{".gitignore", "doc/sub/b.txt", "x/doc/c.txt"},
		},
		"double star forms": {
			files: map[string]string{
				".gitignore": "**/tmp\nlogs/**\na/**/z.txt\n",
				"tmp/1":      "", "p/q/tmp/2": "", "logs/l1": "", "logs/deep/l2": "",
				"a/z.txt": "", "a/b/c/z.txt": "", "a/b/keep.txt": "", "b/z.txt": "",
			},
			want: []string{".gitignore", "a/b/keep.txt", "b/z.txt"},
		},
		"nested ignore files apply below their directory": {
			files: map[string]string{
				".gitignore":     "*.log\n",
				"sub/.gitignore": "*.dat\n!important.log\n",
				"top.dat":        "", "sub/x.dat": "", "sub/important.log": "", "sub/other.log": "", "sub/deeper/important.log": "",
			},
			want: []string{".gitignore", "sub/.gitignore", "sub/deeper/important.log", "sub/important.log", "top.dat"},
		},
		"a file under an excluded directory cannot be re-included": {
			files: map[string]string{".gitignore": "out/\n!out/keep.txt\n", "out/keep.txt": "", "out/drop.txt": ""},
			want:  []string{".gitignore"},
		},
		"contents excluded, directory re-entered": {
			files: map[string]string{".gitignore": "out/*\n!out/keep.txt\n", "out/keep.txt": "", "out/drop.txt": ""},
			want:  []string{".gitignore", "out/keep.txt"},
		},
		"info exclude is honoured": {
			files:   map[string]string{"notes.txt": "", "code.go": ""},
			exclude: "notes.txt\n",
			want:    []string{"code.go"},
		},
		"escapes, comments and trailing spaces": {
			files: map[string]string{
				".gitignore": "# a comment\n\\#hash.txt\n\\!bang.txt\nspace.txt   \n",
				"#hash.txt":  "", "!bang.txt": "", "space.txt": "", "# a comment": "",
			},
			want: []string{"# a comment", ".gitignore"},
		},
		"bracket classes": {
			files: map[string]string{".gitignore": "file[0-9].txt\n", "file1.txt": "", "fileA.txt": ""},
			want:  []string{".gitignore", "fileA.txt"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := workspace(t, tc.files)
			gitInit(t, root)
			if tc.exclude != "" {
				if err := os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte(tc.exclude), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if git := gitVisible(t, root); !slices.Equal(git, tc.want) {
				t.Fatalf("the case itself is wrong: Git shows %q, the case expects %q", git, tc.want)
			}
			if got := listedFiles(t, root, ""); !slices.Equal(got, tc.want) {
				t.Fatalf("fs.list shows %q, Git shows %q", got, tc.want)
			}
		})
	}
}

func TestIgnoreFilesAboveANamedDirectoryApply(t *testing.T) {
	root := workspace(t, map[string]string{
		".gitignore": "*.log\n", "src/.gitignore": "gen/\n",
		"src/pkg/a.go": "", "src/pkg/a.log": "", "src/pkg/gen/g.go": "",
	})
	gitInit(t, root)
	if got := listedFiles(t, root, "src/pkg"); !slices.Equal(got, []string{"src/pkg/a.go"}) {
		t.Fatalf("got %q", got)
	}
}

func TestANamedIgnoredDirectoryIsShownWhole(t *testing.T) {
	whole := []string{"build/sub/.gitignore", "build/sub/out.o"}
	for rule, want := range map[string][]string{
		"build/":   whole,
		"build/**": whole,
		"/build/*": whole,
		// A rule on files still applies beneath a directory not ignored.
		"*.o": {"build/sub/.gitignore"},
	} {
		root := workspace(t, map[string]string{
			".gitignore": rule + "\n", "build/sub/out.o": "", "build/sub/.gitignore": "*.tmp\n", "build/sub/x.tmp": "",
		})
		if got := listedFiles(t, root, "build/sub"); !slices.Equal(got, want) {
			t.Fatalf("rule %q: got %q, want %q", rule, got, want)
		}
	}
}

func TestTrimTrailingSpaces(t *testing.T) {
	for in, want := range map[string]string{
		"a   ": "a", `a\ `: `a\ `, `a\  `: `a\ `, "a b": "a b", `a\`: `a\`,
	} {
		if got := trimTrailingSpaces(in); got != want {
			t.Errorf("trimTrailingSpaces(%q) = %q, want %q", in, got, want)
		}
	}
}
