// Package fieldref is the reference of every field kernel/authority's
// parser accepts in an authority document (runx.authority.v1: what
// --run-authority states, what runx authority save keeps, what a test's
// setup.authority and a resume document's standing_approvals carry): for
// each, its type, what leaving it out means, what enforces it, and what it
// does.
//
// TestEveryFieldIsListed derives the accepted set from the parser itself,
// by asking it, at every object of the document, which fields it knows;
// docs/authority.md is generated from the table (go generate
// ./kernel/authority/fieldref).
package fieldref

//go:generate go run ./gen ../../../docs/authority.md

// Field is one accepted field.
type Field struct {
	// Path is where the field sits: top-level fields by name, members of a
	// list's items after "[].", members of an object after ".".
	Path string
	// Type is what the value must be.
	Type string
	// Default is what leaving the field out means.
	Default string
	// Evidence is what enforces the field: a scenario
	// (cmd/runx/testdata/script/<name>.txtar) or "<file> <TestName>", a test
	// that shows its effect or its refusals.
	Evidence string
	// Meaning says in a line what the field does.
	Meaning string
}

// Fields lists every accepted field, in the order the reference shows them.
var Fields = []Field{
	{Path: "schema", Type: "`runx.authority.v1`", Default: "none",
		Evidence: "kernel/authority/document_test.go TestParseRefusals",
		Meaning:  "names the format; any other value is refused (`authority_invalid_value`); it takes no part in the authority's digest"},
	{Path: "effects", Type: "`none` \\| `ask` \\| `allow`", Default: "unstated: narrows nothing (a run no host states one for takes `allow`)",
		Evidence: "cmd/runx/testdata/script/authority.txtar",
		Meaning:  "what the run may change: `none` refuses every change at any depth, `ask` holds each change with no approval of its own for a person, `allow` holds none; a method or step can only narrow it"},
	{Path: "reach", Type: "`workspace` \\| `inputs`", Default: "unstated: narrows nothing (a run no host states one for takes `inputs`)",
		Evidence: "cmd/runx/testdata/script/reach_paths.txtar",
		Meaning:  "where native tools may go: `workspace` keeps them inside the workspace, out of .git, .runx and secrets; `inputs` reaches the roots the run's inputs name"},
	{Path: "max_concurrency", Type: "integer ≥ 1", Default: "the host ceiling (`RUNX_MAX_CONCURRENCY`, else 16)",
		Evidence: "kernel/authority/limits_test.go TestConcurrencyFor",
		Meaning:  "the most calls the run, its steps and child runs included, may have executing at once; narrowed to the host ceiling"},
	{Path: "max_fanout", Type: "integer ≥ 0", Default: "no bound",
		Evidence: "cmd/runx/testdata/script/authority_limits.txtar",
		Meaning:  "the most child runs one turn or step may start; a skill call past it is refused before it starts"},
	{Path: "max_child_depth", Type: "integer ≥ 0", Default: "no bound",
		Evidence: "cmd/runx/testdata/script/authority_limits.txtar",
		Meaning:  "how deep child runs may nest (the root is depth 0); a skill call that would nest deeper is refused"},
	{Path: "max_spend_micro_usd", Type: "integer ≥ 0 (1 = $0.000001)", Default: "no bound",
		Evidence: "cmd/runx/testdata/script/runx_test_http.txtar",
		Meaning:  "the most the run may spend on priced calls; a call whose quote would pass it, or whose price is unknown, is refused (`--max-spend` narrows it)"},
	{Path: "packages", Type: "list of `<publisher>/<name>` or `project:<name>` (`*` one whole segment)", Default: "unstated: every package",
		Evidence: "cmd/runx/testdata/script/authority_limits.txtar",
		Meaning:  "the packages every connector call's chain must be covered by; a call from a skill the list does not cover is refused before anything is sent, and an empty list covers nothing"},
	{Path: "standing_approvals", Type: "list of entries, each exactly one form", Default: "none",
		Evidence: "kernel/authority/document_test.go TestParseStandingApprovals",
		Meaning:  "a person's bounded confirmation: a change an entry covers runs without pausing, and its record and receipt name the entry; never covers a write's own approval"},
	{Path: "standing_approvals[].edits", Type: "object", Default: "—",
		Evidence: "cmd/runx/thirdparty_write_test.go TestThirdPartyWriteIsGovernedLikeTheFileTools",
		Meaning:  "covers changes to files under its paths"},
	{Path: "standing_approvals[].edits.paths", Type: "non-empty list of workspace-relative paths", Default: "required",
		Evidence: "cmd/runx/thirdparty_write_test.go TestThirdPartyWriteIsGovernedLikeTheFileTools",
		Meaning:  "the paths, matched by whole components; `\"\"` is the whole workspace"},
	{Path: "standing_approvals[].commands", Type: "object", Default: "—",
		Evidence: "cmd/runx/testdata/script/command_execute.txtar",
		Meaning:  "covers a command whose argv begins with its prefix"},
	{Path: "standing_approvals[].commands.argv_prefix", Type: "non-empty list of strings", Default: "required",
		Evidence: "cmd/runx/testdata/script/command_execute.txtar",
		Meaning:  "the exact leading argv tokens; argv has no shell, so a prefix admits nothing beyond it"},
	{Path: "standing_approvals[].operations", Type: "object", Default: "—",
		Evidence: "kernel/authority/floor_test.go TestFloorTable",
		Meaning:  "covers writes by the connector operations it names"},
	{Path: "standing_approvals[].operations.names", Type: "non-empty list of `<connector>/<operation>` or `<connector>/*`", Default: "required",
		Evidence: "kernel/authority/floor_test.go TestFloorTable",
		Meaning:  "the operations: one by name, or every operation of exactly one connector"},
	{Path: "standing_approvals[].local", Type: "`true`", Default: "—",
		Evidence: "kernel/authority/floor_test.go TestFloorTable",
		Meaning:  "covers every local effect the floor holds; `false` is refused (leave the entry out to approve nothing)"},
	{Path: "delegations", Type: "list, at most one per connector", Default: "none",
		Evidence: "cmd/runx/testdata/script/authority_limits.txtar",
		Meaning:  "terms under which the run may call a connector instance; a call on it is admitted under the first term that covers it, and refused when none does"},
	{Path: "delegations[].connector", Type: "connector name", Default: "required",
		Evidence: "cmd/runx/testdata/script/authority_limits.txtar",
		Meaning:  "the connector; the root's admission resolves it to the instance that stands for it, and the run keeps that instance"},
	{Path: "delegations[].terms", Type: "non-empty list", Default: "required",
		Evidence: "cmd/runx/testdata/script/authority_limits.txtar",
		Meaning:  "the terms, each narrowing a term of the link before it; one that would widen it refuses every call on the instance"},
	{Path: "delegations[].terms[].verbs", Type: "non-empty list of `read`, `write`", Default: "required",
		Evidence: "cmd/runx/testdata/script/authority_limits.txtar",
		Meaning:  "what the term lets a call do; a verb the connector offers no operation of widens its capability, and the run is refused before it starts (`delegation_widens`)"},
	{Path: "delegations[].terms[].bounds", Type: "object (the connector's own bounds)", Default: "no bounds",
		Evidence: "cmd/runx/testdata/script/private_connector.txtar",
		Meaning:  "how far the term reaches, in the connector's own terms, kept as canonical JSON: on the private connector `{\"streams\": [...]}`, the `said:`/`observed:` streams it covers (docs/private.md); bounds on a connector that declares none are refused (`authority_unsupported`)"},
	{Path: "delegations[].terms[].packages", Type: "list of `<publisher>/<name>` or `project:<name>` (`*` one whole segment)", Default: "the packages the link before it covers",
		Evidence: "cmd/runx/testdata/script/private_connector.txtar",
		Meaning:  "the packages a call under the term may come from, as the authority's `packages` field; a list wider than the link before it widens the term, which refuses every call on the instance"},
	{Path: "delegations[].principal_ref", Type: "non-empty string", Default: "none (a plain narrowing names nobody)",
		Evidence: "kernel/authority/actor_test.go TestActorRef",
		Meaning:  "the actor the host delegates to; needs `mandate_ref`, and where the document states `actor_ref` it must name the same actor"},
	{Path: "delegations[].mandate_ref", Type: "non-empty string", Default: "none; required with `principal_ref`",
		Evidence: "kernel/authority/actor_test.go TestActorRef",
		Meaning:  "the operator's mandate the delegation is made under, which each call's receipt cites"},
	{Path: "actor_ref", Type: "string", Default: "the person operating the project",
		Evidence: "cmd/runx/processactor_test.go TestProcessesBelongToTheirActor",
		Meaning:  "whose run this is, when a host runs it for an actor other than the operator; the processes it starts belong to that actor"},
}
