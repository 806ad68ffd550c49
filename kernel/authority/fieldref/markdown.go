package fieldref

import (
	"bytes"
	"fmt"
	"strings"
)

// intro opens docs/authority.md, before the table.
const intro = `# The authority document

What a run may do is stated by its host as an authority document
(` + "`runx.authority.v1`" + `): on the command line with ` + "`--run-authority '<json>'`" + `, as a
preset saved with ` + "`runx authority save <name> <file>`" + ` and named with
` + "`--authority <name>`" + `, in a test's ` + "`setup.authority`" + `, and, for
` + "`standing_approvals`" + `, in a resume document's person's lane. Every field is
optional, and a field left out narrows nothing: ` + "`{}`" + ` is a stated, empty
authority, which stays empty. A method or step in run.yaml can only narrow
what the host states, never widen it.

The document is read strictly: one JSON object, no duplicate keys, no field
this runx does not know (` + "`authority_unknown_field`" + `), every value of its
type and range (` + "`authority_invalid_type`" + `, ` + "`authority_invalid_value`" + `,
` + "`authority_missing_field`" + `, ` + "`authority_duplicate_entry`" + `). A refusal names the
field at fault and never quotes the document beyond field names.

` + "```json" + `
{
  "effects": "ask",
  "reach": "workspace",
  "max_fanout": 4,
  "max_spend_micro_usd": 2500000,
  "packages": ["acme/*", "project:*"],
  "standing_approvals": [
    {"edits": {"paths": ["notes"]}},
    {"commands": {"argv_prefix": ["go", "test"]}}
  ],
  "delegations": [
    {"connector": "store", "terms": [{"verbs": ["read"]}]}
  ]
}
` + "```" + `

Generated from kernel/authority/fieldref (go generate
./kernel/authority/fieldref); its test fails when the parser accepts a field
this table lacks, or the table names one the parser refuses.
`

// Markdown renders the reference as docs/authority.md.
func Markdown() []byte {
	var b bytes.Buffer
	b.WriteString(intro)
	b.WriteString("\n| field | type | left out | enforced by | meaning |\n|---|---|---|---|---|\n")
	for _, f := range Fields {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", f.Path, f.Type, f.Default, evidenceLink(f.Evidence), f.Meaning)
	}
	return b.Bytes()
}

// evidenceLink renders a scenario as a link to it, a test as its name and
// file.
func evidenceLink(e string) string {
	if file, test, ok := strings.Cut(e, " "); ok {
		return fmt.Sprintf("`%s` (%s)", test, file)
	}
	name := strings.TrimSuffix(e[strings.LastIndex(e, "/")+1:], ".txtar")
	return fmt.Sprintf("scenario [`%s`](../%s)", name, e)
}
