package mcp

import (
	"strings"

	"github.com/runxhq/runx/kernel/pkg"
)

// InputSchema is a method's declared inputs as a tool's JSON Schema: each
// input's type, description, default and own schema, the required ones
// (those without a default) listed, and nothing undeclared admitted.
func InputSchema(m *pkg.Method) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, in := range m.Inputs {
		p := map[string]any{}
		for k, v := range in.Schema {
			p[k] = v
		}
		if _, typed := p["type"]; !typed && in.Type != pkg.TypeJSON && in.Type != "" {
			p["type"] = in.Type
		}
		if in.Description != "" {
			p["description"] = in.Description
		}
		if in.HasDefault {
			p["default"] = in.Default
		}
		props[in.Name] = p
		if in.Required && !in.HasDefault {
			required = append(required, in.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// description is a method's description followed by the first paragraph of
// its package's manual (headings skipped), which says when to use it.
func description(p *pkg.Package, m *pkg.Method) string {
	d := strings.TrimSpace(m.Description)
	if d == "" {
		d = strings.TrimSpace(p.Description)
	}
	if para := firstParagraph(p.Manual); para != "" && para != d {
		d += "\n\n" + para
	}
	return d
}

func firstParagraph(manual string) string {
	for _, block := range strings.Split(strings.ReplaceAll(manual, "\r\n", "\n"), "\n\n") {
		block = strings.TrimSpace(block)
		if block == "" || strings.HasPrefix(block, "#") || strings.HasPrefix(block, "---") {
			continue
		}
		return strings.Join(strings.Fields(block), " ")
	}
	return ""
}
