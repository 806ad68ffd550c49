package verdict

// JSON Schemas of the formats, for the verdict plugin's Describe answer and
// the kernel's packet registry: one owner, so the two cannot drift. They
// describe the shape; ParseCriteria and ParseVerdict are the full check
// (a revision that is the digest of what the set holds, no repeated check).

const digestSchema = `{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}`

const checkIDSchema = `{"type":"string","pattern":"^[a-z0-9][a-z0-9_.-]{0,63}$"}`

// CriteriaJSONSchema is runx.criteria.v1.
const CriteriaJSONSchema = `{"type":"object","additionalProperties":false,"required":["schema","checks","revision"],"properties":{` +
	`"schema":{"const":"` + CriteriaSchema + `"},` +
	`"checks":{"type":"array","minItems":1,"maxItems":256,"items":{"type":"object","additionalProperties":false,"required":["id","required"],"properties":{` +
	`"id":` + checkIDSchema + `,"description":{"type":"string","maxLength":1024},"required":{"type":"boolean"}}}},` +
	`"revision":` + digestSchema + `}}`

// evaluatorSchema is a verdict's evaluator.
const evaluatorSchema = `{"type":"object","additionalProperties":false,"required":["package","method","run"],"properties":{` +
	`"package":{"type":"string","minLength":1},"method":{"type":"string","minLength":1},"run":{"type":"string","minLength":1}}}`

// VerdictJSONSchema is runx.verdict.v1.
const VerdictJSONSchema = `{"type":"object","additionalProperties":false,"required":["schema","subject","criteria","checks"],"properties":{` +
	`"schema":{"const":"` + VerdictSchema + `"},"subject":` + digestSchema + `,"criteria":` + digestSchema + `,` +
	`"checks":{"type":"array","maxItems":256,"items":{"type":"object","additionalProperties":false,"required":["id","status"],"properties":{` +
	`"id":` + checkIDSchema + `,"status":{"enum":["met","not_met","inconclusive"]},"reason":{"type":"string","maxLength":4096}}}},` +
	`"evaluator":` + evaluatorSchema + `}}`

// DecisionJSONSchema is what verdict.decide answers.
const DecisionJSONSchema = `{"type":"object","required":["decision","subject","criteria","checks"],"properties":{` +
	`"decision":{"enum":["met","not_met","inconclusive"]},"subject":` + digestSchema + `,"criteria":` + digestSchema + `,` +
	`"checks":{"type":"array","items":{"type":"object","required":["id","required","status"],"properties":{` +
	`"id":{"type":"string"},"required":{"type":"boolean"},"status":{"enum":["met","not_met","inconclusive","unanswered"]},"reason":{"type":"string"}}}},` +
	`"evaluator":` + evaluatorSchema + `}}`
