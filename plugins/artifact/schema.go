package artifact

// The declared schemas: the plugin host checks every call's input and
// output against them.

const labelsSchema = `"labels":{"type":"object","additionalProperties":false,"properties":{"sharing":{"enum":["configured_model","local_only"],` +
	`"description":"Who may see the content: configured_model (the default) or local_only."}}}`

const mediaTypeSchema = `"media_type":{"type":"string","pattern":"^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$","maxLength":255}`

const admitRequestSchema = `{"type":"object","required":["path"],"additionalProperties":false,"properties":{` +
	`"path":{"type":"string","minLength":1,"description":"The file to snapshot: workspace-relative, or absolute inside the step's reach."},` +
	mediaTypeSchema + `,` + labelsSchema + `}}`

const digestSchema = `{"type":"string","pattern":"^sha256:[0-9a-f]{64}$"}`

const artifactSchema = `{"type":"object","required":["schema","digest","bytes","media_type","labels"],"additionalProperties":false,"properties":{` +
	`"schema":{"const":"runx.artifact.v1"},"ref":{"type":"string","pattern":"^art_[0-9a-f]{32}$"},` +
	`"artifact_id":` + digestSchema + `,"root":` + digestSchema + `,"digest":` + digestSchema + `,` +
	`"bytes":{"type":"integer","minimum":0},"media_type":{"type":"string"},"origin":{"enum":["admitted","opened","stored"]},` +
	`"labels":{"type":"object","required":["sharing"],"properties":{"sharing":{"enum":["configured_model","local_only"]}}}}}`

const readRequestSchema = `{"type":"object","required":["ref"],"additionalProperties":false,"properties":{` +
	`"ref":{"type":"string","pattern":"^art_[0-9a-f]{32}$","description":"The ref artifact.admit or artifact.open gave this run."},` +
	`"offset":{"type":"integer","minimum":0,"description":"Where the page starts: 0, or the next_offset a previous page gave."},` +
	`"max_bytes":{"type":"integer","minimum":1,"maximum":4194304,"description":"Most artifact bytes in the page; default 1 MiB."},` +
	`"encoding":{"enum":["base64","utf8","json_array"],"description":"base64 (default), utf8 (pages end on a character) or json_array (whole items of a JSON array)."}}}`

const pageSchema = `{"type":"object","required":["schema","ref","digest","bytes","encoding","offset","next_offset","range_digest","eof"],"additionalProperties":false,"properties":{` +
	`"schema":{"const":"runx.artifact_page.v1"},"ref":{"type":"string"},"digest":` + digestSchema + `,"bytes":{"type":"integer","minimum":0},` +
	`"encoding":{"enum":["base64","utf8","json_array"]},"offset":{"type":"integer","minimum":0},"next_offset":{"type":"integer","minimum":0},` +
	`"range_digest":` + digestSchema + `,"eof":{"type":"boolean"},` +
	`"data":{"type":"string"},"data_base64":{"type":"string"},"items":{"type":"array"}}}`

const storeRequestSchema = `{"type":"object","required":["value"],"additionalProperties":false,"properties":{` +
	`"value":{"description":"The JSON value to retain; it is kept as its canonical JSON (RFC 8785)."},` + labelsSchema + `}}`

const openRequestSchema = `{"type":"object","required":["artifact"],"additionalProperties":false,"properties":{` +
	`"artifact":{"type":"object","required":["schema","artifact_id","root","digest","bytes"],"properties":{` +
	`"schema":{"const":"runx.artifact.v1"},"artifact_id":` + digestSchema + `,"root":` + digestSchema + `,"digest":` + digestSchema + `,` +
	`"bytes":{"type":"integer","minimum":0}},"description":"The runx.artifact.v1 descriptor artifact.store answered."}}}`
