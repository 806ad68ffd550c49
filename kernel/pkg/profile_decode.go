package pkg

import (
	"strconv"

	"github.com/runxhq/runx/kernel/pkg/semver"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// profile is what run.yaml declares.
type profile struct {
	minimumRunx    string
	minimumRunxPos Position
	defaultMethod  string
	methods        []*Method
	pins           map[string]string
}

// decodeProfile reads run.yaml.
func decodeProfile(file string, src []byte, pkgName string, runx semver.Version, runxText string) (*profile, error) {
	root, err := readProfile(file, src, pkgName, runx, runxText)
	if err != nil {
		return nil, err
	}
	return decodeProfileRoot(file, root, pkgName, runx, runxText)
}

// readProfile parses run.yaml under the strict subset. minimum_runx is read
// before anything else, twice over: from the raw text first, so a package
// written for a newer runx is refused by version even when this runx cannot
// parse it, and again from the parsed document before the subset is
// enforced, for the forms a line scan cannot see.
func readProfile(file string, src []byte, pkgName string, runx semver.Version, runxText string) (*node, error) {
	if v, pos, ok := scanMinimumRunx(src); ok {
		if err := checkMinimumRunx(file, pkgName, v, pos, runx, runxText); err != nil {
			return nil, err
		}
	}
	doc, err := parseYAML(file, src, 0)
	if err != nil {
		return nil, err
	}
	if v, pos, ok := doc.peekString("minimum_runx"); ok {
		if err := checkMinimumRunx(file, pkgName, v, pos, runx, runxText); err != nil {
			return nil, err
		}
	}
	return doc.body()
}

// decodeProfileRoot turns run.yaml's document into the typed model, every
// check included.
func decodeProfileRoot(file string, root *node, pkgName string, runx semver.Version, runxText string) (*profile, error) {
	var err error
	if root.isNull() {
		return nil, refuseAt(file, Position{Line: 1, Column: 1}, errcode.MinimumRunxMissing, "run.yaml is empty; it must declare minimum_runx and methods")
	}
	d := decoder{file: file, code: errcode.RunxYAMLInvalid}
	top, err := d.object(root, "run.yaml", "minimum_runx", "default_method", "methods", "connectors")
	if err != nil {
		return nil, err
	}
	p := &profile{}
	me := top.get("minimum_runx")
	if me == nil {
		return nil, refuseAt(file, root.pos, errcode.MinimumRunxMissing,
			"run.yaml must declare minimum_runx: the oldest runx that reads this package (this is runx %s)", runxText)
	}
	if p.minimumRunx, err = d.with(errcode.MinimumRunxInvalid).str(me, "minimum_runx"); err != nil {
		return nil, err
	}
	if err := checkMinimumRunx(file, pkgName, p.minimumRunx, me.value.pos, runx, runxText); err != nil {
		return nil, err
	}
	p.minimumRunxPos = me.value.pos
	if p.methods, err = decodeMethods(d, top.get("methods"), root.pos); err != nil {
		return nil, err
	}
	if ce := top.get("connectors"); ce != nil {
		if p.pins, err = decodePins(d, ce); err != nil {
			return nil, err
		}
	}
	if de := top.get("default_method"); de != nil {
		if p.defaultMethod, err = d.with(errcode.MethodInvalid).str(de, "default_method"); err != nil {
			return nil, err
		}
		if !hasMethod(p.methods, p.defaultMethod) {
			return nil, refuseAt(file, de.value.pos, errcode.MethodNotFound, "default_method %q names no method of this package", p.defaultMethod)
		}
	}
	return p, nil
}

func decodeMethods(d decoder, e *entry, at Position) ([]*Method, error) {
	if e == nil || e.value.kind != mapNode || len(e.value.entries) == 0 {
		if e != nil {
			at = e.value.pos
		}
		return nil, refuseAt(d.file, at, errcode.MethodInvalid, "run.yaml must declare methods: a mapping of method names to methods")
	}
	several := len(e.value.entries) > 1
	methods := make([]*Method, 0, len(e.value.entries))
	for i := range e.value.entries {
		me := &e.value.entries[i]
		if !isName(me.key) {
			return nil, refuseAt(d.file, me.keyPos, errcode.MethodInvalid,
				"method name %q must start with a letter or _ and hold only letters, digits, _ and -", me.key)
		}
		m, err := decodeMethod(d, me.key, me.value)
		if err != nil {
			return nil, err
		}
		// A model chooses among several methods by their descriptions, so
		// each must have its own; only a sole method borrows the package's.
		if several && m.Description == "" {
			return nil, refuseAt(d.file, me.keyPos, errcode.MethodDescriptionMissing,
				"method %q has no description; in a package with several methods each says what it does and when to use it", me.key)
		}
		methods = append(methods, m)
	}
	return methods, nil
}

func hasMethod(methods []*Method, name string) bool {
	for _, m := range methods {
		if m.Name == name {
			return true
		}
	}
	return false
}

// decodePins reads run.yaml's connectors: the manifest digest each
// connector outside the package that its steps call is pinned to.
func decodePins(d decoder, e *entry) (map[string]string, error) {
	if e.value.kind != mapNode {
		return nil, d.fail(e.value.position(), "run.yaml connectors must be a mapping of connector names to pins, not %s", e.value.describe())
	}
	pins := make(map[string]string, len(e.value.entries))
	for i := range e.value.entries {
		ce := &e.value.entries[i]
		f, err := d.object(ce.value, "run.yaml connectors "+strconv.Quote(ce.key), "manifest_digest")
		if err != nil {
			return nil, err
		}
		me := f.get("manifest_digest")
		if me == nil {
			return nil, d.fail(ce.value.position(), "run.yaml connectors %s must pin manifest_digest", ce.key)
		}
		digest, err := d.str(me, "run.yaml connectors "+ce.key+" manifest_digest")
		if err != nil {
			return nil, err
		}
		if !canon.ValidDigest(digest) {
			return nil, d.fail(me.value.position(), "run.yaml connectors %s manifest_digest %q is not sha256:<64 hex>", ce.key, digest)
		}
		pins[ce.key] = digest
	}
	return pins, nil
}
