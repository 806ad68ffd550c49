package pkg

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// TestsDir is where a package keeps its tests.
const TestsDir = "tests"

// LoadTests reads every tests/*.yaml of the package at pkgDir, in name
// order. A package without tests/ has none.
func LoadTests(pkgDir string) ([]*TestCase, error) {
	dir := filepath.Join(pkgDir, TestsDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".yaml") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	tests := make([]*TestCase, 0, len(names))
	for _, name := range names {
		tc, err := LoadTest(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		tests = append(tests, tc)
	}
	return tests, nil
}

// LoadTest reads one test file under the same strict YAML subset as run.yaml.
func LoadTest(path string) (*TestCase, error) {
	src, err := readPackageFile(path)
	if err != nil {
		return nil, err
	}
	if src == nil {
		return nil, refuse(errcode.PackageNotFound, "no test at %s", path)
	}
	root, err := parseStrict(path, src, 0)
	if err != nil {
		return nil, err
	}
	if root.isNull() {
		return nil, refuseAt(path, Position{Line: 1, Column: 1}, errcode.TestInvalid, "the test is empty; it needs at least expect.status")
	}
	d := decoder{file: path, code: errcode.TestInvalid}
	f, err := d.object(root, "the test", "name", "method", "package", "inputs", "setup", "host", "providers", "expect")
	if err != nil {
		return nil, err
	}
	tc := &TestCase{Path: path, Name: strings.TrimSuffix(filepath.Base(path), ".yaml")}
	if e := f.get("name"); e != nil {
		if tc.Name, err = d.nonEmpty(f, "name", "name"); err != nil {
			return nil, err
		}
	}
	if tc.Method, err = d.nonEmpty(f, "method", "method"); err != nil {
		return nil, err
	}
	if e := f.get("package"); e != nil {
		if tc.Package, err = d.str(e, "package"); err != nil {
			return nil, err
		}
		if !isPackageRelative(tc.Package) || !strings.HasPrefix(tc.Package, "fixtures/") {
			return nil, d.fail(e.value.pos, "package must be fixtures/<dir>, a fixture package inside this one")
		}
	}
	if e := f.get("inputs"); e != nil {
		if tc.Inputs, err = d.rawMap(e, "inputs"); err != nil {
			return nil, err
		}
	}
	if e := f.get("setup"); e != nil {
		if tc.Setup, err = decodeTestSetup(d, e); err != nil {
			return nil, err
		}
	}
	if e := f.get("host"); e != nil {
		if tc.Host, err = decodeTestHost(d, e); err != nil {
			return nil, err
		}
	}
	if e := f.get("providers"); e != nil {
		if tc.Providers, err = decodeTestProviders(d, e); err != nil {
			return nil, err
		}
	}
	e := f.get("expect")
	if e == nil {
		return nil, d.fail(root.pos, "the test needs expect, with at least status")
	}
	if tc.Expect, err = decodeExpectation(d, e); err != nil {
		return nil, err
	}
	if counts := tc.Expect.HTTPRequestCounts; counts != nil {
		declared := 0
		if tc.Providers != nil {
			declared = len(tc.Providers.HTTP)
		}
		if len(counts) != declared {
			return nil, d.fail(e.value.pos, "expect http_request_counts lists %d counts for %d declared providers.http exchanges; give one per exchange, in declaration order", len(counts), declared)
		}
	}
	return tc, nil
}

func decodeTestSetup(d decoder, e *entry) (*TestSetup, error) {
	f, err := d.object(e.value, "setup", "receipts", "authority", "credentials")
	if err != nil {
		return nil, err
	}
	s := &TestSetup{}
	if re := f.get("receipts"); re != nil {
		if s.Receipts, err = d.strList(re, "setup receipts"); err != nil {
			return nil, err
		}
		for i, p := range s.Receipts {
			if !isPackageRelative(p) || !strings.HasSuffix(p, ".json") {
				return nil, d.fail(re.value.items[i].pos, "setup receipts: %q must be a normalized package-relative .json path", p)
			}
		}
	}
	if ae := f.get("authority"); ae != nil {
		if s.Authority, err = d.rawMap(ae, "setup authority"); err != nil {
			return nil, err
		}
	}
	if ce := f.get("credentials"); ce != nil {
		if s.Credentials, err = d.stringMap(ce, "setup credentials"); err != nil {
			return nil, err
		}
		for i := range ce.value.entries {
			ve := &ce.value.entries[i]
			if !isEnvName(ve.key) {
				return nil, d.fail(ve.keyPos, "setup credentials: %q is not an environment variable name; name the variable a connector's credential declares", ve.key)
			}
			if s.Credentials[ve.key] == "" {
				return nil, d.fail(ve.value.position(), "setup credentials: %s is empty", ve.key)
			}
		}
	}
	return s, nil
}

func decodeTestHost(d decoder, e *entry) (*TestHost, error) {
	f, err := d.object(e.value, "host", "act", "answers", "approvals", "turns")
	if err != nil {
		return nil, err
	}
	h := &TestHost{}
	if h.Act, err = d.text(f, "act", "host act"); err != nil {
		return nil, err
	}
	if ae := f.get("answers"); ae != nil {
		if h.Answers, err = d.rawMap(ae, "host answers"); err != nil {
			return nil, err
		}
	}
	if ae := f.get("approvals"); ae != nil {
		if ae.value.kind != mapNode {
			return nil, d.fail(ae.value.pos, "host approvals must map request addresses to true or false")
		}
		h.Approvals = make(map[string]bool, len(ae.value.entries))
		for i := range ae.value.entries {
			ve := &ae.value.entries[i]
			if h.Approvals[ve.key], err = d.boolean(ve, fmt.Sprintf("host approvals %q", ve.key)); err != nil {
				return nil, err
			}
		}
	}
	if te := f.get("turns"); te != nil {
		if te.value.kind != mapNode {
			return nil, d.fail(te.value.pos, "host turns must map step ids or addresses to turns")
		}
		h.Turns = make(map[string]*TestTurn, len(te.value.entries))
		for i := range te.value.entries {
			ve := &te.value.entries[i]
			// A turn is answered or worked, never both: two scripts for one
			// turn would leave the test meaning either.
			if _, both := h.Answers[ve.key]; both {
				return nil, d.fail(ve.keyPos, "host turn %q is also answered in host answers; a turn is answered or worked, not both", ve.key)
			}
			if h.Turns[ve.key], err = decodeTestTurn(d, ve); err != nil {
				return nil, err
			}
		}
	}
	return h, nil
}

func decodeTestTurn(d decoder, e *entry) (*TestTurn, error) {
	label := fmt.Sprintf("host turn %q", e.key)
	f, err := d.object(e.value, label, "calls", "output")
	if err != nil {
		return nil, err
	}
	t := &TestTurn{}
	oe := f.get("output")
	if oe == nil {
		return nil, d.fail(e.value.pos, "%s needs the output it ends with", label)
	}
	t.Output = oe.value.toValue()
	if ce := f.get("calls"); ce != nil {
		if ce.value.kind != seqNode {
			return nil, d.fail(ce.value.pos, "%s calls must be a list", label)
		}
		for i, cn := range ce.value.items {
			callLabel := fmt.Sprintf("%s call %d", label, i+1)
			cf, err := d.object(cn, callLabel, "tool", "input", "expect")
			if err != nil {
				return nil, err
			}
			c := &TestTurnCall{}
			if c.Tool, err = d.nonEmpty(cf, "tool", callLabel+" tool"); err != nil {
				return nil, err
			}
			if c.Tool == "" {
				return nil, d.fail(cn.pos, "%s needs the tool it calls", callLabel)
			}
			if ie := cf.get("input"); ie != nil {
				c.Input = ie.value.toValue()
			}
			if xe := cf.get("expect"); xe != nil {
				if c.Expect, err = decodeOutputExpectation(d, xe, callLabel+" expect"); err != nil {
					return nil, err
				}
			}
			t.Calls = append(t.Calls, c)
		}
	}
	return t, nil
}
