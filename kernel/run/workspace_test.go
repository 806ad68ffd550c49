package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/errcode"
)

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	mkdirs(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func codeOf(err error) errcode.Code {
	var c interface{ ErrorCode() errcode.Code }
	if errors.As(err, &c) {
		return c.ErrorCode()
	}
	return ""
}

// openAt opens a kernel as a command run in cwd would: the workspace and
// the project directory are found, never named.
func openAt(t *testing.T, cwd string) (*Kernel, error) {
	t.Helper()
	k, err := Open(context.Background(), Options{Cwd: cwd, HomeDir: filepath.Join(t.TempDir(), "home"), RunxVersion: "0.1.0",
		LookupEnv: func(string) (string, bool) { return "", false }})
	if err == nil {
		t.Cleanup(k.Close)
	}
	return k, err
}

// The walk stops at the first directory marked as a project: a .runx above
// it (a stray /tmp/.runx) is never reached.
func TestFindWorkspaceStopsAtTheNearestProjectMark(t *testing.T) {
	for _, mark := range []string{".git", "skills", ".runx"} {
		t.Run(mark, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, filepath.Join(root, ".runx", "state.sqlite"), "")
			project := filepath.Join(root, "project")
			mkdirs(t, filepath.Join(project, mark), filepath.Join(project, "sub", "deeper"))
			if got := FindWorkspace(filepath.Join(project, "sub", "deeper"), filepath.Join(root, "home")); got != project {
				t.Fatalf("workspace %s, want %s: the walk went past the project's %s", got, project, mark)
			}
		})
	}
}

// A .runx that is not runx's own marks nothing: the walk passes it, so an
// unmarked directory below it is a workspace of its own.
func TestFindWorkspacePassesAForeignRunx(t *testing.T) {
	cases := map[string]func(t *testing.T, runx string){
		"unrecognized": func(t *testing.T, runx string) { writeFile(t, filepath.Join(runx, "notes.txt"), "not runx's") },
		"file":         func(t *testing.T, runx string) { writeFile(t, runx, "") },
		"symlink": func(t *testing.T, runx string) {
			target := filepath.Join(filepath.Dir(runx), "elsewhere")
			writeFile(t, filepath.Join(target, "state.sqlite"), "")
			if err := os.Symlink(target, runx); err != nil {
				t.Fatal(err)
			}
		},
		"other user": func(t *testing.T, runx string) {
			if os.Getuid() != 0 {
				t.Skip("making a directory another user owns needs root")
			}
			writeFile(t, filepath.Join(runx, ProjectIdentityFile), projectIdentity)
			if err := os.Chown(runx, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			plant(t, filepath.Join(root, ".runx"))
			cwd := filepath.Join(root, "work")
			mkdirs(t, cwd)
			if got := FindWorkspace(cwd, filepath.Join(root, "home")); got != cwd {
				t.Fatalf("workspace %s, want %s: a foreign .runx was adopted", got, cwd)
			}
		})
	}
}

// A foreign .runx where runx would keep its state is refused by code, and
// nothing is written into it.
func TestOpenRefusesAForeignProjectDirectory(t *testing.T) {
	cases := map[string]struct {
		code  errcode.Code
		plant func(t *testing.T, runx string)
	}{
		"unrecognized": {errcode.ProjectUnrecognized, func(t *testing.T, runx string) {
			writeFile(t, filepath.Join(runx, "notes.txt"), "not runx's")
		}},
		"file": {errcode.ProjectNotDirectory, func(t *testing.T, runx string) { writeFile(t, runx, "") }},
		"symlink": {errcode.ProjectNotDirectory, func(t *testing.T, runx string) {
			target := t.TempDir()
			if err := os.Symlink(target, runx); err != nil {
				t.Fatal(err)
			}
		}},
		"other user": {errcode.ProjectForeignOwner, func(t *testing.T, runx string) {
			if os.Getuid() != 0 {
				t.Skip("making a directory another user owns needs root")
			}
			writeFile(t, filepath.Join(runx, ProjectIdentityFile), projectIdentity)
			if err := os.Chown(runx, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			mkdirs(t, filepath.Join(ws, ".git"))
			runx := filepath.Join(ws, ".runx")
			c.plant(t, runx)
			_, err := openAt(t, ws)
			if got := codeOf(err); got != c.code {
				t.Fatalf("open: %v (code %q), want %s", err, got, c.code)
			}
			if _, err := os.Stat(filepath.Join(runx, "state.sqlite")); err == nil {
				t.Fatal("runx wrote its state into a .runx it refused")
			}
		})
	}
}

// The runx home is never a project, even when the walk ends at the
// directory holding it.
func TestOpenRefusesTheHomeAsAProject(t *testing.T) {
	ws := t.TempDir()
	mkdirs(t, filepath.Join(ws, ".git"))
	_, err := Open(context.Background(), Options{Cwd: ws, HomeDir: filepath.Join(ws, ".runx"), RunxVersion: "0.1.0",
		LookupEnv: func(string) (string, bool) { return "", false }})
	if got := codeOf(err); got != errcode.ProjectUnrecognized {
		t.Fatalf("open: %v (code %q), want %s", err, got, errcode.ProjectUnrecognized)
	}
}

// runx marks a .runx it makes with its identity file, and one an earlier
// runx made (its state, no identity file) is adopted and marked.
func TestOpenMarksTheProjectItUses(t *testing.T) {
	t.Run("new", func(t *testing.T) {
		ws := t.TempDir()
		mkdirs(t, filepath.Join(ws, ".git"))
		if _, err := openAt(t, ws); err != nil {
			t.Fatal(err)
		}
		if err := checkProject(filepath.Join(ws, ".runx")); err != nil {
			t.Fatalf("runx's own .runx is not recognised: %v", err)
		}
		raw, err := os.ReadFile(filepath.Join(ws, ".runx", ProjectIdentityFile))
		if err != nil || string(raw) != projectIdentity {
			t.Fatalf("identity file %q, %v", raw, err)
		}
	})
	adopted := map[string][]string{
		// An earlier runx's state beside a third-party plugin's file.
		"earlier state": {"state.sqlite", "notes-journal/run.json"},
		// A fresh clone: the project's committed added packages only.
		"committed added packages": {"added-skills/acme/x/1.0.0/SKILL.md", "added-connectors/web/1.0.0/connector.yaml"},
		// A third-party plugin put in place before the first run, beside
		// its own configuration.
		"plugin placed first": {"plugins/runx-plugin-postbox", "postbox.json"},
	}
	for name, entries := range adopted {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			for _, e := range entries {
				if e == "state.sqlite" {
					// An earlier runx's records: a real journal, as one made it.
					j, err := journal.Open(filepath.Join(ws, ".runx"), time.Now)
					if err != nil {
						t.Fatal(err)
					}
					j.Close()
					continue
				}
				writeFile(t, filepath.Join(ws, ".runx", filepath.FromSlash(e)), "")
			}
			if got := FindWorkspace(ws, filepath.Join(ws, "home")); got != ws {
				t.Fatalf("workspace %s: runx's own .runx was not recognised", got)
			}
			if _, err := openAt(t, ws); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(ws, ".runx", ProjectIdentityFile)); err != nil {
				t.Fatalf("the adopted .runx was not marked: %v", err)
			}
		})
	}
}

// RUNX_PROJECT_DIR names the project directory: the host chose it, so it is
// used as it is.
func TestOpenUsesANamedProjectDirectory(t *testing.T) {
	ws, named := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(named, "notes.txt"), "the host's")
	k, err := Open(context.Background(), Options{Workspace: ws, ProjectDir: named, HomeDir: filepath.Join(ws, "home"), RunxVersion: "0.1.0",
		LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	k.Close()
}

// A catalog workspace's root SKILL.md is its manual, not a package; a root
// run.yaml opts the root in.
func TestCatalogRootIsNotAPackage(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "SKILL.md"), "---\nname: catalog\ndescription: The workspace's manual.\n---\nManual.\n")
	writeFile(t, filepath.Join(ws, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets.\n---\nManual.\n")
	l, err := NewLocator(Options{Cwd: ws, HomeDir: filepath.Join(ws, ".home"), RunxVersion: "0.1.0",
		LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err = l.Package(".", ""); codeOf(err) != errcode.PackageCatalogRoot {
		t.Fatalf("the catalog root loaded as a package: %v", err)
	}
	if _, _, err := l.Package("greet", ""); err != nil {
		t.Fatalf("a skill of the catalog: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".runx")); err == nil {
		t.Fatal("locating a package made a .runx")
	}
}

// A root run.yaml makes a catalog workspace's root a package.
func TestCatalogRootWithRunYAMLIsAPackage(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "SKILL.md"), "---\nname: root\ndescription: The root package.\n---\nManual.\n")
	writeFile(t, filepath.Join(ws, "run.yaml"), "minimum_runx: 0.1.0\nmethods:\n  go:\n    steps:\n      - id: hi\n        tool: { module: hi.mjs }\n")
	writeFile(t, filepath.Join(ws, "hi.mjs"), "export default function () { return {}; }\n")
	mkdirs(t, filepath.Join(ws, "skills"))
	if _, err := pkg.Load(ws, pkg.LoadOptions{RunxVersion: "0.1.0"}); err != nil {
		t.Fatalf("a root with run.yaml: %v", err)
	}
}
