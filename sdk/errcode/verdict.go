package errcode

// Verdicts: Criteria sets (runx.criteria.v1), verdicts (runx.verdict.v1) and deciding a verdict.
const (
	// CriteriaInvalid: A criteria set is malformed (no checks, a repeated or badly formed check id, no
	// required check, over a bound), or its revision is not the digest of what it holds.
	// Do: Make the set with verdict.criteria and pass it unchanged.
	CriteriaInvalid Code = "criteria_invalid"

	// EvaluatorMismatch: A step returned a verdict naming another evaluator than the step that
	// returned it; runx names a verdict's evaluator itself.
	// Do: Leave the verdict's evaluator out: runx fills it.
	EvaluatorMismatch Code = "evaluator_mismatch"

	// VerdictCriteriaMismatch: The verdict answers another criteria set than the one the reader
	// expects (another revision, or a check the set does not hold); a refused verdict answers nothing.
	// Do: Decide the verdict against the set it answers, or have the subject evaluated against yours.
	VerdictCriteriaMismatch Code = "verdict_criteria_mismatch"

	// VerdictInvalid: A verdict is not a well-formed runx.verdict.v1 (its schema, subject, criteria
	// revision, a repeated check or an unknown status).
	// Do: Fix the evaluator that produced it.
	VerdictInvalid Code = "verdict_invalid"

	// VerdictSubjectMismatch: The verdict judges another subject than the one the reader expects; a
	// refused verdict answers nothing.
	// Do: Decide the verdict against the subject it judges, or have your subject evaluated.
	VerdictSubjectMismatch Code = "verdict_subject_mismatch"
)
