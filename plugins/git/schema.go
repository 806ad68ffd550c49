package git

// JSON Schemas of the git tools' inputs and outputs, served in Describe.

const fileChangeSchema = `{"type":"object","required":["status","path"],"properties":{` +
	`"status":{"type":"string"},"path":{"type":"string"},"old_path":{"type":"string"},"similarity":{"type":"integer"}}}`

const omittedSchema = `{"type":"array","items":{"type":"object","required":["path","pattern"],"properties":{` +
	`"path":{"type":"string"},"pattern":{"type":"string"}}}}`

const commitSchema = `{"type":"object","required":["hash","parents","author","date","subject","files"],"properties":{` +
	`"hash":{"type":"string"},"parents":{"type":"array","items":{"type":"string"}},` +
	`"author":{"type":"string"},"author_email":{"type":"string"},"date":{"type":"string"},` +
	`"committer":{"type":"string"},"committer_date":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"},` +
	`"files":{"type":"array","items":` + fileChangeSchema + `},"files_truncated":{"type":"boolean"},` +
	`"omitted_secrets":` + omittedSchema + `}}`

const pathProperty = `"path":{"type":"string","description":"A path inside the reach: picks the repository and limits the answer to it (default the workspace root)."}`

const maxBytesProperty = `"max_bytes":{"type":"integer","minimum":1,"maximum":4194304,"description":"Patch bound (default 1 MiB); a file at a revision larger than this is refused."}`

const logRequestSchema = `{"type":"object","additionalProperties":false,"properties":{` + pathProperty + `,` +
	`"rev":{"type":"string","description":"A revision or a range A..B or A...B (default HEAD)."},` +
	`"max_count":{"type":"integer","minimum":1,"maximum":200,"description":"Default 20."}}}`

const logResponseSchema = `{"type":"object","required":["repository","rev","commits","count","truncated"],"properties":{` +
	`"repository":{"type":"string"},"path":{"type":"string"},"rev":{"type":"string"},` +
	`"commits":{"type":"array","items":` + commitSchema + `},"count":{"type":"integer"},"truncated":{"type":"boolean"}}}`

const showRequestSchema = `{"type":"object","required":["rev"],"additionalProperties":false,"properties":{` +
	`"rev":{"type":"string","minLength":1},` + pathProperty + `,` + maxBytesProperty + `}}`

const showResponseSchema = `{"type":"object","required":["repository","rev","hash","truncated"],"properties":{` +
	`"repository":{"type":"string"},"rev":{"type":"string"},"hash":{"type":"string"},` +
	`"commit":` + commitSchema + `,"patch":{"type":"string"},` +
	`"file":{"type":"object","required":["path","blob","content","size","content_digest"],"properties":{` +
	`"path":{"type":"string"},"blob":{"type":"string"},"content":{"type":"string"},"size":{"type":"integer"},"content_digest":{"type":"string"}}},` +
	`"truncated":{"type":"boolean"},"omitted_secrets":` + omittedSchema + `}}`

const diffRequestSchema = `{"type":"object","additionalProperties":false,"properties":{` +
	`"from":{"type":"string","description":"Default HEAD."},` +
	`"to":{"type":"string","description":"Omit to diff against the working tree."},` + pathProperty + `,` + maxBytesProperty + `}}`

const diffResponseSchema = `{"type":"object","required":["repository","from","from_hash","working_tree","files","patch","truncated"],"properties":{` +
	`"repository":{"type":"string"},"from":{"type":"string"},"from_hash":{"type":"string"},"to":{"type":"string"},"to_hash":{"type":"string"},` +
	`"working_tree":{"type":"boolean"},"files":{"type":"array","items":` + fileChangeSchema + `},"patch":{"type":"string"},` +
	`"truncated":{"type":"boolean"},"omitted_secrets":` + omittedSchema + `}}`
