package store

import (
	"encoding/json"

	"github.com/runxhq/runx/sdk/plugin"
)

// Adapter ids this plugin serves: a data source bound to one of them is
// dispatched here.
const (
	AdapterSQLite   = "data.sqlite"
	AdapterPostgres = "data.postgres"
	AdapterRedis    = "data.redis"
)

// CredentialPassword is the one credential a PostgreSQL or Redis binding
// may be delivered; it never appears in the binding itself.
const CredentialPassword = "password"

// resourcesSchema is the resources a binding declares, by name, each with
// the event fields (JSON pointers) its reads redact as secret or private.
const resourcesSchema = `{"type":"object","additionalProperties":{"type":"object","required":["kind"],"additionalProperties":false,` +
	`"properties":{"kind":{"type":"string","minLength":1},"partition_key":{"type":"string"},` +
	`"secret":{"type":"array","items":{"type":"string"}},"private":{"type":"array","items":{"type":"string"}}}}}`

// profileSchema names the credential profile a password is delivered from.
const profileSchema = `{"type":"string","minLength":1}`

// Binding schemas: the fields of a data-sources.json entry for each
// adapter, and nothing else, so a field the adapter would not use is
// refused rather than silently ignored. A remote endpoint is found by URL
// or through a profile; its password is a credential, never a field.
const (
	sqliteBindingSchema = `{"type":"object","required":["adapter","database_path"],"additionalProperties":false,"properties":{` +
		`"adapter":{"const":"data.sqlite"},` +
		`"database_path":{"type":"string","minLength":1,"description":"The SQLite file, workspace-relative or absolute."},` +
		`"resources":` + resourcesSchema + `}}`
	postgresBindingSchema = `{"type":"object","required":["adapter"],"additionalProperties":false,` +
		`"anyOf":[{"required":["endpoint"]},{"required":["profile"]}],"properties":{` +
		`"adapter":{"const":"data.postgres"},` +
		`"endpoint":{"type":"string","pattern":"^postgres(ql)?://","description":"A postgres:// URL without a password."},` +
		`"profile":` + profileSchema + `,"resources":` + resourcesSchema + `}}`
	redisBindingSchema = `{"type":"object","required":["adapter"],"additionalProperties":false,` +
		`"anyOf":[{"required":["endpoint"]},{"required":["profile"]}],"properties":{` +
		`"adapter":{"const":"data.redis"},` +
		`"endpoint":{"type":"string","pattern":"^rediss?://","description":"A redis:// or rediss:// URL without a password."},` +
		`"key_prefix":{"type":"string","minLength":1,"description":"Prefix of every key (default runx:store)."},` +
		`"profile":` + profileSchema + `,"resources":` + resourcesSchema + `}}`
)

// adapters are the data adapters Describe declares.
func adapters() []plugin.Adapter {
	return []plugin.Adapter{
		{ID: AdapterSQLite, Summary: "An event store in one SQLite file.", BindingSchema: json.RawMessage(sqliteBindingSchema)},
		{ID: AdapterPostgres, Summary: "An event store in a PostgreSQL database.", BindingSchema: json.RawMessage(postgresBindingSchema), Credentials: []string{CredentialPassword}},
		{ID: AdapterRedis, Summary: "An event store in Redis.", BindingSchema: json.RawMessage(redisBindingSchema), Credentials: []string{CredentialPassword}},
	}
}
