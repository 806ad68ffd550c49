package fs

// JSON Schemas of the change tools, served in Describe beside the read
// side's.

const digestSchema = `{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}`

const journalRefSchema = `{"type":"object","required":["id","path"],"properties":{"id":{"type":"string"},"path":{"type":"string"}}}`

const changedFileProperties = `"path":{"type":"string"},"op":{"enum":["create","write","delete"]},` +
	`"before_digest":` + digestSchema + `,"after_digest":` + digestSchema

const writeRequestSchema = `{"type":"object","required":["path","content"],"additionalProperties":false,"properties":{` +
	`"path":{"type":"string","minLength":1},` +
	`"content":{"type":"string","description":"The whole new content (at most 16 MiB)."},` +
	`"expected_digest":` + digestSchema + `,` +
	`"create":{"type":"boolean","description":"The file must not exist yet."}},` +
	`"not":{"required":["expected_digest","create"]}}`

const writeResponseSchema = `{"type":"object","required":["path","op","after_digest","journal"],"properties":{` +
	changedFileProperties + `,"journal":` + journalRefSchema + `}}`

const editRequestSchema = `{"type":"object","required":["path","edits"],"additionalProperties":false,"properties":{` +
	`"path":{"type":"string","minLength":1},` +
	`"edits":{"type":"array","minItems":1,"items":{"type":"object","required":["old","new"],"additionalProperties":false,"properties":{` +
	`"old":{"type":"string","minLength":1,"description":"Exact text that must occur once, or at least once with replace_all."},` +
	`"new":{"type":"string"},"replace_all":{"type":"boolean"}}}},` +
	`"expected_digest":` + digestSchema + `}}`

const editResponseSchema = `{"type":"object","required":["path","op","before_digest","after_digest","replacements","journal"],"properties":{` +
	changedFileProperties + `,"replacements":{"type":"array","items":{"type":"integer"}},"journal":` + journalRefSchema + `}}`

// bundleChangeSchema: a write carries content; a delete is {path,
// expected_digest}, optionally marked delete: true.
const bundleChangeSchema = `{"type":"object","required":["path"],"additionalProperties":false,"properties":{` +
	`"path":{"type":"string","minLength":1},"content":{"type":"string"},` +
	`"expected_digest":` + digestSchema + `,"create":{"type":"boolean"},"delete":{"type":"boolean"}},` +
	`"oneOf":[{"required":["content"],"properties":{"delete":{"const":false}}},` +
	`{"required":["expected_digest"],"not":{"anyOf":[{"required":["content"]},{"required":["create"]}]},"properties":{"delete":{"const":true}}}]}`

const bundleRequestSchema = `{"type":"object","required":["changes"],"additionalProperties":false,"properties":{` +
	`"changes":{"type":"array","minItems":1,"maxItems":1000,"items":` + bundleChangeSchema + `}}}`

const bundleResponseSchema = `{"type":"object","required":["files","journal"],"properties":{` +
	`"files":{"type":"array","items":{"type":"object","required":["path","op"],"properties":{` + changedFileProperties + `}}},` +
	`"journal":` + journalRefSchema + `}}`
