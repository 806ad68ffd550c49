package fs

// JSON Schemas of the fs tools' inputs and outputs, served in Describe so
// every view of a tool (inspection, admission, agent tool lists) reads one
// description.

const readRequestSchema = `{"type":"object","required":["path"],"additionalProperties":false,"properties":{` +
	`"path":{"type":"string","minLength":1,"description":"Workspace-relative path, or an absolute path inside a reach root."},` +
	`"max_bytes":{"type":"integer","minimum":1,"maximum":4194304,"description":"Refuse files larger than this (default 1 MiB)."}}}`

const readResponseSchema = `{"type":"object","required":["path","content","size","content_digest"],"properties":{` +
	`"path":{"type":"string"},"content":{"type":"string"},"size":{"type":"integer"},` +
	`"content_digest":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}}}`

const listRequestSchema = `{"type":"object","additionalProperties":false,"properties":{` +
	`"path":{"type":"string","description":"Directory to list (default the workspace root)."},` +
	`"recursive":{"type":"boolean"},` +
	`"max_entries":{"type":"integer","minimum":1,"maximum":20000,"description":"Default 1000."}}}`

const listResponseSchema = `{"type":"object","required":["path","entries","count","truncated"],"properties":{` +
	`"path":{"type":"string"},"entries":{"type":"array","items":{"type":"object","required":["path","kind"],"properties":{` +
	`"path":{"type":"string"},"kind":{"enum":["file","dir","symlink","other"]},"size":{"type":"integer"},"worktree":{"type":"boolean"}}}},` +
	`"count":{"type":"integer"},"truncated":{"type":"boolean"}}}`

const searchRequestSchema = `{"type":"object","required":["query"],"additionalProperties":false,"properties":{` +
	`"path":{"type":"string","description":"Directory to search beneath, or one file (default the workspace root)."},` +
	`"query":{"type":"string","minLength":1,"description":"Literal text, or an RE2 expression when regex is true (^ and $ match at line ends)."},` +
	`"regex":{"type":"boolean"},` +
	`"max_matches":{"type":"integer","minimum":1,"maximum":5000,"description":"Default 200."},` +
	`"include":{"oneOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}],` +
	`"description":"Globs over files beneath path: no slash matches a name (*.go), a slash matches the path (src/**/*.ts), a leading ! excludes."}}}`

const searchResponseSchema = `{"type":"object","required":["path","query","matches","count","truncated"],"properties":{` +
	`"path":{"type":"string"},"query":{"type":"string"},"regex":{"type":"boolean"},` +
	`"matches":{"type":"array","items":{"type":"object","required":["path","line","column","text"],"properties":{` +
	`"path":{"type":"string"},"line":{"type":"integer"},"column":{"type":"integer"},"text":{"type":"string"},"text_truncated":{"type":"boolean"}}}},` +
	`"count":{"type":"integer"},"files_searched":{"type":"integer"},"files_matched":{"type":"integer"},` +
	`"files_skipped":{"type":"integer"},"truncated":{"type":"boolean"}}}`
