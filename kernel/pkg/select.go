package pkg

import (
	"strings"

	"github.com/runxhq/runx/sdk/errcode"
)

// SplitRef splits "path#method" at its last '#'. A ref without '#' names no
// method. `runx skill <ref> <method>` means the same as "<ref>#<method>"; the
// CLI passes that second positional to SelectMethod directly.
func SplitRef(ref string) (path, method string) {
	i := strings.LastIndexByte(ref, '#')
	if i < 0 {
		return ref, ""
	}
	return ref[:i], ref[i+1:]
}

// SelectMethod picks the method a run uses: the one named (from ref#method or
// a second positional), else default_method, else the package's only method.
// A package with several methods and no default must be told which.
func (p *Package) SelectMethod(name string) (*Method, error) {
	if name != "" {
		if m := p.Method(name); m != nil {
			return m, nil
		}
		return nil, refuse(errcode.MethodNotFound, "package %q has no method %q; its methods are %s",
			p.Name, name, strings.Join(p.MethodNames(), ", "))
	}
	if p.DefaultMethod != "" {
		if m := p.Method(p.DefaultMethod); m != nil {
			return m, nil
		}
		return nil, refuse(errcode.MethodNotFound, "package %q names default_method %q, which it does not declare", p.Name, p.DefaultMethod)
	}
	if len(p.Methods) == 1 {
		return p.Methods[0], nil
	}
	return nil, refuse(errcode.MethodAmbiguous, "package %q has several methods and no default_method; name one as <ref>#<method>: %s",
		p.Name, strings.Join(p.MethodNames(), ", "))
}
