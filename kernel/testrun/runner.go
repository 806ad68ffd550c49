package testrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/contract/seal"
	"github.com/runxhq/runx/kernel/journal"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run"
	"github.com/runxhq/runx/sdk/errcode"
)

// FixedClock is the instant every test run reads, so receipts reproduce.
var FixedClock = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ReportSchema names the JSON document `runx test --json` prints.
const ReportSchema = "runx.test_report.v1"

// Report is the outcome of a test session.
type Report struct {
	Schema  string   `json:"schema"`
	Package string   `json:"package"`
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	Tests   []Result `json:"tests"`
}

// Result is one test's outcome.
type Result struct {
	Name      string       `json:"name"`
	File      string       `json:"file"`
	Status    ResultStatus `json:"status"`
	Failures  []string     `json:"failures,omitempty"`
	RunID     string       `json:"run_id,omitempty"`
	ReceiptID string       `json:"receipt_id,omitempty"`
	Outcome   seal.Outcome `json:"outcome,omitempty"`
}

// ResultStatus is how one test ended.
type ResultStatus string

// Result statuses.
const (
	ResultPassed ResultStatus = "passed"
	ResultFailed ResultStatus = "failed"
)

// Runner runs tests with one kernel: its plugins are shared by every test,
// while each test gets its own workspace, receipt store, clock and signer.
type Runner struct {
	Kernel *run.Kernel
	// Keep copies each test's verified receipts into the kernel's store.
	Keep bool
	// Progress, when set, receives one line per test as it finishes.
	Progress func(Result)
}

// Run runs target: a package directory (every tests/*.yaml in name order) or
// one test file.
func (r *Runner) Run(ctx context.Context, target string) (*Report, error) {
	pkgDir, cases, err := Find(r.Kernel.Options.Cwd, r.Kernel.PackageDir, target)
	if err != nil {
		return nil, err
	}
	rep := &Report{Schema: ReportSchema, Package: pkgDir, Tests: []Result{}}
	for _, tc := range cases {
		res := r.runOne(ctx, pkgDir, tc)
		if res.Status == ResultPassed {
			rep.Passed++
		} else {
			rep.Failed++
		}
		rep.Tests = append(rep.Tests, res)
		if r.Progress != nil {
			r.Progress(res)
		}
	}
	return rep, nil
}

func (r *Runner) runOne(ctx context.Context, pkgDir string, tc *pkg.TestCase) Result {
	res := Result{Name: tc.Name, File: tc.Path, Status: ResultFailed}
	fail := func(format string, args ...any) Result {
		res.Failures = append(res.Failures, fmt.Sprintf(format, args...))
		return res
	}
	scratchRoot := filepath.Join(r.Kernel.Options.ProjectDir, "test")
	if err := os.MkdirAll(scratchRoot, 0o755); err != nil {
		return fail("cannot create the test scratch directory: %v", err)
	}
	scratch, err := os.MkdirTemp(scratchRoot, sanitize(tc.Name)+"-")
	if err != nil {
		return fail("cannot create the test workspace: %v", err)
	}
	defer os.RemoveAll(scratch)
	if err := stageFixtures(pkgDir, scratch); err != nil {
		return fail("cannot stage fixtures: %v", err)
	}
	runDir := pkgDir
	if tc.Package != "" {
		runDir = filepath.Join(scratch, filepath.FromSlash(tc.Package))
	}
	store, err := receipt.Open(filepath.Join(scratch, ".runx", "receipts"))
	if err != nil {
		return fail("cannot open the test receipt store: %v", err)
	}
	defer store.Close()
	signer, err := receipt.NewSigner(receipt.FixtureKey())
	if err != nil {
		return fail("%v", err)
	}
	k := r.Kernel
	keys := receipt.NewKeySet(signer.PublicKey())
	if err := seedReceipts(ctx, pkgDir, tc, store, keys); err != nil {
		return fail("%v", err)
	}
	authorityDoc, err := setupAuthority(tc)
	if err != nil {
		return fail("%v", err)
	}
	var invoker run.Invoker = k.Invoker()
	var procs *processStandIn
	if tc.Providers != nil && len(tc.Providers.Processes) > 0 {
		procs = newProcessStandIn(k.Invoker(), tc.Providers.Processes)
		invoker = procs
	}
	clock := func() time.Time { return FixedClock }
	j, err := journal.Open(filepath.Join(scratch, ".runx"), clock)
	if err != nil {
		return fail("cannot open the test run records: %v", err)
	}
	defer j.Close()
	p, err := pkg.Load(runDir, k.LoadOptions())
	if err != nil {
		return fail("package: %v", err)
	}
	mcpServers, replay, err := providers(tc, p)
	defer mcpServers.close()
	if err != nil {
		return fail("%v [%s]", err, contract.CodeOf(err))
	}
	// Credentials come only from the test: its setup.credentials, stored
	// in a scratch runx home, never the person's home or environment.
	home := filepath.Join(scratch, ".home")
	tk := k.ForTest(run.Scratch{
		Host: invoker, Signer: signer, Store: store, Journal: j, Clock: clock,
		Workspace: scratch, ProjectDir: filepath.Join(scratch, ".runx"),
		HTTPReplay: replay, CredentialHome: home, CredentialEnv: noEnv,
	})
	if err := storeCredentials(tc, p, home); err != nil {
		return fail("%v [%s]", err, contract.CodeOf(err))
	}
	m, err := p.SelectMethod(tc.Method)
	if err != nil {
		return fail("method: %v", err)
	}
	res.RunID = testRunID(p.Name, tc.Name)
	st := run.Start{Package: p, Method: m, RunID: res.RunID, Authority: authorityDoc}
	if tc.Host != nil {
		st.Act = tc.Host.Act
	}
	doc, err := json.Marshal(orEmpty(tc.Inputs))
	if err != nil {
		return fail("inputs: %v", err)
	}
	var env *contract.SkillRun
	if st.Inputs, err = pkg.BindInputs(m, pkg.InputSource{Document: doc, HasDocument: true}); err != nil {
		env, err = tk.SealRefused(ctx, st, err)
	} else {
		env, err = tk.Run(ctx, st)
	}
	if err != nil {
		return fail("run: %v", err)
	}
	host := newHostStandIn(tc.Host, turnWorker(tk, res.RunID))
	for round := 0; env.Status != contract.StatusSealed && round < maxHostRounds; round++ {
		doc, ok := host.answer(ctx, env.Requests)
		if !ok {
			break
		}
		if env, err = tk.Resume(ctx, run.ResumeRequest{RunID: res.RunID, Document: doc}); err != nil {
			return fail("resume: %v", err)
		}
	}
	res.ReceiptID, res.Outcome = env.ReceiptID, env.Outcome
	failures := checkExpect(tc, env, store)
	failures = append(failures, checkSteps(ctx, tc, env, j)...)
	failures = append(failures, host.failures...)
	failures = append(failures, host.unused()...)
	if procs != nil {
		failures = append(failures, procs.unused()...)
	}
	failures = append(failures, httpFailures(tc, replay)...)
	failures = append(failures, mcpServers.failures()...)
	// A run that paused (needs_agent, needs_approval) has sealed no root
	// yet: there is no tree to verify or keep, and its status is what the
	// test asserts.
	if env.ReceiptID != "" {
		failures = append(failures, verifyAndKeep(ctx, store, r.keeper(), env.ReceiptID, signer)...)
	} else if env.Status == contract.StatusSealed {
		failures = append(failures, "the run sealed without a receipt")
	}
	if len(failures) > 0 {
		res.Failures = failures
		return res
	}
	res.Status = ResultPassed
	return res
}

// keeper is the kernel when the runner keeps receipts, else nil.
func (r *Runner) keeper() *run.Kernel {
	if !r.Keep {
		return nil
	}
	return r.Kernel
}

// verifyAndKeep verifies the test's receipt tree under the fixture key and
// copies every receipt of the test's store to the kernel's store (keep), if
// any.
func verifyAndKeep(ctx context.Context, store *receipt.Store, keep *run.Kernel, rootID string, signer *receipt.Signer) []string {
	keys := receipt.NewKeySet(signer.PublicKey())
	rep := receipt.Verify(ctx, store, rootID, keys, receipt.Limits{})
	if rep.Status != receipt.StatusVerified {
		return []string{fmt.Sprintf("receipt tree %s did not verify: %s %v", rootID, rep.Status, rep.Problems)}
	}
	if keep == nil {
		return nil
	}
	if err := keep.KeepReceipts(store); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// RunIDPrefix begins the id of every run `runx test` keeps, and no other
// run's: a run's own id is run_ and lowercase base32, without an underscore.
const RunIDPrefix = "run_test_"

// IsTestRun reports whether runID is a run `runx test` kept.
func IsTestRun(runID string) bool { return strings.HasPrefix(runID, RunIDPrefix) }

// testRunID is deterministic, so a test's receipts reproduce byte for byte.
func testRunID(pkgName, testName string) string {
	sum := sha256.Sum256([]byte(pkgName + "\x00" + testName))
	return RunIDPrefix + hex.EncodeToString(sum[:10])
}

func sanitize(name string) string {
	out := []rune{}
	for _, r := range name {
		if r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return "test"
	}
	return string(out)
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// Find reads the tests target names: a test file (relative to cwd), or a
// package as `runx skill` finds one (packageDir: a path, a workspace skill,
// or a core skill, runx/<name>) and every tests/*.yaml in it, in name order.
// It opens no state, so `runx test` calls it before its kernel opens one.
func Find(cwd string, packageDir func(string) string, target string) (string, []*pkg.TestCase, error) {
	if strings.HasSuffix(target, ".yaml") || strings.HasSuffix(target, ".yml") {
		if !filepath.IsAbs(target) {
			target = filepath.Join(cwd, target)
		}
		tc, err := pkg.LoadTest(target)
		if err != nil {
			return "", nil, err
		}
		return filepath.Dir(filepath.Dir(target)), []*pkg.TestCase{tc}, nil
	}
	pkgDir := packageDir(target)
	cases, err := pkg.LoadTests(pkgDir)
	if err != nil {
		return "", nil, err
	}
	if len(cases) == 0 {
		return "", nil, contract.Errorf(errcode.TestsNotFound, "no tests under %s", filepath.Join(pkgDir, "tests"))
	}
	return pkgDir, cases, nil
}
