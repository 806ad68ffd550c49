package process

import "sort"

func sortStrings(s []string) { sort.Strings(s) }

const processIDProperty = `"process_id":{"type":"string","minLength":1,"description":"A process id process.start or process.list returned."}`

const startRequestSchema = `{"type":"object","required":["command"],"additionalProperties":false,"properties":{` +
	`"command":{"type":"string","minLength":1,"description":"The program to run; a bare name is found on PATH."},` +
	`"args":{"type":"array","items":{"type":"string"},"description":"Its arguments, exactly; no shell."},` +
	`"cwd":{"type":"string","description":"Workspace-relative directory to run in (default the workspace root)."},` +
	`"env":{"type":"object","additionalProperties":{"type":"string"},"description":"Environment besides PATH; never a credential."},` +
	`"tty":{"type":"object","required":["rows","cols"],"additionalProperties":false,"properties":{"rows":{"type":"integer","minimum":1,"maximum":65535},"cols":{"type":"integer","minimum":1,"maximum":65535}},"description":"Run it in a pseudo-terminal of this size."},` +
	`"max_seconds":{"type":"integer","minimum":1,"maximum":86400,"description":"Stopped after this long; default 3600."}}}`

const processSchema = `{"type":"object","required":["schema","process_id","kind","actor","call_id","argv","cwd","state","running","created_at"],"properties":{` +
	`"schema":{"const":"runx.process.v1"},"process_id":{"type":"string"},"kind":{"enum":["process","command"]},"actor":{"type":"string"},` +
	`"run_id":{"type":"string"},"call_id":{"type":"string"},"argv":{"type":"array","items":{"type":"string"}},"cwd":{"type":"string"},` +
	`"env_names":{"type":"array","items":{"type":"string"}},"tty":{"type":"object"},"max_seconds":{"type":"integer"},` +
	`"state":{"enum":["starting","running","exited","stopped","timed_out","failed","lost"]},"running":{"type":"boolean"},"pid":{"type":"integer"},` +
	`"created_at":{"type":"string"},"started_at":{"type":"string"},"ended_at":{"type":"string"},"exit_code":{"type":"integer"},"signal":{"type":"string"},"message":{"type":"string"}}}`

const readRequestSchema = `{"type":"object","required":["process_id"],"additionalProperties":false,"properties":{` + processIDProperty + `,` +
	`"after":{"type":"string","description":"The cursor a previous read returned; from the start of the log when absent."},` +
	`"max_bytes":{"type":"integer","minimum":1,"maximum":4194304,"description":"Most output bytes to return; default 1 MiB."}}}`

const outputSchema = `{"type":"object","required":["schema","process_id","chunks","cursor","bytes","dropped_bytes","running","state"],"properties":{` +
	`"schema":{"const":"runx.process.output.v1"},"process_id":{"type":"string"},` +
	`"chunks":{"type":"array","items":{"type":"object","required":["stream"],"properties":{"stream":{"enum":["stdout","stderr","terminal"]},"data":{"type":"string"},"data_base64":{"type":"string"}}}},` +
	`"cursor":{"type":"string"},"bytes":{"type":"integer"},"dropped_bytes":{"type":"integer"},"running":{"type":"boolean"},"state":{"type":"string"},` +
	`"exit_code":{"type":"integer"},"signal":{"type":"string"}}}`

const writeRequestSchema = `{"type":"object","required":["process_id","input"],"additionalProperties":false,"properties":{` + processIDProperty + `,` +
	`"input":{"type":"string","description":"Bytes to type, control keys included (\"\\u0003\" is Ctrl-C on a terminal)."}}}`

const writeResponseSchema = `{"type":"object","required":["schema","process_id","bytes","already_applied"],"properties":{` +
	`"schema":{"const":"runx.process_write.v1"},"process_id":{"type":"string"},"bytes":{"type":"integer"},"already_applied":{"type":"boolean"}}}`

const resizeRequestSchema = `{"type":"object","required":["process_id","rows","cols"],"additionalProperties":false,"properties":{` + processIDProperty + `,` +
	`"rows":{"type":"integer","minimum":1,"maximum":65535},"cols":{"type":"integer","minimum":1,"maximum":65535}}}`

const idRequestSchema = `{"type":"object","required":["process_id"],"additionalProperties":false,"properties":{` + processIDProperty + `}}`

const listRequestSchema = `{"type":"object","additionalProperties":false,"properties":{"actor":{"type":"string","description":"Only this actor's processes (the person's own view only)."}}}`

const listSchema = `{"type":"object","required":["schema","processes"],"properties":{"schema":{"const":"runx.process_list.v1"},"processes":{"type":"array","items":` + processSchema + `}}}`
