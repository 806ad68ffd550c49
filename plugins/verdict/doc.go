// Package verdict is the first-party plugin serving verdict.criteria and
// verdict.decide: pure computation over the formats and the rule of
// sdk/verdict. verdict.criteria makes a runx.criteria.v1 set from its
// checks; verdict.decide decides a runx.verdict.v1 for the subject and the
// criteria set the reader expects, and refuses, with no decision, a
// verdict about another subject or another set.
//
// Neither tool reads or changes anything (effect none), so a call is
// answered from its input alone. It imports the SDK only, never kernel
// packages.
package verdict
