// Package authority is runx's pure authority algebra: what a run may change
// (effects), where its tools may go (reach), the limits it runs under, the
// approval floor that decides whether a change proceeds, waits on a person or
// is refused, and the standing approvals a person gives ahead of time.
//
// It owns:
//
//   - The authority document a host states with --run-authority
//     (runx.authority.v1): Parse, strict (unknown fields, wrong types and
//     duplicate keys refused, each with a stable code), and Digest over its
//     RFC 8785 canonical form. A nil *Authority means no host stated one; an
//     explicit {} is a stated, empty authority and stays so. An optional
//     "schema" member must name runx.authority.v1.
//   - The lattice: effects none < ask < allow, reach workspace < inputs.
//     Narrow takes the narrowest of the host, method, step and call layers;
//     Effective.Then narrows further (a turn's call under its agent step's),
//     and ForChild hands a step's authority to the child run it starts.
//     Limits narrow by minimum; ConcurrencyFor is the least of the step's,
//     the authority's and the host's.
//   - The approval floor: Floor decides one change (allow, gate, refuse)
//     and names the rule that decided it; RefuseCertain refuses a run under
//     effects none before any step runs, naming each step certain to change
//     something.
//   - Reach: CheckPath over cleaned absolute paths and IsSecretPath over
//     workspace-relative ones.
//
// Every refusal is an *Error with a stable snake_case code (the Code
// constants) and a message that names the rule that refused.
//
// Everything here is a function of its arguments: no I/O, no clock, no
// filesystem, no environment. Callers read files, resolve symlinks and read
// environment variables, then ask this package. It must not import os,
// net, kernel/run, kernel/host, plugins/... or anything else that performs
// I/O; imports_test.go enforces an allowlist.
package authority
