// Package verdict owns two packet formats and the one rule that reads them:
// runx.criteria.v1, a fixed set of checks whose revision is the digest of
// what it holds, and runx.verdict.v1, whether an exact subject meets such a
// set, answered check by check; Decide is the rule that turns a verdict
// into met, not_met or inconclusive for a reader who names the subject and
// the criteria set it expects, and refuses a verdict about anything else.
//
// It lives under sdk/ because three parties share it: the verdict plugin
// (verdict.criteria, verdict.decide), the kernel, which names the evaluator
// of every verdict a step returns, and any author whose own tool emits a
// verdict. It is pure: no I/O, no clock; it imports the standard library,
// sdk/canon and sdk/errcode only.
package verdict
