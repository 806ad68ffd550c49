// Package pkg loads and validates runx skill packages. It is pure parsing and
// validation: it reads a package's files and answers with typed values or
// typed refusals, and never runs a step, starts a plugin or reaches a network.
//
// It owns:
//
//   - Load: SKILL.md (front matter with name and description, then the
//     manual) and run.yaml under runx's strict YAML subset (no anchors,
//     aliases, merge keys, tags, multiple documents, duplicate keys or
//     unknown fields, each refused with file:line:column), read by the
//     goccy/go-yaml parser (yamlread.go), minimum_runx read first (its
//     precedence by kernel/pkg/semver), and the package digest that binds
//     a run to its exact files. A PlanCache (LoadOptions.Cache) keeps
//     run.yaml's parsed document by package digest, in memory and
//     HMAC-sealed on disk (plancache.go).
//     A package without run.yaml has one method, ImplicitMethodName
//     ("default"), whose one step, ImplicitStepID ("agent"), is an agent
//     turn with the manual as its task.
//   - The typed model of methods and steps (docs/architecture.md, "A
//     package"), every reference checked against what the step can see.
//   - Method selection (SelectMethod, SplitRef) and input binding
//     (BindInputs): -i, --input-json and --inputs as docs/cli.md specifies.
//   - Inline `schema:` of inputs and outputs, checked by runx's own
//     validator for a subset of JSON Schema 2020-12 (kernel/pkg/schema); a
//     keyword outside it is refused at load, never ignored.
//   - tests/*.yaml (LoadTests, LoadTest), in the format of the runx reference.
//
// Every refusal is an *Error with a stable snake_case code (the Code
// constants); any other error is I/O failure or a bug.
//
// It must not import kernel/run, kernel/host, kernel/testrun, plugins/... or
// sdk/proto: packages are data, and deciding what runs, how, and under which
// authority belongs to the layers above, which import this one. Its parts
// below it (kernel/pkg/schema, jsonvalue, semver) hold to the same rule and
// never import it back (boundary_test.go).
package pkg
