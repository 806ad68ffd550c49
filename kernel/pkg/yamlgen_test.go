package pkg

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// yamlGen generates random values in the shared shape and writes them as
// YAML of the subset in randomly chosen styles (block and flow collections,
// compact lists, plain, quoted, multi-line and block scalars, comments and
// blank lines), so a parser's reading can be checked against the value the
// document was written from.
type yamlGen struct {
	rng *rand.Rand
	// block is set after a block scalar, whose content a following blank
	// or comment line would join.
	block bool
	// compact counts the lists being written at their key's indentation.
	compact int
}

func (g *yamlGen) pick(n int) int    { return g.rng.IntN(n) }
func (g *yamlGen) chance(p int) bool { return g.rng.IntN(100) < p }

var (
	genWords = []string{"alpha", "beta-gamma", "x.y", "path/to/file.mjs", "a:b", "x#y", "v1.2.3", "2001-12-14",
		"$input.name", "$$literal", "yes", "on", "café", "日本語", "snake_case", "with-dash", "Q&A", "50%", "a,b", "f(x)",
		"it's", "say \"hi\"", "tab\there", "1.2.3.4", "-dash-led", "?q", "0x", "e5", "1_000x", ".hidden", "~tilde", "=eq"}
	genFlowWords = []string{"alpha", "beta-gamma", "x.y", "path/to/file.mjs", "v1.2.3", "$input.name", "$$literal",
		"yes", "café", "snake_case", "x#y", "-dash-led", "e5", ".hidden", "=eq", "it's"}
	genKeys = []string{"id", "name", "tool", "inputs", "outputs", "x", "y", "long_key_name", "with-dash", "200", "1.5",
		"true", "k1", "k2", "k3", "$ref", "a.b", "_private", "é", "Key"}
)

func (g *yamlGen) value(depth int) any {
	if depth == 0 || (depth < 4 && g.chance(35)) {
		if depth == 0 || g.chance(55) {
			m := map[string]any{}
			for range g.pick(5) + boolInt(depth == 0) {
				m[g.key()] = g.value(depth + 1)
			}
			return m
		}
		l := make([]any, g.pick(5))
		for i := range l {
			l[i] = g.value(depth + 1)
		}
		return l
	}
	switch g.pick(9) {
	case 0:
		return nil
	case 1:
		return g.chance(50)
	case 2:
		return int64(g.rng.IntN(2_000_001) - 1_000_000)
	case 3:
		if g.chance(50) {
			return float64(g.rng.IntN(20001)-10000) / 8
		}
		return []float64{1000, 0.5, -2.5e-3, 1e21, 3.25}[g.pick(5)]
	case 4:
		return g.multiline()
	}
	return g.words()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (g *yamlGen) key() string {
	return genKeys[g.pick(len(genKeys))]
}

func (g *yamlGen) words() string {
	ws := make([]string, g.pick(4)+1)
	for i := range ws {
		ws[i] = genWords[g.pick(len(genWords))]
	}
	return strings.Join(ws, " ")
}

func (g *yamlGen) multiline() string {
	lines := make([]string, g.pick(4)+1)
	for i := range lines {
		if i > 0 && g.chance(20) {
			continue // an empty line
		}
		lines[i] = g.words()
		if i > 0 && g.chance(15) {
			lines[i] = "  " + lines[i] // more indented
		}
	}
	return strings.Join(lines, "\n") + strings.Repeat("\n", g.pick(3))
}

// document writes v (a mapping) as a block mapping at the top level.
func (g *yamlGen) document(v any) string {
	var b strings.Builder
	if g.chance(20) {
		b.WriteString("# generated\n")
	}
	if g.chance(10) {
		b.WriteString("---\n")
	}
	m := v.(map[string]any)
	if len(m) == 0 {
		b.WriteString("{}\n")
		return b.String()
	}
	g.blockMap(&b, m, 0)
	return b.String()
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (g *yamlGen) blockMap(b *strings.Builder, m map[string]any, indent int) {
	pad := strings.Repeat(" ", indent)
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b.WriteString(pad)
		}
		b.WriteString(g.keyText(k))
		b.WriteString(":")
		g.afterIndicator(b, m[k], indent, true)
		if i+1 < len(m) {
			g.between(b, indent)
		}
	}
}

func (g *yamlGen) blockSeq(b *strings.Builder, l []any, indent int) {
	pad := strings.Repeat(" ", indent)
	for i, v := range l {
		if i > 0 {
			b.WriteString(pad)
		}
		b.WriteString("-")
		g.afterIndicator(b, v, indent, false)
		if i+1 < len(l) {
			g.between(b, indent)
		}
	}
}

// between writes what may sit between two entries: blank lines and comments.
func (g *yamlGen) between(b *strings.Builder, indent int) {
	if g.block {
		g.block = false
		return
	}
	if g.chance(10) {
		b.WriteString("\n")
	}
	if g.chance(10) {
		fmt.Fprintf(b, "%s# a comment\n", strings.Repeat(" ", g.pick(indent+3)))
	}
}

// afterIndicator writes the value after "key:" or "-" and ends its lines.
// indent is the indentation of the mapping or list holding it.
func (g *yamlGen) afterIndicator(b *strings.Builder, v any, indent int, inMap bool) {
	comment := func() {
		if g.chance(10) {
			b.WriteString(" # note")
		}
		b.WriteString("\n")
	}
	switch v := v.(type) {
	case map[string]any:
		if len(v) > 0 && !g.chance(20) {
			if !inMap && g.chance(60) {
				b.WriteString(" ") // compact: - k: v
				g.blockMap(b, v, indent+2)
				return
			}
			comment()
			deeper := indent + 1 + g.pick(3)
			b.WriteString(strings.Repeat(" ", deeper))
			g.blockMap(b, v, deeper)
			return
		}
	case []any:
		if len(v) > 0 && !g.chance(20) {
			if !inMap && g.chance(50) {
				b.WriteString(" ") // compact: - - x
				g.blockSeq(b, v, indent+2)
				return
			}
			comment()
			deeper := indent + 1 + g.pick(3)
			if inMap && g.chance(40) {
				deeper = indent // a list at its key's indentation
				g.compact++
				defer func() { g.compact-- }()
			}
			b.WriteString(strings.Repeat(" ", deeper))
			g.blockSeq(b, v, deeper)
			return
		}
	case string:
		if strings.Contains(v, "\n") || g.chance(10) {
			g.blockScalar(b, v, indent)
			return
		}
		if g.chance(15) && !strings.HasPrefix(v, " ") {
			if plain, ok := g.plainText(v, false); ok {
				g.multilinePlain(b, plain, indent)
				comment()
				return
			}
		}
	case nil:
		// goccy nested the keys after an empty item of a list written at its
		// key's indentation into that item (TestYAMLParserDivergesFromGoccy),
		// so such items are written out.
		if g.chance(30) && (inMap || g.compact == 0) {
			comment()
			return
		}
	}
	b.WriteString(" ")
	b.WriteString(g.inline(v, indent, false))
	comment()
}

// multilinePlain writes a plain scalar folded over several lines.
func (g *yamlGen) multilinePlain(b *strings.Builder, text string, indent int) {
	words := strings.Split(text, " ")
	b.WriteString(" ")
	for i, w := range words {
		if i > 0 {
			if g.chance(40) {
				fmt.Fprintf(b, "\n%s", strings.Repeat(" ", indent+1+g.pick(3)))
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(w)
	}
}

// blockScalar writes s as a literal (or, when it folds back exactly, folded)
// block scalar with the chomping indicator that keeps its trailing breaks.
func (g *yamlGen) blockScalar(b *strings.Builder, s string, indent int) {
	body := strings.TrimRight(s, "\n")
	trailing := len(s) - len(body)
	chomp := "-"
	switch {
	case trailing == 1:
		chomp = ""
	case trailing > 1:
		chomp = "+"
	}
	lines := strings.Split(body, "\n")
	style := "|"
	if len(lines) == 1 && body != "" && !strings.HasPrefix(body, " ") && !strings.Contains(body, "\t") && g.chance(50) {
		style = ">" // one paragraph, written over several lines
	}
	pad := strings.Repeat(" ", indent+1+g.pick(3))
	header := style + chomp
	if body == "" || strings.HasPrefix(lines[0], " ") {
		header = style + strconv.Itoa(len(pad)-max(indent, 0)) + chomp
	}
	if g.chance(10) {
		header += " # block"
	}
	b.WriteString(" " + header + "\n")
	if style == ">" {
		words := strings.Split(body, " ")
		b.WriteString(pad)
		for i, w := range words {
			if i > 0 {
				if g.chance(40) && w != "" && words[i-1] != "" {
					b.WriteString("\n" + pad)
				} else {
					b.WriteString(" ")
				}
			}
			b.WriteString(w)
		}
		b.WriteString("\n")
	} else {
		for _, l := range lines {
			if l != "" {
				b.WriteString(pad + l)
			}
			b.WriteString("\n")
		}
	}
	for range trailing - 1 {
		b.WriteString("\n")
	}
	g.block = true
}

// inline writes a scalar or a flow collection on (mostly) one line.
func (g *yamlGen) inline(v any, indent int, flow bool) string {
	switch v := v.(type) {
	case nil:
		return []string{"null", "~", "Null", "NULL"}[g.pick(4)]
	case bool:
		t := strconv.FormatBool(v)
		if g.chance(30) {
			t = strings.ToUpper(t[:1]) + t[1:]
		}
		return t
	case int64:
		if v >= 0 && g.chance(10) {
			return "+" + strconv.FormatInt(v, 10)
		}
		return strconv.FormatInt(v, 10)
	case float64:
		t := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(t, ".e") {
			t += ".0"
		}
		return t
	case string:
		if plain, ok := g.plainText(v, flow); ok && g.chance(60) {
			return plain
		}
		if !strings.ContainsAny(v, "\n\t") && g.chance(40) {
			return "'" + strings.ReplaceAll(v, "'", "''") + "'"
		}
		return g.doubleQuoted(v, indent)
	case map[string]any:
		parts := make([]string, 0, len(v))
		for _, k := range sortedKeys(v) {
			parts = append(parts, g.flowKeyText(k)+": "+g.inline(v[k], indent, true))
		}
		return "{" + g.joinFlow(parts, indent) + "}"
	case []any:
		parts := make([]string, len(v))
		for i, item := range v {
			parts[i] = g.inline(item, indent, true)
		}
		return "[" + g.joinFlow(parts, indent) + "]"
	}
	panic(fmt.Sprintf("unexpected %T", v))
}

func (g *yamlGen) joinFlow(parts []string, indent int) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString(",")
			if g.chance(15) {
				fmt.Fprintf(&b, "\n%s", strings.Repeat(" ", indent+1+g.pick(3)))
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(p)
	}
	if len(parts) > 0 && g.chance(10) {
		b.WriteString(",")
	}
	return b.String()
}

// plainText reports whether s can be written unquoted and still read as
// this string.
func (g *yamlGen) plainText(s string, flow bool) (string, bool) {
	if s == "" || strings.ContainsAny(s, "\n\t") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || strings.Contains(s, "  ") {
		return "", false
	}
	for _, w := range strings.Split(s, " ") {
		words := genWords
		if flow {
			words = genFlowWords
		}
		found := false
		for _, known := range words {
			found = found || w == known
		}
		if !found || strings.HasPrefix(w, "-") || strings.HasPrefix(w, "?") || strings.HasPrefix(w, "'") || strings.HasPrefix(w, "\"") {
			return "", false
		}
	}
	if strings.HasPrefix(s, "~") && len(s) == 1 {
		return "", false
	}
	return s, true
}

func (g *yamlGen) doubleQuoted(s string, indent int) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r >= utf8.RuneSelf && g.chance(30):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		if next := i + utf8.RuneLen(r); next < len(s) && s[next] != ' ' && s[next] != '\t' && r != ' ' && g.chance(3) {
			// An escaped line break joins the lines with nothing between.
			fmt.Fprintf(&b, "\\\n%s", strings.Repeat(" ", indent+1+g.pick(3)))
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (g *yamlGen) keyText(k string) string {
	if g.chance(15) {
		return strconv.Quote(k)
	}
	return k
}

func (g *yamlGen) flowKeyText(k string) string {
	if g.chance(15) {
		return "'" + k + "'"
	}
	return k
}
