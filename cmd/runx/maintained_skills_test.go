package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runxhq/runx/internal/testenv"
)

// maintainedPackages lists the packages runx maintains: every directory
// under skills/ and examples/ holding a SKILL.md (skills/<name>/, or
// skills/<publisher>/<name>/), found by walking, so a new skill is covered
// without naming it here. What sits inside a package (workflow stages,
// fixtures) is the package's own and is tested through it.
func maintainedPackages(t *testing.T, repo string) []string {
	t.Helper()
	var found []string
	for _, root := range []string{"skills", "examples"} {
		err := filepath.WalkDir(filepath.Join(repo, root), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			if _, err := os.Stat(filepath.Join(path, "SKILL.md")); err == nil {
				found = append(found, path)
				return filepath.SkipDir
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return found
}

// Every maintained skill's own tests pass: `runx test` over each package in
// skills/ and examples/, each in a workspace of its own. A package without
// tests fails here too (tests_not_found): a maintained skill has tests.
func TestMaintainedSkillsPassTheirOwnTests(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	packages := maintainedPackages(t, repo)
	if len(packages) < 2 {
		t.Fatalf("found %d packages under skills/ and examples/: the walk is broken", len(packages))
	}
	for _, dir := range packages {
		rel, _ := filepath.Rel(repo, dir)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			ws := testenv.Dir(t)
			cmd := exec.Command(filepath.Join(binDir, "runx"), "test", dir, "--json")
			cmd.Dir, cmd.Env = ws, testenv.Env(ws)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			runErr := cmd.Run()
			var rep struct {
				Passed int `json:"passed"`
				Failed int `json:"failed"`
				Tests  []struct {
					Name     string   `json:"name"`
					Status   string   `json:"status"`
					Failures []string `json:"failures"`
				} `json:"tests"`
				Error *struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("runx test %s printed no report (%v): %s%s", rel, runErr, stdout.String(), stderr.String())
			}
			if rep.Error != nil {
				t.Fatalf("runx test %s: %s [%s]", rel, rep.Error.Message, rep.Error.Code)
			}
			for _, tc := range rep.Tests {
				if tc.Status != "passed" {
					t.Errorf("%s/tests/%s.yaml: %s", rel, tc.Name, strings.Join(tc.Failures, "; "))
				}
			}
			if rep.Passed == 0 || rep.Failed > 0 || runErr != nil {
				t.Errorf("runx test %s: %d passed, %d failed (%v)", rel, rep.Passed, rep.Failed, runErr)
			}
		})
	}
}
